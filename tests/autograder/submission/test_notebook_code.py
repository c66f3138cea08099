"""Extracting the gradable code of a notebook: what is kept, what is dropped, in what order."""

from __future__ import annotations

import ast
import json
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.submission.notebook_code import (
    SHOWN_CELL_NOTES,
    CodeCell,
    NotebookError,
    _graded_function_of,
    code_cells,
    extract_notebook,
    gradable_source,
    notebook_cells,
    notebook_to_module,
)
from tests.strategies import QUICK


def notebook(*cells: str, markdown: tuple[str, ...] = ()) -> str:
    """An .ipynb document with these code cells (sources as line lists) and markdown cells first."""
    document = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": m} for m in markdown]
        + [
            {"cell_type": "code", "metadata": {}, "source": cell.splitlines(keepends=True), "outputs": [], "execution_count": None}
            for cell in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document)


def run(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "extracted", "exec"), namespace)
    return namespace


def top_level(source: str) -> list[ast.stmt]:
    return ast.parse(source).body


def test_code_cells_reads_code_cells_in_order_and_skips_markdown():
    text = notebook("x = 1\ny = 2\n", "z = 3", markdown=("# Title",))
    assert code_cells(text) == ["x = 1\ny = 2\n", "z = 3"]


def test_code_cells_accepts_a_string_source():
    text = json.dumps({"cells": [{"cell_type": "code", "source": "a = 1\nb = 2"}]})
    assert code_cells(text) == ["a = 1\nb = 2"]


def test_broken_json_is_a_notebook_error_with_its_line():
    with pytest.raises(NotebookError, match="not valid JSON \\(line 2"):
        code_cells('{"cells": [\n  oops]}')


@pytest.mark.parametrize("text", ['{"metadata": {}}', "[1, 2]", '{"cells": "x = 1"}'])
def test_json_without_a_cell_list_is_a_notebook_error(text):
    with pytest.raises(NotebookError, match="no list of cells"):
        code_cells(text)


def test_definitions_classes_and_simple_constants_are_kept():
    source = gradable_source([
        "import numpy as np\nSCALE: float = 2.0\nNAMES = ('a', 'b')\nEPS = 1e-9 * SCALE",
        "def f(x):\n    return np.asarray(x) * SCALE\n\nclass Box:\n    size = EPS",
        "async def g():\n    return 1",
    ])
    assert [type(node).__name__ for node in top_level(source)] == [
        "Import", "AnnAssign", "Assign", "Assign", "FunctionDef", "ClassDef", "AsyncFunctionDef",
    ]
    assert run(source)["f"]([1, 2]).tolist() == [2.0, 4.0]


def test_demo_calls_and_computed_values_are_dropped():
    source = gradable_source([
        "def f(x):\n    return x + 1",
        "print(f(1))\nresult = f(2)\nf(3)\nfor i in range(3):\n    print(i)\nf.calls = 0",
    ])
    names = [getattr(node, "name", None) for node in top_level(source)]
    assert names == ["f"]
    assert "print" not in source and "result" not in source


def test_plots_and_their_unused_import_are_dropped():
    source = gradable_source([
        "import matplotlib.pyplot as plt\nimport numpy as np",
        "def f(x):\n    return np.tanh(x)",
        "fig, ax = plt.subplots()\nax.plot(f(np.arange(3)))\nplt.show()",
    ])
    assert "matplotlib" not in source and "plt" not in source
    assert "import numpy as np" in source


def test_magic_lines_are_dropped_and_the_rest_of_the_cell_kept():
    source = gradable_source([
        "%matplotlib inline\n!pip install x\n  %timeit f(1)\n?np.sum\nimport numpy as np",
        "def f(x):\n    return np.sum(x)",
    ])
    assert run(source)["f"]([1, 2, 3]) == 6
    assert "%" not in source and "!" not in source and "?" not in source


def test_help_suffix_does_not_lose_the_rest_of_the_cell():
    source = gradable_source(["import numpy as np\nnp.einsum?\ndef f(x):\n    return np.sum(x)"])
    assert run(source)["f"]([1, 2, 3]) == 6


def test_a_cell_with_a_syntax_error_is_skipped_entirely():
    source = gradable_source([
        "def good():\n    return 1",
        "def half_written(:\n    pass\n\ndef lost():\n    return 2",
    ])
    namespace = run(source)
    assert namespace["good"]() == 1
    assert "lost" not in namespace and "half_written" not in namespace


def test_imports_used_by_kept_code_are_kept():
    source = gradable_source([
        "import os.path\nimport math as m\nfrom functools import lru_cache\nimport numpy as np\nimport json",
        "@lru_cache(maxsize=None)\ndef f(n):\n    return m.sqrt(n)",
        "DTYPE = np.float32",
        "def g(p):\n    return os.path.basename(p)",
    ])
    imports = [ast.unparse(node) for node in top_level(source) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports == ["import os.path", "import math as m", "from functools import lru_cache", "import numpy as np"]
    namespace = run(source)
    assert namespace["f"](9) == 3.0 and namespace["g"]("a/b.py") == "b.py"


def test_future_import_comes_first_even_from_a_later_cell():
    source = gradable_source(["X = 1", "from __future__ import annotations\ndef f(x: Missing) -> Missing:\n    return X"])
    first = top_level(source)[0]
    assert isinstance(first, ast.ImportFrom) and first.module == "__future__"
    assert run(source)["f"](0) == 1


def test_later_definitions_win_when_executed():
    source = gradable_source([
        "def f():\n    return 'draft'",
        "LIMIT = 1",
        "def f():\n    return 'final'",
        "LIMIT = 2",
    ])
    namespace = run(source)
    assert (namespace["f"](), namespace["LIMIT"]) == ("final", 2)


def test_empty_notebook_gives_an_empty_module():
    assert notebook_to_module(notebook()).strip() == ""


def test_notebook_to_module_combines_reading_and_extraction():
    text = notebook("%matplotlib inline\nimport numpy as np", "def f(x):\n    return np.sum(x)", "f([1, 2])")
    assert run(notebook_to_module(text))["f"]([1, 2]) == 3


def test_notebook_to_module_raises_for_broken_json():
    with pytest.raises(NotebookError):
        notebook_to_module("{not json")


CELL_SNIPPETS = [
    "import numpy as np",
    "import matplotlib.pyplot as plt",
    "from __future__ import annotations",
    "def f(x):\n    return np.asarray(x)",
    "def f(x):\n    return x",
    "class C:\n    pass",
    "K = 3",
    "K = f(3)",
    "print(f(K))",
    "plt.plot([1, 2])\nplt.show()",
    "%matplotlib inline",
    "!pip install numpy",
    "def broken(:\n    pass",
    "for i in range(2):\n    f(i)",
]


@QUICK
@given(st.lists(st.sampled_from(CELL_SNIPPETS), max_size=8))
def test_extraction_of_any_cells_is_a_module_of_definitions_only(cells):
    source = gradable_source(cells)
    body = top_level(source)
    allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)
    assert all(isinstance(node, allowed) for node in body)
    assert not any(isinstance(node, ast.Call) for stmt in body if isinstance(stmt, ast.Assign) for node in ast.walk(stmt))
    futures = [i for i, node in enumerate(body) if isinstance(node, ast.ImportFrom) and node.module == "__future__"]
    assert futures == list(range(len(futures)))
    assert "matplotlib" not in source  # no definition in CELL_SNIPPETS uses plt


def test_graded_functions_keep_their_helpers_but_not_plotting_code():
    cells = [
        "import numpy as np\nimport matplotlib.pyplot as plt",
        "SCALE = 2.0\ndef _helper(x):\n    return x * SCALE\ndef f(x):\n    return _helper(np.asarray(x))",
        "def show(x):\n    plt.plot(x)\n    plt.show()",
    ]
    source = gradable_source(cells, functions=("f",))
    assert "matplotlib" not in source and "def show" not in source
    assert run(source)["f"]([1.0])[0] == 2.0


def test_comments_and_docstrings_ending_in_a_question_mark_are_code():
    cell = (
        "import numpy as np\n"
        "def f(x):\n"
        '    """Why subtract the max?\n    Because exp overflows."""\n'
        "    z = x - np.max(x)  # is the shift needed?\n"
        "    return z\n"
    )
    assert run(gradable_source([cell]))["f"](np.array([1.0, 3.0])).tolist() == [-2.0, 0.0]


def tagged_notebook(*cells: tuple[str, tuple[str, ...]], markdown_first: int = 0) -> str:
    """A notebook of ``markdown_first`` markdown cells, then code cells given as (source, tags)."""
    document = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# text"} for _ in range(markdown_first)]
        + [{"cell_type": "code", "metadata": {"tags": list(tags)}, "source": source} for source, tags in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    return json.dumps(document)


def test_a_graded_cell_that_does_not_parse_is_named_by_its_notebook_cell_and_line():
    text = tagged_notebook(
        ("import numpy as np", ()),
        ("def softmax(x, axis=-1):\n    e = np.exp(x\n    return e", ("graded", "softmax")),
        ("def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool))", ("graded", "causal_mask")),
        markdown_first=3,
    )
    code = extract_notebook(text, ("softmax", "causal_mask"))
    assert len(code.notes) == 1
    assert code.notes[0].startswith("cell 5 (the `softmax` cell) does not parse: line 2: ")
    assert "causal_mask" in run(code.source) and "softmax" not in run(code.source)


def test_a_cell_without_tags_is_named_by_the_graded_function_it_defines():
    text = tagged_notebook(("x = 1", ()), ("import numpy as np\n\ndef softmax(x):\n    return x +\n", ()))
    assert extract_notebook(text, ("softmax",)).notes == ("cell 2 (the `softmax` cell) does not parse: line 4: invalid syntax",)


def test_an_exploration_cell_that_does_not_parse_is_skipped_without_a_note():
    text = tagged_notebook(("for i in range(:\n", ()), ("def softmax(x):\n    return x", ("graded", "softmax")))
    code = extract_notebook(text, ("softmax",))
    assert code.notes == ()
    assert code.code_cell_count == 2


def test_notebook_cells_are_numbered_among_all_cells_and_keep_their_tags():
    cells = notebook_cells(tagged_notebook(("a = 1", ("graded", "f")), markdown_first=2))
    assert cells == [CodeCell(3, "a = 1", ("graded", "f"))]


# --- cell magics: their cells are not Python of the notebook ------------------------------------------

HONEST = "import numpy as np\n\ndef softmax(x, axis=-1):\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum(axis=axis, keepdims=True)\n"
FAKE = "def softmax(x, axis=-1):\n    return 'fake'\n"
#: Cell magics, each as the first line of a cell whose body redefines softmax.
CELL_MAGICS = ["%%writefile softmax.py", "%%capture", "%%time", "%%bash", "%%script python", "%%html", "  %%timeit -n 1"]


@pytest.mark.parametrize("first_line", CELL_MAGICS)
def test_a_cell_magic_cell_never_replaces_the_real_function(first_line):
    source = gradable_source([HONEST, f"{first_line}\n{FAKE}"], functions=("softmax",))
    assert run(source)["softmax"](np.array([0.0, 0.0])).tolist() == [0.5, 0.5]
    assert "fake" not in source


def test_a_cell_magic_line_below_other_lines_stops_the_cell_so_none_of_it_is_graded():
    """IPython refuses ``%%`` below a cell's first line ("Line magic function `%%writefile` not found")."""
    source = gradable_source([HONEST, f"# scratch\n%%writefile softmax.py\n{FAKE}"], functions=("softmax",))
    assert "fake" not in source and run(source)["softmax"](np.array([0.0, 0.0])).tolist() == [0.5, 0.5]


def test_the_honest_cell_beside_line_magics_and_percent_signs_is_graded():
    cell = "%matplotlib inline\n!ls\n" + HONEST + "LABEL = '%%d of %d' % (1,)\n"
    source = gradable_source([cell], functions=("softmax", "LABEL"))
    assert run(source)["softmax"](np.array([0.0, 0.0])).tolist() == [0.5, 0.5] and "LABEL" in source


def test_a_graded_function_in_a_cell_magic_is_named_in_a_note_and_other_magic_cells_are_not():
    text = tagged_notebook(("%%bash\nls -l\n", ()), (f"%%time\n{FAKE}", ()), ("%%capture\nx = 1\n", ("graded", "softmax")))
    code = extract_notebook(text, ("softmax",))
    assert code.notes == (
        "cell 2 (the `softmax` cell) is a `%%time` cell: its code is not Python of the notebook and is not graded; "
        "define `softmax` in a plain code cell",
        "cell 3 (the `softmax` cell) is a `%%capture` cell: its code is not Python of the notebook and is not graded; "
        "define `softmax` in a plain code cell",
    )
    assert code.source == "\n"


def test_notes_on_cells_left_out_stop_after_a_few_and_say_how_many_more():
    broken = 3 * SHOWN_CELL_NOTES
    code = extract_notebook(notebook(*["def softmax(x):\n    return (\n"] * broken), ("softmax",))
    assert len(code.notes) == SHOWN_CELL_NOTES + 1
    assert code.notes[-1] == f"and {broken - SHOWN_CELL_NOTES} more graded cell(s) left out like these"


def test_deeply_nested_json_is_a_notebook_error():
    with pytest.raises(NotebookError, match="nested too deeply"):
        notebook_cells('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")


# --- time linear in the notebook's size -----------------------------------------------------------------

#: What each extraction below may take on a slow, shared 2-core machine (it took 20 s to 10 minutes before).
LINEAR_S = 10.0


def _timed(function, *args):
    started = time.perf_counter()
    value = function(*args)
    assert time.perf_counter() - started < LINEAR_S
    return value


def test_a_cell_of_blank_lines_and_a_parenthesis_is_quick_to_name():
    """``^\\s*def`` backtracked over every blank line below each line: 80 KB took 20 s."""
    cell = CodeCell(1, "\n" * 200_000 + "(", ("graded",))
    assert _timed(_graded_function_of, cell, ("softmax",)) is None
    assert _timed(_graded_function_of, CodeCell(2, "\n" * 200_000 + "def softmax(:\n"), ("softmax",)) == "softmax"


def test_a_chain_of_helpers_is_followed_in_linear_time():
    """Each helper used to be found by a pass over all definitions: 40,000 of them ran 669 s."""
    length = 20_000
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n" for i in range(length))
    cells = ["def softmax(x):\n    return f0(x)\n" + chain + f"def f{length}(x):\n    return x\n", "def unused(x):\n    return f0(x)\n"]
    source = _timed(gradable_source, cells, ("softmax",))
    assert source.count("def ") == length + 2 and "unused" not in source
    assert run(source)[f"f{length - 5}"](7) == 7


def test_helpers_that_call_each_other_are_kept_once():
    source = gradable_source(["def softmax(x):\n    return f(x)\ndef f(x):\n    return g(x) if x else 0\ndef g(x):\n    return f(x - 1)\n"],
                             ("softmax",))
    assert [node.name for node in top_level(source)] == ["softmax", "f", "g"]


def test_an_import_that_binds_a_graded_function_is_kept_for_the_import_policy():
    from autograder.submission.notebook_code import gradable_source

    source = gradable_source(["from attn_reference import softmax", "import os\ndef other():\n    return 1"],
                             functions=["softmax", "other"])
    assert "from attn_reference import softmax" in source and "import os" not in source
