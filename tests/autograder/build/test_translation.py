"""Parallel text in a notebook source: pairing English cells with their translations, and
picking the cells of one language."""

from __future__ import annotations

import textwrap

import jupytext
import pytest

from autograder.build.translation import LANGUAGE_KEY, pairing_problems, prose_pairs, select_language

SOURCE = textwrap.dedent(
    """\
    # %% [markdown]
    # # Title

    # %% [markdown] lang="zh"
    # # 标题

    # %%
    import numpy as np

    # %% [markdown]
    # The query.

    # %% [markdown] lang="zh"
    # 查询。

    # %% graded="f"
    pass
    """
)


def read(text: str):
    return jupytext.reads(text, fmt="py:percent")


def test_a_fully_translated_source_has_no_problems():
    assert pairing_problems(read(SOURCE), ("zh",), "nb.py") == []


def test_no_translation_is_required_for_an_english_only_course():
    english_only = "\n".join(line for line in SOURCE.split("\n") if "lang=" not in line and "标题" not in line and "查询" not in line)
    assert pairing_problems(read(english_only), (), "nb.py") == []


def test_an_english_cell_without_its_translation_is_named():
    source = SOURCE.replace('# %% [markdown] lang="zh"\n# 查询。\n', "")
    assert pairing_problems(read(source), ("zh",), "nb.py") == ["nb.py: cell 4 ('The query.'): no zh translation follows this English cell"]


def test_a_translation_after_a_code_cell_is_misplaced():
    source = SOURCE.replace("import numpy as np\n", 'import numpy as np\n\n# %% [markdown] lang="zh"\n# 多余。\n')
    assert pairing_problems(read(source), ("zh",), "nb.py") == [
        "nb.py: cell 4 ('多余。'): a zh cell must follow the English markdown cell it translates"
    ]


def test_a_second_translation_into_the_same_language_is_refused():
    source = SOURCE.replace("# 查询。\n", '# 查询。\n\n# %% [markdown] lang="zh"\n# 又一个。\n')
    assert pairing_problems(read(source), ("zh",), "nb.py") == [
        "nb.py: cell 6 ('又一个。'): a second zh translation of the same English cell"
    ]


@pytest.mark.parametrize(
    "header, words",
    [
        ('# %% [markdown] lang="fr"', "unknown translation language 'fr'"),
        ('# %% [markdown] lang="en"', "unknown translation language 'en'"),
        ('# %% lang="zh"', "only markdown cells are translated"),
    ],
)
def test_a_language_where_none_belongs_is_refused(header, words):
    source = SOURCE.replace('# %% [markdown] lang="zh"\n# 查询。', f"{header}\n# 查询。")
    problems = pairing_problems(read(source), ("zh",), "nb.py")
    assert any(words in p for p in problems), problems


def test_prose_pairs_hold_each_english_cell_with_its_translation():
    pairs = prose_pairs(read(SOURCE), "zh")
    assert [(p.position, p.english, p.translation) for p in pairs] == [(1, "# Title", "# 标题"), (4, "The query.", "查询。")]


@pytest.mark.parametrize("language, prose", [("en", ["# Title", "The query."]), ("zh", ["# 标题", "查询。"])])
def test_selecting_a_language_keeps_the_code_and_that_languages_prose(language, prose):
    notebook = read(SOURCE)
    select_language(notebook, language)
    assert [c.source for c in notebook.cells if c.cell_type == "markdown"] == prose
    assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["import numpy as np", "pass"]
    assert [c.cell_type for c in notebook.cells] == ["markdown", "code", "markdown", "code"]
    assert all(LANGUAGE_KEY not in c.metadata for c in notebook.cells)


def test_selecting_a_language_without_a_translation_keeps_the_english():
    notebook = read(SOURCE.replace('# %% [markdown] lang="zh"\n# 查询。\n', ""))
    select_language(notebook, "zh")
    assert [c.source for c in notebook.cells if c.cell_type == "markdown"] == ["# 标题", "The query."]
