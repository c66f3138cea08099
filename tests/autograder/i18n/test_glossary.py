"""The glossary rule: an English mention asks for the Chinese term; avoided renderings are refused."""

from __future__ import annotations

import pytest

from autograder.i18n.glossary import GlossaryError, Term, glossary_problems, mentions, parse_glossary, prose, uses

KEY = Term("key", "键", "chapter §1", zh_not=("关键",), zh_avoid=("关键字",))
VALUE = Term("value", "值", "chapter §1", en_not=("absolute value",), zh_not=("数值", "最大值"))
SDPA = Term("scaled dot-product attention", "缩放点积注意力", "chapter §2")
QUERY = Term("query", "查询", "chapter §1")
MASK = Term("mask", "掩码", "blog §四", en_also=("masked",), zh_avoid=("遮罩",))
SCORE = Term("score", "分数", "chapter §4.1", zh_also=("打分",))


@pytest.mark.parametrize(
    "term, english, mentioned",
    [
        (KEY, "Compare the query with every key.", True),
        (KEY, "KEYS first", True),
        (QUERY, "all the queries", True),
        (SDPA, "Scaled dot product\nattention is it", True),
        (SDPA, "scaled dot–product attention", True),
        (MASK, "the masked scores", True),
        (KEY, "the keyboard and a monkey", False),
        (VALUE, "the absolute value of x", False),
        (VALUE, "the absolute value of a value", True),
        (KEY, "`key` is an argument; $key$ a symbol; ``key`` a literal; :func:`key` a role", False),
        (KEY, "```\nkey = 1\n```\n<!-- key -->", False),
        (QUERY, ".. math::\n\n    query\n\nnothing else", False),
    ],
)
def test_what_counts_as_an_english_mention(term, english, mentioned):
    assert mentions(term, english) is mentioned


@pytest.mark.parametrize(
    "term, chinese, used",
    [
        (KEY, "把查询与每个键比较", True),
        (KEY, "关键在于查询", False),
        (VALUE, "数值和最大值", False),
        (VALUE, "数值和值", True),
        (SCORE, "打分函数", True),
        (Term("softmax", "softmax", "chapter §2.4"), "SoftMax 的结果", True),
        (KEY, "公式 $键$ 里", False),
    ],
)
def test_what_counts_as_using_the_chinese_term(term, chinese, used):
    assert uses(term, chinese) is used


def test_a_chinese_text_must_use_the_term_of_every_concept_its_english_text_mentions():
    terms = [KEY, QUERY, VALUE]
    assert glossary_problems(terms, "Compare the query with each key.", "把查询与每个键比较。") == []
    assert glossary_problems(terms, "Compare the query with each key.", "把查询与每个关键比较。") == [
        "mentions 'key' but does not use 键"
    ]


def test_an_avoided_rendering_is_refused_even_beside_the_term():
    assert glossary_problems([KEY, MASK], "the key", "键（关键字）和遮罩") == [
        "uses '关键字'; the glossary's term for 'key' is 键",
        "uses '遮罩'; the glossary's term for 'mask' is 掩码",
    ]


def test_prose_drops_math_code_and_html():
    assert prose("a $x$ b `c` d $$e$$ f <b>g</b> h").split() == ["a", "b", "d", "f", "g", "h"]


def test_a_glossary_file_is_read():
    terms = parse_glossary("terms:\n  - {en: key, zh: 键, where: chapter §1, zh_not: [关键]}\n")
    assert terms == [Term("key", "键", "chapter §1", zh_not=("关键",))]


@pytest.mark.parametrize(
    "text, words",
    [
        ("terms: []", "non-empty list under `terms:`"),
        ("[1]", "non-empty list under `terms:`"),
        ("terms: [1]", "entry 1 is not a mapping"),
        ("terms:\n  - {en: key, zh: 键}", "missing ['where']"),
        ("terms:\n  - {en: key, zh: 键, where: x, colour: red}", "unknown keys ['colour']"),
        ("terms:\n  - {en: key, zh: 键, where: x, en_also: keys}", "are lists of words"),
        ("terms:\n  - {en: key, zh: 键, where: x}\n  - {en: Key, zh: 钥匙, where: y}", "English terms listed twice: ['key']"),
    ],
)
def test_a_malformed_glossary_is_refused(text, words):
    with pytest.raises(GlossaryError) as caught:
        parse_glossary(text)
    assert words in str(caught.value)
