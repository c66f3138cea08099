"""What the worker does with the student's module: imports, calls, results, errors."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.errors import BadReturn, LoadFailed, MissingFunction, NotImplementedYet, StudentException
from autograder.inputs import RngSeed

from .conftest import make_submission

ZOO = '''
import numpy as np

def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)

def echo(*args, **kwargs):
    return tuple(np.asarray(a) for a in args) + tuple(np.asarray(v) for v in kwargs.values())

def types_of(*args):
    return np.array([type(a).__name__ == n for a, n in zip(args, ["ndarray", "float32", "NoneType", "bool", "int", "float", "str", "list", "tuple", "Generator"])])

def draw(rng, n):
    return rng.random(n)

def returns_none():
    x = 1

def returns_str():
    return "attention"

def returns_dict():
    return {"weights": np.ones(2)}

def returns_object_array():
    return np.array([object(), object()])

def returns_complex():
    return np.ones(3) + 2j

def returns_generator():
    return (i for i in range(3))

class AlwaysEqual:
    def __eq__(self, other):
        return True
    __hash__ = None

def returns_always_equal():
    return AlwaysEqual()

def returns_list():
    return [0.25, 0.75]

def returns_list_of_rows():
    return [np.ones(2), np.zeros(2)]

def returns_pair_list():
    return [np.ones((2, 2)), np.ones(2)]

def returns_pair():
    return np.ones((2, 3), np.float32), np.arange(3)

def returns_pair_with_none():
    return np.ones(2), None

def returns_scalar():
    return 1.5

def returns_numpy_scalar():
    return np.float32(2.5)

def returns_matrix():
    return np.matrix([[1.0, 2.0]])

def returns_masked():
    return np.ma.masked_array([1.0, 2.0], mask=[False, True])

class Sub(np.ndarray):
    pass

def returns_subclass():
    return np.arange(3.0).view(Sub)

class Exploding:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("no array for you")

def returns_exploding():
    return Exploding()

class Exiting:
    def __array__(self, dtype=None, copy=None):
        raise SystemExit(4)

def returns_exiting():
    return Exiting()

def unicode_trouble():
    raise ValueError("bad \\udc80 byte")

def stub(q, k, v):
    raise NotImplementedError("implement scaled dot-product attention")

def bare_stub():
    raise NotImplementedError

def helper(x):
    return x @ np.ones((5, 5))

def broken(x):
    y = x * 2
    return helper(y)

def exits():
    import sys
    sys.exit(2)

def interrupts():
    raise KeyboardInterrupt

def shouts(n):
    for i in range(n):
        print("line", i, "ATN1 not a frame")
    import sys
    print("to stderr", file=sys.stderr)
    return np.array(n)

NOT_A_FUNCTION = 3

def finds_itself():
    import student
    return np.array(student.finds_itself is finds_itself)

def shifts_in_place(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    return np.exp(x)

def reshapes_in_place(x):
    x.shape = (x.size,)
    return x.copy()

def fills_nested(pair, mask=None):
    pair[1][...] = 0
    if mask is not None:
        mask[0] = False
    return pair[0].copy()

def nan_stays_nan(x):
    return x.copy()
'''


@pytest.fixture(scope="module")
def zoo():
    sub = make_submission(ZOO)
    sub.start()
    yield sub
    sub.close()


def test_a_correct_function_returns_the_right_array(zoo):
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    got = zoo.call("softmax", x, axis=-1)
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got.sum(axis=-1), 1.0)
    np.testing.assert_allclose(got[1], [1 / 3] * 3)


def test_attribute_access_proxies_to_call(zoo):
    np.testing.assert_allclose(zoo.softmax(np.zeros(4)), 0.25)


def test_arguments_arrive_with_their_types(zoo):
    got = zoo.types_of(np.ones(2), np.float32(1), None, True, 2, 2.5, "s", [1], (1,), RngSeed(0))
    assert got.all(), got


def test_float32_and_empty_arrays_come_back_unchanged(zoo):
    a, b, c = zoo.echo(np.ones((2, 3), np.float32), np.zeros((0, 4)), scale=np.int8(3))
    assert (a.dtype, a.shape) == (np.float32, (2, 3))
    assert b.shape == (0, 4)
    assert c.dtype == np.int8 and c.shape == ()


def test_rng_seed_becomes_the_same_generator_in_the_worker(zoo):
    np.testing.assert_array_equal(zoo.draw(RngSeed(11), 4), RngSeed(11).generator().random(4))


@pytest.mark.parametrize(
    "function, words",
    [
        ("returns_none", "None"),
        ("returns_str", "str"),
        ("returns_dict", "dict"),
        ("returns_object_array", "not a numeric array"),
        ("returns_complex", "complex128"),
        ("returns_generator", "generator"),
        ("returns_always_equal", "AlwaysEqual"),
        ("returns_pair_with_none", "element 1"),
        ("returns_exploding", "no array for you"),
        ("returns_exiting", "SystemExit: 4"),
    ],
)
def test_unusable_returns_are_bad_return_naming_what_came_back(zoo, function, words):
    with pytest.raises(BadReturn) as bad:
        zoo.call(function)
    assert words in bad.value.student_message


@pytest.mark.parametrize(
    "function, expected",
    [
        ("returns_list", np.array([0.25, 0.75])),
        ("returns_list_of_rows", np.array([[1.0, 1.0], [0.0, 0.0]])),
        ("returns_scalar", np.array(1.5)),
        ("returns_numpy_scalar", np.array(2.5, np.float32)),
        ("returns_matrix", np.array([[1.0, 2.0]])),
        ("returns_masked", np.array([1.0, 2.0])),
        ("returns_subclass", np.arange(3.0)),
    ],
)
def test_array_likes_become_plain_ndarrays(zoo, function, expected):
    got = zoo.call(function)
    assert type(got) is np.ndarray
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_tuples_and_ragged_lists_come_back_as_tuples_of_arrays(zoo):
    weights, index = zoo.returns_pair()
    assert weights.dtype == np.float32 and index.tolist() == [0, 1, 2]
    square, row = zoo.returns_pair_list()
    assert square.shape == (2, 2) and row.shape == (2,)


def test_not_implemented_error_is_not_implemented_yet_with_its_message(zoo):
    with pytest.raises(NotImplementedYet, match="implement scaled dot-product attention"):
        zoo.stub(1, 2, 3)
    with pytest.raises(NotImplementedYet, match="bare_stub"):
        zoo.bare_stub()


def test_an_exception_carries_a_traceback_of_student_lines_only(zoo):
    with pytest.raises(StudentException) as raised:
        zoo.broken(np.ones(3))
    message = raised.value.student_message
    assert 'File "student.py"' in message and "in broken" in message and "in helper" in message
    assert "return x @ np.ones((5, 5))" in message
    assert "ValueError" in message
    assert "worker.py" not in message and "numpy" not in message.split("ValueError")[0]


def test_sys_exit_and_keyboard_interrupt_in_a_call_are_student_exceptions(zoo):
    with pytest.raises(StudentException, match=r"sys.exit\(2\)"):
        zoo.exits()
    with pytest.raises(StudentException, match="KeyboardInterrupt"):
        zoo.interrupts()
    np.testing.assert_allclose(zoo.softmax(np.zeros(2)), 0.5)


def test_the_module_is_importable_by_its_own_name(zoo):
    assert zoo.finds_itself()


def test_exception_messages_reach_the_grader_as_clean_text(zoo):
    with pytest.raises(StudentException) as raised:
        zoo.unicode_trouble()
    raised.value.student_message.encode("utf-8")
    assert "bad" in raised.value.student_message


def test_missing_or_non_callable_names_are_missing_function(zoo):
    with pytest.raises(MissingFunction, match="does not define attention"):
        zoo.attention(np.ones(2))
    with pytest.raises(MissingFunction, match="int"):
        zoo.NOT_A_FUNCTION()


def test_prints_do_not_corrupt_results_and_are_captured_truncated(zoo):
    assert zoo.shouts(3) == 3
    assert "line 0 ATN1 not a frame" in zoo.captured_output
    assert "to stderr" in zoo.captured_output
    assert zoo.shouts(2000) == 2000
    output = zoo.captured_output
    assert "output truncated at 4 KiB" in output
    assert len(output.encode()) < 5 * 1024


@pytest.mark.parametrize(
    "source, words",
    [
        ("def f(:\n    pass\n", "SyntaxError"),
        ("def f():\n    pass\nreturn 1\n", "'return' outside function"),
        ("import sys\nsys.exit(0)\n", "sys.exit(0)"),
        ("import os\nos._exit(0)\n", "exited with status 0"),
        ("raise KeyboardInterrupt('not an Exception')\n", "KeyboardInterrupt"),
    ],
    ids=["syntax", "compile", "sys-exit", "os-exit", "base-exception"],
)
def test_import_failures_are_load_failed_with_a_reason(sandbox, source, words):
    with pytest.raises(LoadFailed) as failed:
        sandbox(source)
    assert words in failed.value.student_message


@pytest.mark.parametrize(
    "source, line, error, module",
    [
        ("import module_that_does_not_exist\n", 1, "ModuleNotFoundError", "module_that_does_not_exist"),
        ("import numpy as np\nimport matplotlib.pyplot as plt\n", 2, "ModuleNotFoundError", "matplotlib"),
        ("x = 1\nraise ValueError('top-level boom')\n", 2, "ValueError", None),
        ("import numpy as np\nnp.ones(3) @ np.ones(4)\n", 2, "ValueError", None),
    ],
    ids=["import", "dotted-import", "raise", "numpy-error"],
)
def test_a_top_level_statement_that_raises_is_skipped_and_the_functions_still_load(sandbox, source, line, error, module):
    sub = sandbox(source + "\ndef f(x):\n    return x\n")
    assert sub.call("f", np.array([1.0])).tolist() == [1.0]
    assert [(s.line, s.error, s.module) for s in sub.skipped] == [(line, error, module)]


def test_statements_after_a_skipped_one_still_run_in_order_and_future_imports_hold(sandbox):
    sub = sandbox(
        """\
        from __future__ import annotations
        import matplotlib.pyplot as plt
        fig = plt.figure()
        SCALE = 2.0

        def f(x: NotDefinedAnywhere) -> NotDefinedEither:
            return x * SCALE
        """
    )
    assert sub.call("f", np.array([1.5])).tolist() == [3.0]
    assert [(s.line, s.error) for s in sub.skipped] == [(2, "ModuleNotFoundError"), (3, "NameError")]
    assert "plt" in sub.skipped[1].message


def test_a_module_that_loads_cleanly_reports_nothing_skipped(sandbox):
    sub = sandbox("def f(x):\n    return x\n")
    sub.call("f", np.array([1.0]))
    assert sub.skipped == () and sub.skipped_more == 0


def test_only_so_many_skipped_statements_are_listed_and_the_rest_counted(sandbox):
    sub = sandbox("".join(f"raise ValueError({i})\n" for i in range(25)) + "def f(x):\n    return x\n")
    sub.call("f", np.array([1.0]))
    assert len(sub.skipped) == 20 and sub.skipped_more == 5


def test_a_failed_load_is_remembered_without_new_workers(sandbox):
    sub = make_submission("import sys\nprint('once')\nsys.exit(3)\n")
    try:
        with pytest.raises(LoadFailed):
            sub.start()
        with pytest.raises(LoadFailed, match="sys.exit"):
            sub.call("anything")
        assert sub.worker_pid is None
    finally:
        sub.close()


def test_empty_source_loads_but_has_no_functions(sandbox):
    sub = sandbox("")
    with pytest.raises(MissingFunction):
        sub.softmax(np.ones(2))


def test_monkeypatching_numpy_in_the_worker_does_not_reach_the_grader(sandbox):
    sub = sandbox(
        """
        import numpy as np
        np.allclose = lambda *a, **k: True
        np.testing.assert_allclose = lambda *a, **k: None
        def patched():
            return np.array(np.allclose(1.0, 2.0))
        """
    )
    assert sub.patched() == np.array(True)
    assert not np.allclose(1.0, 2.0)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(1.0, 2.0)


def test_an_unmodified_input_is_not_reported(zoo):
    outcome = zoo.call_observed("softmax", np.array([[1.0, 2.0]]), axis=-1)
    assert outcome.mutated == ()
    assert (outcome.container, outcome.parts) == (None, ("ndarray",))


def test_an_in_place_shift_is_reported_by_position(zoo):
    outcome = zoo.call_observed("shifts_in_place", np.array([[1.0, 3.0], [2.0, 2.0]]))
    assert outcome.mutated == ("0",)
    np.testing.assert_allclose(outcome.result, [[np.exp(-2.0), 1.0], [1.0, 1.0]])


def test_a_changed_shape_counts_as_modified(zoo):
    assert zoo.call_observed("reshapes_in_place", np.ones((2, 3))).mutated == ("0",)


def test_modified_arrays_inside_tuples_and_keywords_are_named(zoo):
    pair = (np.ones(2), np.ones(3))
    outcome = zoo.call_observed("fills_nested", pair, mask=np.ones(2, dtype=bool))
    assert outcome.mutated == ("0.1", "mask")
    assert zoo.call_observed("fills_nested", (np.ones(2), np.zeros(3))).mutated == ()


def test_nan_inputs_are_not_reported_as_modified(zoo):
    assert zoo.call_observed("nan_stays_nan", np.array([np.nan, 1.0])).mutated == ()


@pytest.mark.parametrize(
    "function, container, parts",
    [
        ("returns_list", "list", ("python_scalar", "python_scalar")),
        ("returns_list_of_rows", "list", ("ndarray", "ndarray")),
        ("returns_pair", "tuple", ("ndarray", "ndarray")),
        ("returns_scalar", None, ("python_scalar",)),
        ("returns_numpy_scalar", None, ("numpy_scalar",)),
        ("returns_subclass", None, ("ndarray",)),
    ],
)
def test_the_kind_of_returned_object_is_reported(zoo, function, container, parts):
    outcome = zoo.call_observed(function)
    assert (outcome.container, outcome.parts) == (container, parts)
