"""The checker nbgrader's grade cells and otter's test files carry: hidden tests as data, numpy only.

This module runs in the student's kernel, where neither ``attn_reference`` nor the hidden tests nor
``attn-course`` are installed: an export embeds its source (with the import policy's modules, see
:mod:`autograder.export.kernel_code`) and, per question, the data :mod:`autograder.export.recorded`
made at export time: every call each hidden test made with the export's seed, its inputs and the
reference's results. A test passes when every call of it, made again on the notebook's function,
keeps the call properties ``attn-course grade`` checks (inputs not modified in place, no list where an
array is documented, the documented float dtype) and returns the reference's result within the
course's tolerance (or, for an experiment, an estimate within sampling error of the reference's,
drawn from the generator it is given). The course's import policy is the grader's: the notebook's
code, read from the kernel's input history, loses ``penalty`` of its score for a disallowed import,
and a graded function bound by an import of a module the grader's sandbox does not provide (numpy
and the standard library only) counts as missing, as it does in ``attn-course grade``.

Only the standard library and numpy are imported here; messages come from the data, rendered in
the course's language at export time.
"""

import base64
import contextlib
import io
import json
import math
import os
import re
import signal
import sys
import tempfile
import threading
import time
import types
import warnings
import zlib

import numpy as np

#: Standard errors an estimate may be from the reference's (autograder.grade.estimates).
STANDARD_ERRORS = 5
SPREAD_FLOOR = 1e-6
#: Where the policy's modules live while the kernel grades (see :func:`policy_modules`).
MODULE_PREFIX = "_attn_kernel_"
#: The cells otter adds to a notebook it grades (otter.execute.preprocessor), whole: not the student's code.
OTTER_CELLS = tuple(re.compile(pattern) for pattern in (
    r'import sys\nsys\.path\.append\(r"[^"\n]*"\)\n?',
    r"import numpy as np_\w+\nimport random as random_\w+\n?",
    r'from otter import Notebook as (notebook_\w+)\n\1\.init_grading_mode\("[^"\n]*"\)\n'
    r"# set up Otter's logging\nimport logging\nfrom otter import logging\nlogging\.set_level\(logging\.DEBUG\)\n"
    r'logging\.send_logs\("[^"\n]*", \d+\)\n?',
))


class _Expired(BaseException):
    """The alarm of the current call rang."""


class Problem(Exception):
    """A hidden test failed: ``text`` says why, in the course's language."""


def unpack(text):
    """The data of a question: base64 of zlib-compressed JSON."""
    return json.loads(zlib.decompress(base64.b64decode(text)).decode("utf-8"))


def decode(value):
    """A value the export encoded (:func:`autograder.export.recorded.encode`); arrays load without pickle."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    (kind, body), = value.items()
    if kind in ("a", "g"):
        array = np.load(io.BytesIO(base64.b64decode(body)), allow_pickle=False)
        return array if kind == "a" else array[()]
    if kind == "t":
        return tuple(decode(v) for v in body)
    if kind == "f":
        return float(body)
    if kind == "rng":
        return np.random.default_rng(int(body))
    return {k: decode(v) for k, v in body.items()}


@contextlib.contextmanager
def contained():
    """Warnings silenced, stdout and stderr (Python's and descriptors 1 and 2) swallowed: nbgrader scores stderr 0."""
    with tempfile.TemporaryFile() as sink, warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        saved = []
        with contextlib.suppress(OSError):
            for fd in (1, 2):
                saved.append((fd, os.dup(fd)))
                os.dup2(sink.fileno(), fd)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                yield
        finally:
            for fd, copy in saved:
                os.dup2(copy, fd)
                os.close(copy)


@contextlib.contextmanager
def alarm(seconds):
    """Raise :class:`_Expired` after ``seconds`` (no bound outside the main thread)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def ring(signum, frame):
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _arrays(value, label=""):
    """``(label, array)`` for every array among the arguments (in tuples and lists too)."""
    if isinstance(value, np.ndarray):
        yield label, value
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _arrays(item, f"{label}[{index}]")


def _modified(before, after, names):
    """The first argument the call changed in place (by its parameter name), else None.

    ``before`` and ``after`` are ``(args, kwargs)``: untouched copies of the inputs, and the ones the call received.
    """
    (args0, kwargs0), (args1, kwargs1) = before, after
    pairs = [(names[i] if i < len(names) else str(i), one, other) for i, (one, other) in enumerate(zip(args0, args1))]
    pairs += [(key, kwargs0[key], kwargs1[key]) for key in kwargs0 if key in kwargs1]
    for name, one, other in pairs:
        for (label, a), (_, b) in zip(_arrays(one, name), _arrays(other, name)):
            if a.shape != b.shape or not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                return label
    return None


def _close(actual, expected, rtol, atol):
    """Where ``actual`` is close to a defined ``expected`` (the engine's rule: finite within tolerance, or equal)."""
    actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(all="ignore"):
        within = np.abs(actual - expected) <= atol + rtol * np.abs(expected)
        ok = (within & np.isfinite(actual) & np.isfinite(expected)) | (actual == expected)
    return ok | np.isnan(expected)


def _difference(expected, is_tuple, value, rtol, atol, messages):
    """What differs between the returned ``value`` and one expected result (a list of parts), or None."""
    if is_tuple != isinstance(value, tuple) or (is_tuple and len(value) != len(expected)):
        return messages["structure"].format(expected=len(expected) if is_tuple else 1,
                                            got=len(value) if isinstance(value, tuple) else 1)
    for want, got in zip(expected, value if is_tuple else (value,)):
        try:
            got = np.asarray(got)
        except Exception:  # noqa: BLE001 - a ragged list
            return messages["not_array"]
        if (want.dtype.kind == "b") != (got.dtype.kind == "b") or (want.dtype.kind == "f" and got.dtype.kind not in "biuf") \
                or got.dtype.kind not in "biuf":
            return messages["kind"].format(expected=str(want.dtype), got=str(got.dtype))
        if got.shape != want.shape:
            return messages["shape"].format(expected=str(want.shape), got=str(got.shape))
        if not _close(got, want, rtol, atol).all():
            return messages["values"]
    return None


def _properties(call, value, messages):
    """A list where an array is documented, or a float array in another dtype than the reference's."""
    parts = value if isinstance(value, tuple) else (value,)
    if isinstance(value, list) or any(isinstance(parts[i], list) for i in call["arrays"] if i < len(parts)):
        return messages["list"]
    expected = call["expected"][0]
    for index in call["arrays"]:
        if index < min(len(parts), len(expected)) and expected[index].dtype.kind == "f":
            got = np.asarray(parts[index]).dtype
            if got != expected[index].dtype:
                return messages["dtype"].format(expected=str(expected[index].dtype), got=str(got))
    return None


class Caller:
    """Calls the notebook's functions on the recorded inputs, within the course's time limits."""

    def __init__(self, namespace, data, missing):
        self.namespace, self.data, self.missing = namespace, data, set(missing)
        self.budget_end = None
        self.timeouts = {}

    def function(self, name):
        found = None if name in self.missing else self.namespace.get(name)
        if not callable(found):
            raise Problem(self.data["messages"]["missing"].format(name=name))
        return found

    def call(self, call):
        """The value the notebook's function returns on a fresh copy of the call's inputs.

        Raises
        ------
        Problem
            When it raised, ran out of time or changed an input in place.
        """
        messages, name = self.data["messages"], call["function"]
        now = time.monotonic()
        self.budget_end = self.budget_end or now + self.data["submission_timeout_s"]
        if now >= self.budget_end or self.timeouts.get(name, 0) >= 2:
            raise Problem(messages["budget"].format(function=name))
        implementation = self.function(name)
        args, kwargs = decode(call["args"]), decode(call["kwargs"])
        try:
            with alarm(min(self.data["call_timeout_s"], self.budget_end - now)):
                value = implementation(*args, **kwargs)
        except _Expired:
            self.timeouts[name] = self.timeouts.get(name, 0) + 1
            raise Problem(messages["timeout"].format(function=name, seconds=self.data["call_timeout_s"])) from None
        except NotImplementedError:
            raise Problem(messages["stub"].format(name=name)) from None
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the student's exception is the test's failure
            raise Problem(messages["raised"].format(name=name, error=f"{type(error).__name__}: {error}"[:300])) from None
        changed = _modified((decode(call["args"]), decode(call["kwargs"])), (args, kwargs), call["names"])
        if changed is not None:
            raise Problem(messages["modified"].format(argument=changed))
        return value


def _value_problem(call, value, messages):
    problem = _properties(call, value, messages)
    if problem is not None:
        return problem
    problems = [_difference(e, call["tuple"], value, call["rtol"], call["atol"], messages) for e in call["expected"]]
    return None if None in problems else problems[0]


def _numbers(value):
    parts = value if isinstance(value, tuple) else (value,)
    return tuple(float(np.asarray(part, dtype=float).ravel()[0]) for part in parts)


def _estimates_problem(test, pairs, messages):
    """An estimate outside sampling error of the reference's with the same generator, or one that ignores it."""
    errors = test["standard_error"]
    for call, value in pairs:
        parts = value if isinstance(value, tuple) else (value,)
        if len(parts) != len(errors) or any(np.size(p) != 1 for p in parts):
            return messages["estimate_size"].format(count=", ".join(test.get("names", ())))
        expected = tuple(call["expected"][0]) if call["tuple"] else call["expected"][0][0]
        for got, want, error in zip(_numbers(value), _numbers(expected), errors):
            if not (math.isfinite(got) and abs(got - want) <= STANDARD_ERRORS * math.sqrt(2) * error):
                return messages["estimate"].format(expected=f"{want:.4g}", got=f"{got:.4g}")
    for part, error in enumerate(errors):
        numbers = [_numbers(value)[part] for _, value in pairs]
        if len(numbers) > 1 and max(numbers) - min(numbers) < SPREAD_FLOOR * error:
            return messages["constant"].format(value=f"{numbers[0]:.6g}")
    return None


def run_test(caller, test):
    """None when the hidden test passes on the notebook, else what it says."""
    messages = caller.data["messages"]
    try:
        with contained():
            pairs = [(call, caller.call(call)) for call in test["calls"]]
            for call, value in pairs:
                problem = None if call.get("estimate") else _value_problem(call, value, messages)
                if problem is not None:
                    return problem
            estimated = [(call, value) for call, value in pairs if call.get("estimate")]
            return _estimates_problem(test, estimated, messages) if estimated else None
    except Problem as problem:
        return str(problem)


def _decoded(data):
    for test in data["tests"]:
        for call in test["calls"]:
            call["expected"] = [[decode(p) for p in parts] for parts in call["expected"]]
    return data


def _student_cells(history, own_cells):
    """The notebook's cells the kernel ran before the grading ones (otter's own cells left out)."""
    cells = list(history[1:len(history) - own_cells] if own_cells else history[1:])
    return [c for c in cells if isinstance(c, str) and not any(p.fullmatch(c) for p in OTTER_CELLS)]


def kernel_history():
    """The raw input history of the IPython kernel running the notebook, or None outside one."""
    shell = sys.modules.get("IPython")
    shell = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    return list(history) if history is not None else None


def policy_modules(sources):
    """The grader's notebook extractor and import policy, built from their embedded sources."""
    modules = {}
    for name in ("notebook_code", "reach", "static_check"):
        module = types.ModuleType(MODULE_PREFIX + name)
        sys.modules[module.__name__] = module
        exec(compile(sources[name], module.__name__, "exec"), module.__dict__)  # noqa: S102 - our own source
        modules[name] = module
    return modules


def _unavailable(tree, functions):
    """Graded functions bound by an import of a module the sandbox lacks (not numpy, not the standard library)."""
    import ast

    provided = set(sys.stdlib_module_names) | {"numpy"}
    missing = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                top = (module or alias.name).split(".")[0]
                if getattr(node, "level", 0) or top not in provided:
                    missing.add(alias.asname or alias.name.split(".")[0])
    return sorted(missing & set(functions))


def policy(data, cells):
    """``(penalty fraction, graded functions that are missing)`` for the notebook's cells (None: unreadable)."""
    if cells is None:
        return data["penalty"], ()
    modules = policy_modules(data["sources"])
    source = modules["notebook_code"].gradable_source(cells, data["functions"])
    try:
        tree = compile(source, "<notebook>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError:
        return 0.0, ()
    violations = modules["static_check"].policy_violations(tree, tuple(data["allowed"]))
    return (data["penalty"] if violations else 0.0), tuple(_unavailable(tree, data["functions"]))


def results(namespace, text, own_cells, history=None):
    """``(problems by test name, penalty, data)`` of one question on the notebook's namespace.

    Parameters
    ----------
    namespace : dict
        The notebook's globals.
    text : str
        The question's data (:func:`unpack`).
    own_cells : int
        How many of the last cells in the history are grading cells (the running one included).
    history : list of str, optional
        The kernel's input history (default: the running IPython kernel's).
    """
    data = _decoded(unpack(text))
    history = kernel_history() if history is None else history
    penalty, missing = policy(data, None if history is None else _student_cells(history, own_cells))
    caller = Caller(namespace, data, missing)
    return {test["name"]: run_test(caller, test) for test in data["tests"]}, penalty, data


def question_score(namespace, text, own_cells, history=None):
    """The question's points times the weighted share of its tests passed, less the policy's penalty (4 decimals)."""
    problems, penalty, data = results(namespace, text, own_cells, history)
    total = sum(t["weight"] for t in data["tests"])
    passed = sum(t["weight"] for t in data["tests"] if problems[t["name"]] is None)
    raw = round(data["points"] * passed / total, 4) if total else 0.0
    return float(round(raw * (1.0 - penalty), 4))


#: An otter question's results, per (namespace, data): every test case of its file reads them.
_CACHE = {}


def test_problem(namespace, text, name, policy_share=False, own_cells=1):
    """What hidden test ``name`` says (None: it passed); ``policy_share``: also require the import policy kept."""
    key = (id(namespace), text)
    if key not in _CACHE:
        _CACHE[key] = (namespace, results(namespace, text, own_cells))
    problems, penalty, data = _CACHE[key][1]
    if problems[name] is None and policy_share and penalty:
        return data["messages"]["policy"]
    return problems[name]
