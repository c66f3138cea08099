"""Public cases: random inputs with the reference's answers, written into the release by ``build``.

The instructor lists the cases in ``solutions/<id>/public_cases.py``: a function
``cases(rng)`` returning :class:`PublicCase` tuples (random batched, non-symmetric inputs,
``d_k`` other than 4). ``build`` computes every case's expected result with the reference
here, on the grader's side, and stores inputs and answers in ``public_cases.npz``, which the
release's public tests read (``checklib.public_case_params``). Students see answers, never
the code that computed them.

A question ``public_cases.py`` lists no case of gets its worked example instead: the literal
``EXAMPLE = (...)`` of its hidden test file ``test_<function>.py`` (that test draws nothing and
its docstring says students may see it), so a new question needs no public case of its own.

The archive is written byte for byte the same on every build (fixed member order and
times), so ``build --check-only`` can compare it with the committed one.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.judge.compare import contract, reference_output, reference_signature

#: File name of the cases in a release and of the instructor's case list in solutions/<id>/.
CASES_FILE = "public_cases.npz"
CASES_SOURCE = "public_cases.py"
#: Seed the instructor's ``cases(rng)`` draws from: the public cases never change between builds.
CASES_SEED = 20_270_301
#: A fixed member time, so equal cases give equal bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
#: Name of the member holding the index of the cases (JSON, as a 0-d unicode array).
INDEX = "index"
#: The module-level name of a hidden test file's worked example, and the suffix of the public case made of it.
EXAMPLE = "EXAMPLE"
EXAMPLE_CASE = "{function}_example"
#: The size the last axis of a public case's float array never has (the notebooks' d_k): a case of that size cannot
#: tell a d_k hard-coded from the examples from the right one (``tests/autograder/build/test_release.py`` checks it).
AVOIDED_LAST_AXIS = 4


@dataclass(frozen=True)
class PublicCase:
    """One public case: a graded function and its inputs (arrays, ints, floats; ``Seed`` for a generator)."""

    name: str
    function: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    weight: int = 1  # the case's weight in its question's score, as a hidden test's ``question(weight=...)``


@dataclass(frozen=True)
class Seed:
    """Stands for ``np.random.default_rng(value)`` among a case's inputs."""

    value: int


def _materialised(value):
    return np.random.default_rng(value.value) if isinstance(value, Seed) else value


def _store(prefix: str, value, arrays: dict[str, np.ndarray]) -> dict:
    """The index entry of one input, adding its array to ``arrays``."""
    if isinstance(value, Seed):
        return {"seed": int(value.value)}
    if value is None:
        return {"none": True}
    arrays[prefix] = np.asarray(value)
    return {"array": prefix, "python": type(value).__name__ if isinstance(value, (bool, int, float)) else None}


def _outputs(case: PublicCase, prefix: str, variant: dict, arrays: dict[str, np.ndarray]) -> object:
    """The reference's result for the case (with the keyword arguments ``variant``), its parts moved to ``arrays``."""
    args = tuple(_materialised(a) for a in case.args)
    kwargs = {k: _materialised(v) for k, v in case.kwargs.items()}
    expected = reference_output(case.function, args, {**kwargs, **variant})
    for index, output in enumerate(expected if isinstance(expected, tuple) else (expected,)):
        arrays[f"{prefix}/{index}"] = np.asarray(output)
    return expected


def _entries(case: PublicCase, arrays: dict[str, np.ndarray], names: tuple[str, ...] = ()) -> dict:
    """The index entry of a case: its inputs, the reference's outputs and the other results its contract accepts
    (another valid estimator, judged alike by the hidden tests), arrays moved to ``arrays``."""
    expected = _outputs(case, f"{case.name}/out", {}, arrays)
    accepted = contract(case.function).accepted
    for number, variant in enumerate(accepted):
        _outputs(case, f"{case.name}/alt/{number}", dict(variant), arrays)
    return {
        "name": case.name,
        "function": case.function,
        "args": [_store(f"{case.name}/arg/{i}", a, arrays) for i, a in enumerate(case.args)],
        "kwargs": {k: _store(f"{case.name}/kwarg/{k}", v, arrays) for k, v in case.kwargs.items()},
        "outputs": len(expected) if isinstance(expected, tuple) else 1,
        "returns_tuple": isinstance(expected, tuple),
        "alternatives": len(accepted),
        "weight": case.weight,
        "output_names": list(names),  # from the function's docstring: outputs are called by name, not by index
        "parameters": [p.name for p in reference_signature(case.function).parameters.values()
                       if p.kind is not inspect.Parameter.KEYWORD_ONLY],  # to name an argument changed in place
    }


def cases_archive(cases: list[PublicCase], named: dict[str, tuple[str, ...]] | None = None) -> bytes:
    """The ``.npz`` bytes of the cases with their expected outputs (deterministic); ``named`` gives each
    function's output names (its docstring's Returns section, see :mod:`autograder.build.output_names`).

    Raises
    ------
    ValueError
        When two cases share a name.
    """
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"public case names repeat: {sorted(n for n in names if names.count(n) > 1)}")
    arrays: dict[str, np.ndarray] = {}
    index = [_entries(case, arrays, (named or {}).get(case.function, ())) for case in cases]
    arrays[INDEX] = np.array(json.dumps(index, sort_keys=True))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, arrays[name], allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_TIME), member.getvalue())
    return buffer.getvalue()


def instructor_cases(path: Path) -> list[PublicCase]:
    """The cases listed by ``solutions/<id>/public_cases.py`` (the instructor's own, trusted code).

    Raises
    ------
    ValueError
        When the file defines no ``cases(rng)`` or it returns something else than PublicCase items.
    """
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # noqa: S102 - instructor's master
    make = namespace.get("cases")
    if not callable(make):
        raise ValueError(f"{path} defines no cases(rng)")
    cases = list(make(np.random.default_rng(CASES_SEED)))
    if not all(isinstance(case, PublicCase) for case in cases):
        raise ValueError(f"{path}: cases(rng) must return PublicCase items")
    return cases


def _literal_example(source: str) -> tuple | None:
    """The value of a module-level ``EXAMPLE = (...)`` when it is a non-empty literal tuple, else None."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [EXAMPLE]:
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return value if isinstance(value, tuple) and value else None
    return None


def _assigns_example(source: str) -> bool:
    return any(isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [EXAMPLE]
               for node in ast.parse(source).body)


def example_problems(suite: Path, functions) -> list[str]:
    """One line per worked example of ``functions`` in ``suite`` that cannot be a public case, naming its file: an
    ``EXAMPLE`` that is not made of plain literals (``np.array(...)`` is a call, not a literal), or a float array of
    it whose last axis has :data:`AVOIDED_LAST_AXIS` entries."""
    problems = []
    for function in functions:
        path = Path(suite) / f"test_{function}.py"
        source = path.read_text(encoding="utf-8") if path.is_file() else ""
        example = _literal_example(source) if source else None
        where = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
        if example is None and source and _assigns_example(source) and "TODO" not in _example_line(source):
            problems.append(f"{where}: EXAMPLE must be a tuple of plain literals (numbers, strings, nested lists and "
                            "tuples; np.array(...) is not one): it is the question's public check case")
        for argument in example or ():
            array = np.asarray(argument) if isinstance(argument, (list, tuple)) else None
            if array is not None and array.dtype.kind == "f" and array.ndim >= 2 and array.shape[-1] == AVOIDED_LAST_AXIS:
                problems.append(f"{where}: an EXAMPLE array has {AVOIDED_LAST_AXIS} entries on its last axis: use "
                                "another size (a public case's last axis is never "
                                f"{AVOIDED_LAST_AXIS}, and its sizes differ from each other)")
                break
    return problems


def _example_line(source: str) -> str:
    return next((line for line in source.splitlines() if line.startswith(f"{EXAMPLE} =")), "")


def example_cases(suite: Path, functions) -> list[PublicCase]:
    """The worked examples of a hidden suite as public cases, one per function of ``functions`` whose test file
    ``test_<function>.py`` in ``suite`` holds a literal ``EXAMPLE`` (a file without one gives nothing)."""
    found = []
    for function in functions:
        path = Path(suite) / f"test_{function}.py"
        example = _literal_example(path.read_text(encoding="utf-8")) if path.is_file() else None
        if example is not None:
            found.append(PublicCase(EXAMPLE_CASE.format(function=function), function, example))
    return found


def release_cases(layout, assignment, masters: Path | None = None) -> list[PublicCase]:
    """Every public case of an assignment's release: those its ``public_cases.py`` lists (in ``masters``, default the
    course's), then the worked example of each question it lists none of.

    Raises
    ------
    ValueError
        As :func:`instructor_cases`.
    """
    cases = instructor_cases(Path(masters or layout.masters(assignment.id)) / CASES_SOURCE)
    listed = {case.function for case in cases}
    return cases + example_cases(layout.hidden_suite(assignment.id), [f for f in assignment.functions if f not in listed])


#: How far a built archive's floats may be from the committed ones, in units of their dtype's epsilon: the last bits
#: of a matrix product depend on the machine's BLAS, and a release built on another machine is the same release.
ARCHIVE_ULPS = 64


def same_archive(saved: bytes, built: bytes) -> bool:
    """Whether two ``.npz`` archives hold the same arrays: same names, dtypes and shapes, floats within a few ulps."""
    try:
        with np.load(io.BytesIO(saved), allow_pickle=False) as one, np.load(io.BytesIO(built), allow_pickle=False) as other:
            if sorted(one.files) != sorted(other.files):
                return False
            for name in one.files:
                a, b = one[name], other[name]
                if a.dtype != b.dtype or a.shape != b.shape:
                    return False
                if a.dtype.kind in "fc":
                    rtol = ARCHIVE_ULPS * float(np.finfo(a.dtype).eps)
                    scale = float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0))  # a sum's error follows its terms
                    if not np.allclose(a, b, rtol=rtol, atol=rtol * scale, equal_nan=True):
                        return False
                elif not np.array_equal(a, b):
                    return False
    except (ValueError, OSError, zipfile.BadZipFile):
        return False
    return True
