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
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.judge.compare import reference_output

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


@dataclass(frozen=True)
class PublicCase:
    """One public case: a graded function and its inputs (arrays, ints, floats; ``Seed`` for a generator)."""

    name: str
    function: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


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


def _entries(case: PublicCase, arrays: dict[str, np.ndarray]) -> dict:
    """The index entry of a case: its inputs and the reference's outputs, arrays moved to ``arrays``."""
    args = tuple(_materialised(a) for a in case.args)
    kwargs = {k: _materialised(v) for k, v in case.kwargs.items()}
    expected = reference_output(case.function, args, kwargs)
    outputs = expected if isinstance(expected, tuple) else (expected,)
    for index, output in enumerate(outputs):
        arrays[f"{case.name}/out/{index}"] = np.asarray(output)
    return {
        "name": case.name,
        "function": case.function,
        "args": [_store(f"{case.name}/arg/{i}", a, arrays) for i, a in enumerate(case.args)],
        "kwargs": {k: _store(f"{case.name}/kwarg/{k}", v, arrays) for k, v in case.kwargs.items()},
        "outputs": len(outputs),
        "returns_tuple": isinstance(expected, tuple),
    }


def cases_archive(cases: list[PublicCase]) -> bytes:
    """The ``.npz`` bytes of the cases with their expected outputs (deterministic).

    Raises
    ------
    ValueError
        When two cases share a name.
    """
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"public case names repeat: {sorted(n for n in names if names.count(n) > 1)}")
    arrays: dict[str, np.ndarray] = {}
    index = [_entries(case, arrays) for case in cases]
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
