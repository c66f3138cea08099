"""Translated docstrings: reading them, putting them in place without touching the code, and
checking that they keep the numpydoc skeleton, the literals and the numbers."""

from __future__ import annotations

import ast
import textwrap

import pytest

from autograder.build.docstrings import (
    FREE_SECTION,
    UNDERLINE,
    append_module_docstring,
    docstring_problems,
    docstring_skeleton,
    function_docstring,
    parse_docstrings,
    replace_function_docstring,
    section_title,
    without_docstring,
)
from autograder.build.markers import MarkerError

FUNCTION = textwrap.dedent(
    '''\
    def softmax(x, axis: int = -1):
        r"""Stable softmax along ``axis``.

        .. math::

            \\operatorname{softmax}(x)_i = e^{x_i} / \\sum_j e^{x_j}

        Weights sum to 1.

        Parameters
        ----------
        x : array_like, shape (..., n)
            Scores.

        Examples
        --------
        >>> softmax(np.zeros(2))
        array([0.5, 0.5])
        """
        return x  # the code
    '''
)
ENGLISH = function_docstring(FUNCTION)
CHINESE = textwrap.dedent(
    """\
    沿 ``axis`` 的稳定 softmax。

    .. math::

        \\operatorname{softmax}(x)_i = e^{x_i} / \\sum_j e^{x_j}

    权重之和为 1。

    Parameters
    ----------
    x : array_like, shape (..., n)
        分数。

    Examples
    --------
    >>> softmax(np.zeros(2))
    array([0.5, 0.5])"""
)


def test_replacing_a_docstring_changes_nothing_else():
    translated = replace_function_docstring(FUNCTION.rstrip("\n"), CHINESE)
    assert function_docstring(translated) == CHINESE
    assert without_docstring(translated) == without_docstring(FUNCTION.rstrip("\n"))
    assert '    r"""沿 ``axis``' in translated and translated.endswith('    """\n    return x  # the code')


def test_a_translation_with_a_backslash_gets_a_raw_string_and_a_one_liner_stays_one_line():
    plain = 'def f():\n    """Plain."""\n    return 1'
    assert replace_function_docstring(plain, "简单。") == 'def f():\n    """简单。"""\n    return 1'
    with_math = replace_function_docstring(plain, ":math:`\\alpha`。")
    assert ast.get_docstring(ast.parse(with_math).body[0]) == ":math:`\\alpha`。"


def test_a_function_without_a_docstring_cannot_be_translated():
    with pytest.raises(MarkerError, match="'f' has no docstring to translate"):
        replace_function_docstring("def f():\n    return 1", "说明。")


def test_the_module_translation_is_appended_to_the_module_docstring():
    module = 'r"""English.\n\nMore.\n"""\n\nimport numpy as np\n'
    result = append_module_docstring(module, f"{section_title('中文')}\n\n中文说明。")
    assert ast.get_docstring(ast.parse(result)) == "English.\n\nMore.\n\n中文\n----\n\n中文说明。"
    assert result.endswith('"""\n\nimport numpy as np\n')


@pytest.mark.parametrize(
    "module, words",
    [('"""One line."""\n', "must end with"), ('"""English.\n"""\n', "make the module docstring a raw string")],
)
def test_a_module_docstring_that_cannot_take_the_translation_is_refused(module, words):
    with pytest.raises(MarkerError, match=words):
        append_module_docstring(module, "含反斜杠 :math:`\\alpha`")


def test_a_section_title_is_underlined_as_wide_as_it_shows():
    assert section_title("中文 (简体)") == "中文 (简体)\n" + "-" * 11
    assert section_title("Notes") == "Notes\n-----"


def test_the_skeleton_is_what_every_language_keeps():
    assert docstring_skeleton(ENGLISH) == [
        ".. math::",
        "    \\operatorname{softmax}(x)_i = e^{x_i} / \\sum_j e^{x_j}",
        "Parameters", UNDERLINE, "x : array_like, shape (..., n)",
        "Examples", UNDERLINE, ">>> softmax(np.zeros(2))", "array([0.5, 0.5])",
    ]
    assert docstring_skeleton("Summary.\n\n约定\n----\n* 一条。")[:2] == [FREE_SECTION, UNDERLINE]


def test_a_faithful_translation_has_no_problems():
    assert docstring_problems(ENGLISH, CHINESE) == []


@pytest.mark.parametrize(
    "old, new, words",
    [
        ("x : array_like, shape (..., n)", "x : 数组, shape (..., n)", "skeleton differs at line 5"),
        ("Parameters\n----------", "参数\n----", "skeleton differs at line 3: 'Parameters'"),
        ("\\sum_j e^{x_j}", "\\sum_k e^{x_k}", "skeleton differs at line 2"),
        ("array([0.5, 0.5])", "array([0.50, 0.50])", "skeleton differs at line 9"),
        ("沿 ``axis`` 的", "沿轴的", "literals missing from the translation: ['``axis``']"),
        ("之和为 1。", "之和为一。", "numbers missing from the translation: ['1']"),
    ],
)
def test_each_kind_of_departure_is_reported(old, new, words):
    assert old in CHINESE
    problems = docstring_problems(ENGLISH, CHINESE.replace(old, new))
    assert any(words in p for p in problems), problems


@pytest.mark.parametrize(
    "text, words",
    [
        ("functions: [a]", "expected `module: <text>`"),
        ("other: 1", "expected `module: <text>`"),
        ("functions: {f: 1}", "maps a function name to its docstring text"),
        ('functions: {f: "a \\"\\"\\" b"}', "cannot appear in a docstring: ['f']"),
        ("functions: [", "not valid YAML"),
    ],
)
def test_a_malformed_docstrings_file_is_refused(text, words):
    with pytest.raises(MarkerError) as caught:
        parse_docstrings(text, "docstrings.zh.yml")
    assert str(caught.value).startswith("docstrings.zh.yml: ") and words in str(caught.value)


def test_a_docstrings_file_is_read_without_surrounding_blank_lines():
    read = parse_docstrings("module: |\n  模块。\nfunctions:\n  f: |\n    函数。\n\n", "docstrings.zh.yml")
    assert (read.module, read.functions) == ("模块。", {"f": "函数。"})
