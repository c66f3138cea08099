"""What an instructor writes into the TODOs ``attn-course new question`` leaves for ``sliding_window_mask``.

Luong's local attention: each query may attend to the keys within ``window`` positions on either
side. :func:`fill` edits only the files the scaffold asks to fill; :data:`FILES_EDITED` counts them.
"""

from __future__ import annotations

import re
from pathlib import Path

FUNCTION = "sliding_window_mask"
PARAMETERS = ("n", "window")

DOCSTRING = '''    """Mask letting each query attend to the keys within ``window`` positions of it.

    Parameters
    ----------
    n : int
        Sequence length, at least 1.
    window : int
        How far a query may look on either side, at least 0.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        ``mask[i, j]`` is True exactly when ``abs(i - j) <= window``.

    Raises
    ------
    ValueError
        When ``n < 1`` or ``window < 0``.
    """'''

BODY = '''    if n < 1 or window < 0:
        raise ValueError(f"need n >= 1 and window >= 0, got n={n!r}, window={window!r}")
    positions = np.arange(n)
    return np.abs(positions[:, None] - positions[None, :]) <= window'''

CHINESE_DOCSTRING = '''  sliding_window_mask: |
    滑动窗口注意力的掩码：每个查询只关注与它相距不超过 ``window`` 个位置的键。

    Parameters
    ----------
    n : int
        序列长度，至少为 1。
    window : int
        查询向两侧最多能看多远，至少为 0。

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        当且仅当 ``abs(i - j) <= window`` 时 ``mask[i, j]`` 为 True。

    Raises
    ------
    ValueError
        当 ``n < 1`` 或 ``window < 0`` 时。
'''


def _function(text: str, name: str) -> tuple[int, int]:
    """Where ``def name`` starts and where the next top-level statement (or the end) is."""
    start = text.index(f"def {name}(")
    following = re.search(r"\n(?=\S)", text[start:])
    return start, (start + following.end()) if following else len(text)


def _replace_function(path: Path, name: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    start, end = _function(text, name)
    path.write_text(text[:start] + new + ("\n\n" if end < len(text) else "") + text[end:], encoding="utf-8")


def fill(root: Path, assignment_id: str, module: str) -> list[Path]:
    """Fill every TODO of the scaffolded question in the course at ``root``; the files edited."""
    reference = root / "attn_reference" / f"{FUNCTION}.py"
    text = reference.read_text(encoding="utf-8")
    text = text.replace('@graded(Output("the result"))  # TODO name the output as feedback should call it; add axes=(...) '
                        'for its last axes', '@graded(Output("the mask", axes=("query", "key")))')
    text = re.sub(r'^""".*?"""', '"""Sliding-window (local) attention masks, as in Luong et al.\'s local attention."""', text,
                  count=1, flags=re.S)
    reference.write_text(text, encoding="utf-8")
    _replace_function(reference, FUNCTION, f"def {FUNCTION}(n, window):\n{DOCSTRING}\n{BODY}\n")
    masters = root / "solutions" / assignment_id
    _replace_function(masters / module, FUNCTION, f"def {FUNCTION}(n, window):\n{DOCSTRING}\n"
                      f"    ### BEGIN SOLUTION\n{BODY}\n    ### END SOLUTION\n")
    notebook = masters / "notebook.py"
    text = notebook.read_text(encoding="utf-8")
    text = text.replace("# ## Sliding window mask\n", "# ## Sliding window mask · 滑动窗口掩码\n")
    text = text.replace(f"# TODO explain {FUNCTION} to the student: what it computes, the formula, the shapes of its\n"
                        "# arguments and of its result.",
                        "# Luong's *local* attention lets each query look only at the keys near it:\n"
                        "# query $i$ may attend to key $j$ when $|i - j| \\le w$, the window.\n#\n"
                        "# **Shapes.** `n` and `window`: `int`s. Returns a boolean array of shape `(n, n)`.")
    text = re.sub(rf"# TODO\(translate\) TODO explain {FUNCTION} to the student \(in this language\)\.",
                  "# Luong 的*局部*注意力只让每个查询看它附近的键：当 $|i - j| \\\\le w$ 时查询 $i$ 可以关注键 $j$。\n#\n"
                  "# **形状。** `n` 和 `window`：`int`。返回形状为 `(n, n)` 的布尔数组。", text)
    text = text.replace(f"# TODO a short demo of {FUNCTION}, e.g. print({FUNCTION}(...))", f"print({FUNCTION}(5, 1).astype(int))")
    notebook.write_text(text, encoding="utf-8")
    suite = next(root.glob(f"**/hidden_tests/{assignment_id}/test_{FUNCTION}.py"))
    text = suite.read_text(encoding="utf-8")
    text = re.sub(r'    raise NotImplementedError\("TODO draw the arguments.*"\)', "    n = draw.size()\n    return n, draw.choice(range(n))", text)
    text = re.sub(r"^EXAMPLE = \(\)  # TODO.*$", "EXAMPLE = (7, 2)", text, flags=re.M)
    text = text[: text.index("@question\ndef test_batch_axes")].rstrip("\n") + "\n"  # it takes no arrays
    suite.write_text(text, encoding="utf-8")
    edited = [reference, masters / module, notebook, suite]
    for translated in sorted(masters.glob("docstrings.*.yml")):
        text = translated.read_text(encoding="utf-8")
        translated.write_text(text[: text.index(f"  {FUNCTION}: |")] + CHINESE_DOCSTRING, encoding="utf-8")
        edited.append(translated)
    return edited
