"""What a markdown text and its translation share: blocks, math, code, numbers."""

from __future__ import annotations

import textwrap

import pytest

from autograder.build.prose import blocks, markdown_facts, parallel_problems, split_blocks

ENGLISH = textwrap.dedent(
    """\
    ## 2. Scores · 分数

    Take $n$ tokens; `softmax` gives weights of 0.4519 and 27%.

    $$A = \\operatorname{softmax}(S)$$

    1. first
    2. second

    | a | b |
    | --- | --- |
    | `x` | 1 |

    <!-- points table: generated from course.yml -->

    ```bash
    attn-course check hw1   # your module

    pytest                  # the same checks
    ```

    <details><summary>Answer</summary>"""
)

CHINESE = textwrap.dedent(
    """\
    ## 2. 分数 · Scores

    取 $n$ 个 token；`softmax` 给出 0.4519 和 27% 的权重。

    $$A = \\operatorname{softmax}(S)$$

    1. 第一
    2. 第二

    | 甲 | 乙 |
    | --- | --- |
    | `x` | 1 |

    <!-- points table: generated from course.yml -->

    ```bash
    attn-course check hw1   # 你的模块

    pytest                  # 同样的检查
    ```

    <details><summary>答案</summary>"""
)


def test_a_fence_with_blank_lines_is_one_block():
    assert len(split_blocks(ENGLISH)) == 8
    assert [b.kind for b in blocks(ENGLISH)] == ["heading", "paragraph", "math", "list", "table", "comment", "fence", "html"]
    assert [b.shape for b in blocks(ENGLISH)][:5] == [(2,), (), (), (2,), (2, 2)]  # table: 2 rows, 2 columns


def test_a_faithful_translation_has_no_problems():
    assert parallel_problems(ENGLISH, CHINESE) == []


@pytest.mark.parametrize(
    "old, new, words",
    [
        ("$$A = \\operatorname{softmax}(S)$$\n\n", "", "the English text has 8 blocks, the translation 7"),
        ("## 2. 分数", "### 2. 分数", "block 1 is heading[2]"),
        ("2. 第二", "2. 第二\n3. 第三", "block 4 is list[2]"),
        ("| `x` | 1 |", "| `x` | 1 |\n| y | 2 |", "block 5 is table[2, 2]"),
        ("\\operatorname{softmax}(S)$$", "\\mathrm{softmax}(S)$$", "block 3 (math) must be identical"),
        ("course.yml -->", "course.yaml -->", "block 6 (comment) must be identical"),
        ("pytest                  # 同样", "pytest -x               # 同样", "block 7 (fence) must be identical"),
        ("<summary>答案</summary>", "<b>答案</b>", "block 8 is html['details', 'summary', 'summary']"),
        ("取 $n$ 个", "取 $m$ 个", "inline math missing from the translation: ['$n$']"),
        ("`softmax` 给出", "softmax 给出", "inline code missing from the translation: ['`softmax`']"),
        ("0.4519", "0.452", "numbers missing from the translation: ['0.4519']"),
        ("27%", "二十七%", "numbers missing from the translation: ['27']"),
    ],
)
def test_each_kind_of_departure_is_reported(old, new, words):
    assert old in CHINESE
    problems = parallel_problems(ENGLISH, CHINESE.replace(old, new))
    assert any(words in p for p in problems), problems


def test_fence_comments_may_be_translated_but_not_the_commands():
    assert parallel_problems("```\nrun a  # do it\n```", "```\nrun a  # 运行\n```") == []
    assert parallel_problems("```\nrun a  # do it\n```", "```\nrun b  # 运行\n```") != []


def test_a_translation_may_add_numbers_math_and_code_but_not_drop_them():
    assert parallel_problems("Step 1 of $n$.", "第 1 步（共 2 步），$n$ 与 $m$，`x`。") == []


def test_a_span_wrapped_over_two_lines_is_the_same_span():
    facts = markdown_facts("Scores `(n_samples,\nn_keys)` and $a +\nb$.")
    assert facts.inline_code == {"`(n_samples, n_keys)`"} and facts.inline_math == {"$a + b$"}


def test_numbers_glued_to_letters_are_names_not_numbers():
    assert markdown_facts("hw1 and CS231n and float32, but 7 and 0.5 and 第6节").numbers == {"7", "0.5", "6"}


def test_numbers_inside_math_and_code_are_not_prose_numbers():
    assert markdown_facts("$d_k = 4$ and `np.eye(3, 4)` and\n```\nx = 9\n```\n").numbers == frozenset()


def test_ordinary_markdown_is_read_as_jupyter_renders_it():
    """Nested lists, a fence inside a list item, ``$`` inside code spans: what a regular expression got wrong."""
    text = textwrap.dedent("""\
        1. first, with a nested list:
           - one
           - two

           ```python
           x = 1  # a fence inside the item, after a blank line

           y = 2
           ```
        2. second costs `$5` and 3 steps

        Price `a $ b` and $x$.""")
    found = blocks(text)
    assert [(b.kind, b.shape) for b in found] == [("list", (2,)), ("paragraph", ())]
    facts = markdown_facts(text)
    assert facts.inline_code == {"`$5`", "`a $ b`"} and facts.inline_math == {"$x$"}
    assert facts.numbers == {"3"}, "numbers in the fence and in code spans are not prose"
