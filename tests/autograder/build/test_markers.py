"""Solution markers: finding regions, rejecting bad markers, stripping and keeping answers."""

from __future__ import annotations

import ast
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.build.markers import (
    SOLUTION_BEGIN,
    SOLUTION_END,
    MarkerError,
    function_source,
    keep_solutions,
    solution_code_lines,
    solution_regions,
    strip_solutions,
)
from tests.strategies import QUICK

MASTER = textwrap.dedent(
    '''\
    """A master module."""

    import numpy as np

    SCALE = 2


    def double(x):
        """Twice ``x``."""
        ### BEGIN SOLUTION
        # the answer
        y = x * SCALE

        return y
        ### END SOLUTION


    def branchy(x):
        """Sign of ``x``."""
        if x > 0:
            ### BEGIN SOLUTION
            return 1
            ### END SOLUTION
        return 0
    '''
)


def stub(function: str) -> str:
    return f'raise NotImplementedError("{function}")'


def line_index(text: str, snippet: str, occurrence: int = 1) -> int:
    """0-based index of the ``occurrence``-th line of ``text`` containing ``snippet``."""
    return [i for i, line in enumerate(text.splitlines()) if snippet in line][occurrence - 1]


def marker_error(source: str) -> str:
    with pytest.raises(MarkerError) as caught:
        solution_regions(source, origin="m.py")
    return str(caught.value)


def test_regions_are_found_with_their_function_and_indentation():
    regions = solution_regions(MASTER)
    assert [(r.function, r.indent) for r in regions] == [("double", " " * 4), ("branchy", " " * 8)]


def test_regions_span_the_marker_lines():
    first, second = solution_regions(MASTER)
    assert (first.begin, first.end) == (line_index(MASTER, SOLUTION_BEGIN, 1), line_index(MASTER, SOLUTION_END, 1))
    assert (second.begin, second.end) == (line_index(MASTER, SOLUTION_BEGIN, 2), line_index(MASTER, SOLUTION_END, 2))


def test_source_without_markers_has_no_regions():
    assert solution_regions("def f():\n    return 1\n") == []


def test_end_without_begin_is_reported_at_its_line():
    source = "def f():\n    return 1\n    ### END SOLUTION\n"
    assert marker_error(source).startswith("m.py:3:")


def test_nested_begin_is_reported_at_the_inner_marker():
    source = "def f():\n    ### BEGIN SOLUTION\n    x = 1\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n"
    message = marker_error(source)
    assert message.startswith("m.py:4:")
    assert "inside another region" in message


def test_unclosed_region_is_reported_at_its_begin():
    source = "def f():\n    x = 1\n    ### BEGIN SOLUTION\n    return x\n"
    message = marker_error(source)
    assert message.startswith("m.py:3:")
    assert "never closed" in message


def test_region_at_module_level_is_rejected():
    source = "x = 1\n### BEGIN SOLUTION\ny = 2\n### END SOLUTION\n"
    message = marker_error(source)
    assert message.startswith("m.py:2:")
    assert "outside a top-level function" in message


def test_region_in_a_class_method_is_not_in_a_top_level_function():
    source = "class A:\n    def f(self):\n        ### BEGIN SOLUTION\n        return 1\n        ### END SOLUTION\n"
    assert marker_error(source).startswith("m.py:3:")


def test_region_closing_after_the_last_statement_belongs_to_the_function():
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n\n\ndef g():\n    pass\n"
    assert [(r.function, r.begin, r.end) for r in solution_regions(source)] == [("f", 1, 3)]


def test_region_in_a_nested_function_belongs_to_the_top_level_one():
    source = "def outer():\n    def inner():\n        ### BEGIN SOLUTION\n        return 1\n        ### END SOLUTION\n    return inner\n"
    assert [r.function for r in solution_regions(source)] == ["outer"]


def test_strip_replaces_each_region_with_one_indented_stub():
    stripped = strip_solutions(MASTER, stub)
    lines = stripped.splitlines()
    assert f"    {stub('double')}" in lines
    assert f"        {stub('branchy')}" in lines
    assert SOLUTION_BEGIN not in stripped and SOLUTION_END not in stripped


def test_strip_removes_the_answers_and_keeps_the_rest():
    stripped = strip_solutions(MASTER, stub)
    assert "y = x * SCALE" not in stripped and "return 1" not in stripped
    assert "SCALE = 2" in stripped and "return 0" in stripped


def test_stripped_module_parses_and_keeps_docstrings():
    tree = ast.parse(strip_solutions(MASTER, stub))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert ast.get_docstring(functions["double"]) == "Twice ``x``."
    assert ast.get_docstring(functions["branchy"]) == "Sign of ``x``."
    assert ast.get_docstring(tree) == "A master module."


def test_stripped_stub_raises_when_called():
    namespace: dict = {}
    exec(compile(strip_solutions(MASTER, stub), "stripped", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="double"):
        namespace["double"](3)


def test_strip_passes_origin_to_marker_errors():
    with pytest.raises(MarkerError, match="^master.py:1:"):
        strip_solutions("### END SOLUTION\n", stub, origin="master.py")


def test_keep_removes_only_the_marker_lines():
    kept = keep_solutions(MASTER)
    expected = [line for line in MASTER.splitlines() if line.strip() not in (SOLUTION_BEGIN, SOLUTION_END)]
    assert kept.splitlines() == expected


def test_kept_module_runs_the_answers():
    namespace: dict = {}
    exec(compile(keep_solutions(MASTER), "kept", "exec"), namespace)
    assert namespace["double"](3) == 6
    assert namespace["branchy"](5) == 1


def test_solution_code_lines_skip_blanks_and_comments():
    assert solution_code_lines(MASTER) == ["y = x * SCALE", "return y", "return 1"]


def test_function_source_includes_decorators_and_the_whole_body():
    source = textwrap.dedent(
        """\
        import functools


        @functools.lru_cache(maxsize=None)
        @staticmethod
        def f(x):
            if x:
                return 1

            return 2


        def g():
            pass
        """
    )
    lines = source.splitlines()
    expected = "\n".join(lines[line_index(source, "@functools") : line_index(source, "return 2") + 1])
    assert function_source(source, "f") == expected


def test_function_source_of_an_async_function():
    source = "async def f():\n    return 1\n"
    assert function_source(source, "f") == source.rstrip("\n")


def test_function_source_raises_for_a_missing_function():
    with pytest.raises(MarkerError, match="'missing'"):
        function_source(MASTER, "missing")


def test_function_source_ignores_methods_of_the_same_name():
    with pytest.raises(MarkerError):
        function_source("class A:\n    def f(self):\n        pass\n", "f")


@st.composite
def masters(draw):
    """A module of 1-4 functions, each with a docstring and maybe a solution region."""
    blocks, with_region = [], []
    for index in range(draw(st.integers(1, 4))):
        indent = " " * draw(st.sampled_from([4, 8]))
        has_region = draw(st.booleans())
        body = [f"def f{index}(x):", f'    """Doc {index}."""']
        if indent == " " * 8:
            body.append("    if x:")
        if has_region:
            answer = draw(st.lists(st.sampled_from(["y = 1", "", "# note", "y = x + 1", "return x"]), max_size=3))
            answer.append("y = 0")
            body += [indent + SOLUTION_BEGIN] + [indent + line if line else "" for line in answer] + [indent + SOLUTION_END]
        else:
            body.append(indent + "return x")
        body.append("    return None")
        blocks.append("\n".join(body))
        with_region.append(has_region)
    return "\n\n\n".join(blocks) + "\n", with_region


@QUICK
@given(masters())
def test_strip_and_keep_on_generated_masters(master):
    source, with_region = master
    regions = solution_regions(source)
    assert [r.function for r in regions] == [f"f{i}" for i, has in enumerate(with_region) if has]
    stripped = strip_solutions(source, stub)
    tree = ast.parse(stripped)
    assert [ast.get_docstring(node) for node in tree.body] == [f"Doc {i}." for i in range(len(with_region))]
    assert stripped.count("NotImplementedError") == len(regions)
    kept = keep_solutions(source)
    ast.parse(kept)
    assert len(kept.splitlines()) == len(source.splitlines()) - 2 * len(regions)
