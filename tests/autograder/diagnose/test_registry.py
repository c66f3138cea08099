"""The one registry of nameable bugs: well-formed ids, prefixes tied to the course, one-sentence hints."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

import autograder.diagnose as diagnose_package
from autograder.config import load_course
from autograder.diagnose.registry import Bug, bug, bugs, prefix_of, prefixes
from autograder.mutants import all_mutants

#: The course's own mutants (its mistakes/ folder).
MUTANTS = all_mutants()
#: Every registered bug and listed prefix: the engine's and the course's (its mistakes/ folder).
BUGS, PREFIXES = bugs(), prefixes()
GRADED_FUNCTIONS = {q.function for a in load_course().assignments for q in a.questions}
ID_PATTERN = re.compile(r"^([a-z_]+)\.([a-z0-9_]+)$")
DIAGNOSE_SOURCES = sorted(Path(diagnose_package.__file__).parent.rglob("*.py"))


def placeholders(hint: str) -> list[str]:
    return [field for _, field, _, _ in string.Formatter().parse(hint) if field]


def test_ids_are_unique():
    ids = [b.id for b in BUGS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("registered", BUGS, ids=lambda b: b.id)
def test_an_id_is_a_known_prefix_and_a_name(registered):
    match = ID_PATTERN.match(registered.id)
    assert match is not None
    assert match.group(1) in PREFIXES or match.group(1) in GRADED_FUNCTIONS  # a function's own name needs no entry


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_prefix_maps_to_graded_functions_or_any(prefix):
    functions = PREFIXES[prefix]
    assert functions
    assert functions == ("*",) or set(functions) <= GRADED_FUNCTIONS


def test_every_graded_function_has_exactly_one_prefix():
    for function in GRADED_FUNCTIONS:
        owners = [prefix for prefix, functions in PREFIXES.items() if function in functions]
        implicit = [] if owners or function in PREFIXES else [function]  # a prefix not listed names its function
        assert len(owners + implicit) == 1, function


def test_a_function_no_prefix_lists_is_its_own_prefix_and_a_generic_probe_names_nothing_for_it():
    from autograder.diagnose.probes.finding import own
    from autograder.diagnose.registry import prefix_of

    assert prefix_of("a_question_added_later") == "a_question_added_later"
    assert prefix_of("scaled_dot_product_attention") == "attention"
    assert own("a_question_added_later", "not_normalized") == []


def test_a_prefix_not_listed_is_the_function_it_names():
    from autograder.diagnose.registry import Bug

    assert Bug("some_new_function.off_by_one", "x").functions == ("some_new_function",)
    assert Bug("attention.no_scaling", "x").functions == PREFIXES["attention"]


def test_every_prefix_registers_at_least_one_bug():
    assert {b.id.split(".")[0] for b in BUGS} == set(PREFIXES)


@pytest.mark.parametrize("registered", BUGS, ids=lambda b: b.id)
def test_a_hint_is_one_sentence_to_the_student(registered):
    hint = registered.hint
    assert hint.startswith("Your ")
    assert hint.endswith(".")
    assert "\n" not in hint
    assert re.search(r"[.!?]\s+[A-Z]", hint) is None  # no second sentence


@pytest.mark.parametrize("registered", BUGS, ids=lambda b: b.id)
def test_placeholders_can_be_filled(registered):
    facts = {name: f"<{name}>" for name in placeholders(registered.hint) if name != "function"}
    said = registered.say(function="<function>", **facts)
    assert "{" not in said and "}" not in said.replace("`", "")
    for name in placeholders(registered.hint):
        assert f"<{name}>" in said


def test_say_fills_the_function_and_the_facts():
    said = bug("softmax.wrong_axis").say(function="softmax", actual="axis 0", expected="n (axis -1)")
    assert said == "Your softmax normalises along axis 0 instead of along n (axis -1), the axis it is given."


def test_say_ignores_facts_a_hint_does_not_use():
    assert bug("attention.no_scaling").say(function="f", unused="x") == bug("attention.no_scaling").hint


def test_say_without_a_needed_fact_raises_key_error():
    with pytest.raises(KeyError):
        bug("call.modifies_input").say(function="softmax")


def test_bug_finds_a_registered_id():
    found = bug("mha.averaged_heads")
    assert isinstance(found, Bug) and found.id == "mha.averaged_heads"


def test_bug_raises_key_error_naming_an_unknown_id():
    with pytest.raises(KeyError, match=r"softmax\.no_such_bug"):
        bug("softmax.no_such_bug")


@pytest.mark.parametrize(
    "function, prefix",
    [
        ("softmax", "softmax"),
        ("scaled_dot_product_attention", "attention"),
        ("dot_product_variance", "variance"),
        ("general_score", "luong"),
        ("concat_score", "luong"),
        ("merge_heads", "heads"),
        ("multi_head_attention", "mha"),
        ("attention_context", "context"),
    ],
)
def test_prefix_of_a_graded_function(function, prefix):
    assert prefix_of(function) == prefix


def test_functions_and_belongs_to_follow_the_prefix():
    assert bug("luong.scaled_output").functions == ("dot_score", "general_score", "concat_score")
    assert bug("luong.scaled_output").belongs_to("dot_score")
    assert not bug("luong.scaled_output").belongs_to("additive_score")
    assert bug("call.returns_list").functions == ("*",)
    assert bug("call.returns_list").belongs_to("merge_heads")


def test_every_mutant_names_a_registered_bug_of_its_function():
    for candidate in MUTANTS:
        assert bug(candidate.id).belongs_to(candidate.function), candidate.id


def _literal_ids(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Ids in ``Finding("<id>", ...)`` and suffixes in ``own(function, "<suffix>", ...)`` calls."""
    ids, suffixes = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        literal = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if node.func.id == "Finding" and literal:
            ids.add(literal[0])
        if node.func.id == "own" and literal:
            suffixes.add(literal[0])
    return ids, suffixes


def test_every_literal_id_in_the_diagnose_package_is_registered():
    registered = {b.id for b in BUGS}
    found = set()
    for source in DIAGNOSE_SOURCES:
        found |= _literal_ids(ast.parse(source.read_text(encoding="utf-8")))[0]
    assert found  # the walk really finds the probes' ids
    assert found <= registered


def test_every_suffix_a_probe_names_is_registered_under_some_prefix():
    suffixes_registered = {b.id.split(".", 1)[1] for b in BUGS}
    found = set()
    for source in DIAGNOSE_SOURCES:
        found |= _literal_ids(ast.parse(source.read_text(encoding="utf-8")))[1]
    assert "no_scaling" in found
    assert found <= suffixes_registered
