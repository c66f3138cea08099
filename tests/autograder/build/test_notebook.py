"""render_notebook and graded_functions on a small percent-format notebook source."""

from __future__ import annotations

import json
import textwrap

import nbformat
import pytest

from autograder.build.markers import MarkerError
from autograder.build.notebook import graded_functions, render_notebook

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
