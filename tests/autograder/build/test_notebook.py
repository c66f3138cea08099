"""render_notebook, graded_functions and has_points_table on a small percent-format notebook source."""

from __future__ import annotations

import json
import textwrap

import nbformat
import pytest

from autograder.build.markers import MarkerError
from autograder.build.notebook import (
    POINTS_TABLE_PLACEHOLDER,
    graded_functions,
    has_points_table,
    points_table,
    render_notebook,
)
from autograder.config import Question

NOTEBOOK = textwrap.dedent(
    '''\
    # ---
    # jupyter:
    #   jupytext:
    #     text_representation:
    #       extension: .py
    #       format_name: percent
    #   kernelspec:
    #     display_name: Python 3
    #     language: python
    #     name: python3
    # ---

    # %% [markdown]
    # # Softmax and friends

    # %%
    import numpy as np

    # %% graded="softmax"
    # placeholder: filled from the module

    # %% [markdown]
    # Now the mask.

    # %% graded="causal_mask"
    pass

    # %%
    print(softmax(np.zeros(3)))
    '''
)

SOFTMAX = textwrap.dedent(
    '''\
    @np.errstate(over="ignore")
    def softmax(x, axis=-1):
        """Softmax along ``axis``."""
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)'''
)

CAUSAL_MASK = textwrap.dedent(
    '''\
    def causal_mask(n):
        """Lower-triangular boolean mask."""
        raise NotImplementedError("causal_mask")'''
)

MODULE = f"import numpy as np\n\n\n{SOFTMAX}\n\n\n{CAUSAL_MASK}\n\n\ndef helper():\n    return 1\n"


def rendered(notebook: str = NOTEBOOK, module: str = MODULE) -> dict:
    return json.loads(render_notebook(notebook, module))


def code_cells(document: dict) -> list[dict]:
    return [cell for cell in document["cells"] if cell["cell_type"] == "code"]


def source_of(cell: dict) -> str:
    return "".join(cell["source"])


def test_graded_cells_hold_the_module_functions():
    cells = code_cells(rendered())
    assert source_of(cells[1]) == SOFTMAX
    assert source_of(cells[2]) == CAUSAL_MASK


def test_graded_cells_are_tagged_with_their_function():
    cells = code_cells(rendered())
    assert [cell["metadata"].get("tags") for cell in cells] == [None, ["graded", "softmax"], ["graded", "causal_mask"], None]


def test_placeholder_metadata_key_is_removed():
    for cell in rendered()["cells"]:
        assert "graded" not in cell["metadata"]


def test_other_cells_keep_their_source():
    document = rendered()
    assert source_of(document["cells"][0]) == "# Softmax and friends"
    assert source_of(code_cells(document)[0]) == "import numpy as np"
    assert source_of(code_cells(document)[-1]) == "print(softmax(np.zeros(3)))"


def test_jupytext_header_is_replaced_by_a_plain_kernelspec():
    metadata = rendered()["metadata"]
    assert "jupytext" not in metadata
    assert metadata["kernelspec"]["name"] == "python3"
    assert metadata["language_info"] == {"name": "python"}


def test_cells_have_sequential_ids_and_no_outputs():
    document = rendered()
    assert [cell["id"] for cell in document["cells"]] == [f"cell-{i:03d}" for i in range(len(document["cells"]))]
    for cell in code_cells(document):
        assert cell["outputs"] == [] and cell["execution_count"] is None


def test_rendering_is_deterministic():
    assert render_notebook(NOTEBOOK, MODULE) == render_notebook(NOTEBOOK, MODULE)


def test_output_is_a_valid_nbformat_4_notebook_ending_in_a_newline():
    text = render_notebook(NOTEBOOK, MODULE)
    assert text.endswith("\n")
    nbformat.validate(nbformat.reads(text, as_version=4))


def test_changed_module_changes_only_the_graded_cell():
    solved = MODULE.replace('raise NotImplementedError("causal_mask")', "return np.tri(n, dtype=bool)")
    before, after = code_cells(rendered()), code_cells(rendered(module=solved))
    assert "np.tri" in source_of(after[2])
    assert [source_of(c) for i, c in enumerate(after) if i != 2] == [source_of(c) for i, c in enumerate(before) if i != 2]


def test_unknown_function_raises_marker_error_naming_origin_and_function():
    notebook = NOTEBOOK.replace('graded="causal_mask"', 'graded="attention"')
    with pytest.raises(MarkerError) as caught:
        render_notebook(notebook, MODULE, origin="nb.py")
    assert str(caught.value).startswith("nb.py:")
    assert "'attention'" in str(caught.value)


def test_graded_functions_lists_placeholders_in_order():
    assert graded_functions(NOTEBOOK) == ["softmax", "causal_mask"]


def test_graded_functions_of_a_notebook_without_placeholders():
    assert graded_functions("# %%\nx = 1\n\n# %% [markdown]\n# text\n") == []


QUESTIONS = (Question(function="softmax", points=2), Question(function="causal_mask", points=1.5))
WITH_TABLE = NOTEBOOK.replace("# # Softmax and friends\n", f"# # Softmax and friends\n#\n# You implement:\n#\n# {POINTS_TABLE_PLACEHOLDER}\n#\n# Good luck.\n")
WITH_GIVEN = NOTEBOOK.replace("# %%\nprint(softmax", '# %% given="helper"\n# filled from the module\n\n# %%\nprint(softmax')


def test_points_table_lists_every_question_with_its_number_and_points():
    assert points_table(QUESTIONS).splitlines() == [
        "| Question | Function | Points |",
        "| --- | --- | --- |",
        "| 1 | `softmax` | 2 |",
        "| 2 | `causal_mask` | 1.5 |",
    ]


def test_the_placeholder_line_becomes_the_points_table_and_the_rest_of_the_cell_stays():
    first = json.loads(render_notebook(WITH_TABLE, MODULE, questions=QUESTIONS))
    assert source_of(first["cells"][0]).splitlines() == [
        "# Softmax and friends", "", "You implement:", "", *points_table(QUESTIONS).splitlines(), "", "Good luck.",
    ]


def test_changed_points_change_the_rendered_table():
    before = render_notebook(WITH_TABLE, MODULE, questions=QUESTIONS)
    after = render_notebook(WITH_TABLE, MODULE, questions=(QUESTIONS[0], Question(function="causal_mask", points=3)))
    assert before != after and "| 2 | `causal_mask` | 3 |" in after


def test_the_points_table_without_questions_is_an_error_naming_the_origin():
    with pytest.raises(MarkerError, match=r"^nb\.py: the points table needs the questions from course\.yml$"):
        render_notebook(WITH_TABLE, MODULE, origin="nb.py")


def test_has_points_table():
    assert has_points_table(WITH_TABLE)
    assert not has_points_table(NOTEBOOK)
    assert not has_points_table(f"# %%\nx = '{POINTS_TABLE_PLACEHOLDER}'\n")  # only markdown counts


def test_given_cells_hold_the_helper_and_are_tagged_given():
    cells = code_cells(json.loads(render_notebook(WITH_GIVEN, MODULE)))
    helper = cells[3]
    assert source_of(helper) == "def helper():\n    return 1"
    assert helper["metadata"]["tags"] == ["given", "helper"] and "given" not in helper["metadata"]
    assert graded_functions(WITH_GIVEN) == ["softmax", "causal_mask"]  # given cells are no questions


def test_a_given_cell_naming_an_unknown_function_is_an_error():
    with pytest.raises(MarkerError, match=r"^nb\.py: given cell: .*'nowhere'"):
        render_notebook(WITH_GIVEN.replace('given="helper"', 'given="nowhere"'), MODULE, origin="nb.py")


# --- one source, a notebook per language -------------------------------------------------------

BILINGUAL = WITH_TABLE.replace(
    "# Good luck.\n", '# Good luck.\n\n# %% [markdown] lang="zh"\n# # Softmax 及其他\n#\n# 你要实现：\n#\n'
    f"# {POINTS_TABLE_PLACEHOLDER}\n#\n# 祝你顺利。\n"
).replace("# Now the mask.\n", '# Now the mask.\n\n# %% [markdown] lang="zh"\n# 接下来是掩码。\n')
ZH_DOCSTRINGS = {"softmax": "沿 ``axis`` 的 softmax。", "causal_mask": "下三角布尔掩码。"}


def test_the_chinese_notebook_has_chinese_prose_and_a_chinese_points_table():
    document = json.loads(render_notebook(BILINGUAL, MODULE, questions=QUESTIONS, language="zh", docstrings=ZH_DOCSTRINGS))
    markdown = [source_of(c) for c in document["cells"] if c["cell_type"] == "markdown"]
    assert markdown[0].splitlines()[:5] == ["# Softmax 及其他", "", "你要实现：", "", "| 题号 | 函数 | 分值 |"]
    assert markdown[1] == "接下来是掩码。"
    assert points_table(QUESTIONS, "zh").splitlines()[2:] == points_table(QUESTIONS).splitlines()[2:]


def test_the_notebooks_of_both_languages_share_their_code_cells_apart_from_the_docstrings():
    from autograder.build.docstrings import function_docstring, without_docstring

    english = json.loads(render_notebook(BILINGUAL, MODULE, questions=QUESTIONS))
    chinese = json.loads(render_notebook(BILINGUAL, MODULE, questions=QUESTIONS, language="zh", docstrings=ZH_DOCSTRINGS))
    assert len(english["cells"]) == len(chinese["cells"]) == 6
    for ours, theirs in zip(code_cells(english), code_cells(chinese)):
        assert (ours["id"], ours["metadata"]) == (theirs["id"], theirs["metadata"])
        if ours["metadata"].get("tags"):
            assert without_docstring(source_of(ours)) == without_docstring(source_of(theirs))
            assert function_docstring(source_of(theirs)) == ZH_DOCSTRINGS[ours["metadata"]["tags"][1]]
        else:
            assert source_of(ours) == source_of(theirs)


def test_a_graded_function_without_its_translated_docstring_does_not_render():
    with pytest.raises(MarkerError, match="nb.py: graded cell: no translated docstring for 'causal_mask'"):
        render_notebook(BILINGUAL, MODULE, "nb.py", QUESTIONS, language="zh", docstrings={"softmax": "说明。"})


def test_renames_replace_a_file_name_in_the_markdown_only():
    source = BILINGUAL.replace("# 祝你顺利。", "# 在 a.ipynb 中作答。").replace("print(softmax(np.zeros(3)))", "print('a.ipynb')")
    document = json.loads(render_notebook(source, MODULE, questions=QUESTIONS, language="zh", docstrings=ZH_DOCSTRINGS,
                                          renames={"a.ipynb": "a.zh.ipynb"}))
    assert "在 a.zh.ipynb 中作答。" in source_of(document["cells"][0])
    assert source_of(code_cells(document)[-1]) == "print('a.ipynb')"
