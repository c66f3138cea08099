"""The course in Chinese: every text translated, the code the same, the glossary followed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jupytext
import pytest

from autograder.build import build_release
from autograder.build.docstrings import docstring_prose, function_docstring, load_docstrings, module_docstring, without_docstring
from autograder.i18n.glossary import glossary_problems, load_glossary, mentions
from autograder.build.markers import function_source
from autograder.build.prose import parallel_problems
from autograder.build.release import TEMPLATES_DIR
from autograder.build.translation import prose_pairs
from autograder.build.translation_check import translation_problems
from autograder.config import load_course
from autograder.languages import localized_file_name
from autograder.paths import NOTEBOOK_SOURCE, SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]
GLOSSARY = load_glossary(SOLUTIONS_DIR / "glossary.yml")
#: The README template and its Chinese version.
README_TEMPLATES = (TEMPLATES_DIR / "README.md.tmpl", TEMPLATES_DIR / "README.zh.md.tmpl")


def test_the_course_ships_english_and_chinese_with_english_feedback():
    assert (COURSE.languages, COURSE.feedback_language) == (("en", "zh"), "en")
    assert all(assignment.titles.get("zh") for assignment in COURSE.assignments)


def _with_named_values(template: Path) -> str:
    """A README template with each ``$value`` replaced by its name, the same in every language."""
    text = template.read_text(encoding="utf-8")
    return re.sub(r"\$(\w+)", lambda match: f"VALUE_{match.group(1).upper()}", text)


def _sources(assignment_id: str) -> tuple[str, str]:
    folder = SOLUTIONS_DIR / assignment_id
    module = COURSE.assignment(assignment_id).module
    return (folder / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), (folder / module).read_text(encoding="utf-8")


def _text_pairs(assignment_id: str) -> list[tuple[str, str, str]]:
    """(where, English, Chinese) for every notebook cell and docstring of an assignment."""
    notebook_source, master = _sources(assignment_id)
    pairs = [(f"cell {p.position}", p.english, p.translation) for p in prose_pairs(jupytext.reads(notebook_source, fmt="py:percent"), "zh")]
    translated = load_docstrings(SOLUTIONS_DIR / assignment_id, "zh")
    pairs.append(("module docstring", docstring_prose(module_docstring(master)), docstring_prose(translated.module)))
    for name, chinese in translated.functions.items():
        english = function_docstring(function_source(master, name))
        pairs.append((f"docstring of {name}", docstring_prose(english), docstring_prose(chinese)))
    return pairs


def _notebook_cells(assignment_id: str) -> tuple[list[dict], list[dict]]:
    assignment = COURSE.assignment(assignment_id)
    files = build_release(COURSE, assignment_id)
    chinese = localized_file_name(assignment.notebook, "zh", COURSE.languages[0])
    return json.loads(files[assignment.notebook])["cells"], json.loads(files[chinese])["cells"]


@pytest.mark.parametrize("assignment_id", IDS)
def test_code_cells_of_both_notebooks_are_identical_outside_the_docstrings(assignment_id):
    english, chinese = _notebook_cells(assignment_id)
    assert [(c["id"], c["cell_type"]) for c in english] == [(c["id"], c["cell_type"]) for c in chinese]
    for ours, theirs in zip(english, chinese):
        if ours["cell_type"] != "code":
            continue
        assert ours["metadata"] == theirs["metadata"]
        ours_source, theirs_source = "".join(ours["source"]), "".join(theirs["source"])
        if "check" in ours["metadata"].get("tags", []):  # a check cell: only its comment and its message are translated
            said = ("#", "print(")
            assert [line for line in ours_source.splitlines() if not line.lstrip().startswith(said)] == \
                [line for line in theirs_source.splitlines() if not line.lstrip().startswith(said)]
        elif ours["metadata"].get("tags"):  # a graded or given function: its docstring is translated
            assert without_docstring(ours_source).encode() == without_docstring(theirs_source).encode()
            assert function_docstring(ours_source) != function_docstring(theirs_source)
        else:
            assert ours_source.encode() == theirs_source.encode()


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_paragraph_cell_and_docstring_has_a_faithful_translation(assignment_id):
    notebook_source, master = _sources(assignment_id)
    docstrings = {"zh": load_docstrings(SOLUTIONS_DIR / assignment_id, "zh")}
    assert translation_problems(notebook_source, master, docstrings, ("en", "zh"), f"solutions/{assignment_id}") == []
    english, chinese = _notebook_cells(assignment_id)
    english_markdown = [c for c in english if c["cell_type"] == "markdown"]
    assert len(english_markdown) == len([c for c in chinese if c["cell_type"] == "markdown"]) > 0


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_chinese_texts_use_the_glossary_terms(assignment_id):
    problems = [f"{where}: {p}" for where, english, chinese in _text_pairs(assignment_id) for p in glossary_problems(GLOSSARY, english, chinese)]
    assert problems == []


def test_the_chinese_readme_template_is_a_faithful_translation_using_the_glossary():
    english, chinese = (_with_named_values(path) for path in README_TEMPLATES)
    assert parallel_problems(english, chinese) == []
    assert glossary_problems(GLOSSARY, english, chinese) == []


def test_every_glossary_concept_is_mentioned_somewhere_in_the_course():
    english = [e for a in IDS for _, e, _ in _text_pairs(a)] + [README_TEMPLATES[0].read_text(encoding="utf-8")]
    unused = [term.en for term in GLOSSARY if not any(mentions(term, text) for text in english)]
    assert unused == [], "drop these terms from solutions/glossary.yml, or use them"


def test_the_glossary_check_fails_on_a_chinese_text_that_strays_from_it():
    where, english, chinese = next(pair for pair in _text_pairs(IDS[0]) if "掩码" in pair[2])
    strayed = chinese.replace("掩码", "遮罩")
    assert "mentions 'mask' but does not use 掩码" in glossary_problems(GLOSSARY, english, strayed)
