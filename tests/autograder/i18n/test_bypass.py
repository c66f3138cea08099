"""No student-facing prose bypasses the catalog; the scan finds one added on purpose."""

from autograder.i18n.bypass import bypasses, reads_as_prose, scan, student_text_files
from autograder.paths import PROJECT_ROOT

LOAD_NOTES = PROJECT_ROOT / "autograder" / "grade" / "load_notes.py"


def test_no_module_that_writes_student_text_bypasses_the_catalog():
    assert len(student_text_files()) > 30
    assert scan() == []


def test_a_bypass_added_to_a_real_module_is_found():
    source = LOAD_NOTES.read_text(encoding="utf-8")
    added = source + '\n\ndef note(line):\n    return [f"Line {line} was skipped because it failed"]\n'
    found = bypasses(added, "load_notes.py")
    assert len(found) == 1 and found[0].startswith(f"load_notes.py:{len(added.splitlines())}: ")


def test_a_student_error_must_be_worded_through_the_catalog_an_instructors_need_not():
    student = 'def f(x):\n    raise LoadFailed(f"{x} could not be read at all")\n'
    instructor = 'def f(x):\n    raise GraderError(f"{x} could not be read at all")\n'
    wrapped = 'def f(x):\n    raise LoadFailed(msg("{file} could not be read at all", file=x))\n'
    facts = 'def f(x):\n    raise LoadFailed(msg("{file}", file=f"{x} could not be read at all"))\n'
    assert bypasses(student, "m.py") == ["m.py:2: '{} could not be read at all'"]
    assert bypasses(instructor, "m.py") == bypasses(wrapped, "m.py") == []
    assert bypasses(facts, "m.py") == ["m.py:2: '{} could not be read at all'"]  # a fact is no place for prose


def test_prose_is_words_not_markup_code_or_placeholders():
    assert reads_as_prose("Score: {score}") is False and reads_as_prose('<p class="muted">{x}</p>') is False
    assert reads_as_prose("dot_product_variance(d_k={d_k})") is False
    assert reads_as_prose("all tests passed") and reads_as_prose("<h3>What failed</h3>")
