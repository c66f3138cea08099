"""A course's mistakes are course content: read from its ``mistakes/`` folder, and only that course's while it is graded."""

from __future__ import annotations

import numpy as np
import pytest

from autograder import mistakes
from autograder.build.authoring import mistake_warnings
from autograder.config import load_course
from autograder.diagnose.registry import bug, bugs, prefix_of
from autograder.errors import ConfigError
from autograder.layout import CourseDirectory
from autograder.mutants import all_mutants, mutants_for
from autograder.mutants.replay import replay_mutants
from autograder.judge.compare import reference_function
from tests.attn_reference.test_contract import sample_inputs
from tests.autograder.mutants.test_replay import case_of

COURSE = load_course()
#: A planted course module: one bug of the course's first graded function, its mutant, and a prefix of its own.
PLANTED = '''
import numpy as np
from autograder.diagnose.registry import Bug
from autograder.i18n import N_
from autograder.mutants import Mutant

PREFIXES = {{"planted": ("{function}",)}}
BUGS = (Bug("planted.doubled", N_("Your function doubles its result.")),)


def doubled(*args, **kwargs):
    import attn_reference
    return 2 * np.asarray(attn_reference.{function}(*args, **kwargs))


MUTANTS = (Mutant("planted.doubled", "{function}", doubled),)
'''


def _first_function():
    return COURSE.assignments[0].questions[0].function


@pytest.fixture
def other(tmp_path):
    """Another course's mistakes folder holding only the planted module."""
    folder = tmp_path / "mistakes"
    folder.mkdir()
    (folder / "planted.py").write_text(PLANTED.format(function=_first_function()), encoding="utf-8")
    return folder


def test_the_project_course_reads_its_mistakes_beside_course_yml():
    layout = COURSE.layout
    assert layout.mistakes == layout.root / "mistakes" and layout.mistakes.is_dir()
    assert {m.function for m in all_mutants()} <= {f for a in COURSE.assignments for f in a.functions}
    assert all_mutants() == all_mutants(layout.mistakes)


def test_a_layout_built_by_hand_has_its_mistakes_beside_its_course_file(tmp_path):
    layout = CourseDirectory(tmp_path / "course.yml", tmp_path, tmp_path, tmp_path, tmp_path)
    assert layout.mistakes == tmp_path / "mistakes"


def test_another_courses_mistakes_are_used_only_while_it_is_set(other):
    function = _first_function()
    with mistakes.course_mistakes(other):
        assert [m.id for m in mutants_for(function)] == ["planted.doubled"]
        assert bug("planted.doubled").belongs_to(function) and prefix_of(function) == "planted"
    assert "planted.doubled" not in {m.id for m in all_mutants()}  # the project's course again
    with pytest.raises(KeyError):
        bug("planted.doubled")
    assert prefix_of(function) != "planted"


def test_the_replay_names_the_bug_of_the_course_being_graded(other):
    """The same wrong answer is named by the other course's mistake there, and not by it in the project's course."""
    function = _first_function()
    args, kwargs = sample_inputs(function)
    reference = reference_function(function)
    doubled = case_of(function, args, kwargs, student=lambda *a, **k: 2 * np.asarray(reference(*a, **k)))
    with mistakes.course_mistakes(other):
        assert [f.id for f in replay_mutants(doubled)] == ["planted.doubled"]
    assert "planted.doubled" not in [f.id for f in replay_mutants(doubled)]


def test_a_course_without_a_mistakes_folder_has_the_engines_bugs_only(tmp_path):
    assert all_mutants(tmp_path / "mistakes") == ()
    assert {b.id.split(".")[0] for b in bugs(tmp_path / "mistakes")} == {"call"}


def test_a_module_that_cannot_load_names_its_file(tmp_path):
    folder = tmp_path / "mistakes"
    folder.mkdir()
    (folder / "broken.py").write_text("import no_such_module_here\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mistakes/broken\.py"):
        all_mutants(folder)


def test_the_authoring_gate_names_the_file_a_function_without_mistakes_needs(tmp_path, other):
    assignment = COURSE.assignments[0]
    empty = tmp_path / "none"
    warned = mistake_warnings(assignment, empty)
    assert len(warned) == len(assignment.questions)
    assert all(str(empty / f"{q.function}.py") in line for q, line in zip(assignment.questions, warned))
    planted = mistake_warnings(assignment, other)  # the planted module lists a mistake of the first question only
    assert not any(f"question {assignment.questions[0].function}:" in line for line in planted)
    assert len(planted) == len(assignment.questions) - 1


def test_the_authoring_gate_names_the_module_that_lists_a_functions_mistakes_already():
    from autograder.build.authoring import mistakes_file

    mutant = all_mutants()[0]
    path = mistakes_file(COURSE.layout.mistakes, mutant.function)
    assert path.parent == COURSE.layout.mistakes and path.is_file()
    assert f'"{mutant.id}"' in path.read_text(encoding="utf-8")


def test_the_engine_keeps_only_the_bugs_of_any_call():
    from autograder.diagnose.registry import ENGINE_BUGS, ENGINE_PREFIXES

    assert ENGINE_PREFIXES == {"call": ("*",)}
    assert ENGINE_BUGS and all(b.id.startswith("call.") for b in ENGINE_BUGS)
    course_bugs = bugs()[len(ENGINE_BUGS):]
    assert course_bugs and not any(b.id.startswith("call.") for b in course_bugs)


def test_the_course_hints_are_catalog_entries_read_from_its_mistakes():
    """Extraction finds every hint of the course's bugs in mistakes/, so each is translated."""
    from autograder.i18n.extract import extract

    entries, problems = extract()
    assert problems == []
    for registered in bugs():
        references = entries[(registered.hint, None)]
        assert any(r.startswith("mistakes/") or r.startswith("autograder/diagnose/registry.py") for r in references)
    assert any(r.startswith("mistakes/diagnoses.py") for refs in entries.values() for r in refs)
