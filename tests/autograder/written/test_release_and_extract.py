"""Written questions in the release (answer cells in both notebooks, answers.md) and read back from submissions."""

from __future__ import annotations

import json
import zipfile

import pytest

from autograder.build.release import build_release
from autograder.config import load_course
from autograder.languages import localized_file_name
from autograder.written.cells import ANSWERS_FILE, WRITTEN_TAG, end_marker, start_marker
from autograder.written.extract import MAX_ANSWER_CHARS, read_answers

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)


@pytest.fixture(scope="module")
def release():
    return build_release(COURSE, ASSIGNMENT.id)


def _notebook(release, language):
    return json.loads(release[localized_file_name(ASSIGNMENT.notebook, language, COURSE.languages[0])])


@pytest.mark.parametrize("language", COURSE.languages)
def test_each_notebook_has_an_answer_cell_per_question_after_its_prompt(release, language):
    cells = _notebook(release, language)["cells"]
    tagged = [(i, c) for i, c in enumerate(cells) if c["metadata"].get("tags", [None])[0] == WRITTEN_TAG]
    assert [c["metadata"]["tags"][1] for _, c in tagged] == [q.id for q in ASSIGNMENT.written]
    for (index, cell), question in zip(tagged, ASSIGNMENT.written):
        assert cell["cell_type"] == "markdown"
        assert question.prompt[language] in "".join(cells[index - 1]["source"])


@pytest.mark.parametrize("language", COURSE.languages)
def test_answers_md_has_every_prompt_and_its_markers(release, language):
    text = release[localized_file_name(ANSWERS_FILE, language, COURSE.languages[0])]
    for question in ASSIGNMENT.written:
        assert question.prompt[language] in text
        assert text.index(start_marker(question.id)) < text.index(end_marker(question.id))


def _answered(release, language, answers: dict) -> dict:
    notebook = _notebook(release, language)
    for cell in notebook["cells"]:
        tags = cell["metadata"].get("tags", [])
        if tags[:1] == [WRITTEN_TAG] and tags[1] in answers:
            cell["source"] = answers[tags[1]]
    return notebook


def _read(path):
    answers, problems = read_answers(ASSIGNMENT, path, COURSE.languages)
    return {a.question: a.text for a in answers if a.answered}, problems


@pytest.mark.parametrize("language", COURSE.languages)
def test_the_untouched_release_answers_nothing_and_a_filled_notebook_answers_its_cells(release, language, tmp_path):
    first = ASSIGNMENT.written[0].id
    path = tmp_path / ASSIGNMENT.notebook
    path.write_text(json.dumps(_notebook(release, language)), encoding="utf-8")
    assert _read(path) == ({}, [])
    path.write_text(json.dumps(_answered(release, language, {first: "Because the variance grows."})), encoding="utf-8")
    assert _read(path) == ({first: "Because the variance grows."}, [])


def test_answers_md_beside_a_module_in_a_folder_and_a_zip(release, tmp_path):
    ids = [q.id for q in ASSIGNMENT.written]
    text = release[ANSWERS_FILE].replace(f"{start_marker(ids[1])}\n", f"{start_marker(ids[1])}\nKeys match, values return.\n")
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / ASSIGNMENT.module).write_text("def softmax(x): pass\n")
    (folder / ANSWERS_FILE).write_text(text, encoding="utf-8")
    assert _read(folder)[0] == {ids[1]: "Keys match, values return.\n" + _placeholder(release).strip()}
    archive = tmp_path / "ada.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(f"ada/{ANSWERS_FILE}", text.replace(_placeholder(release), ""))
    assert _read(archive)[0] == {ids[1]: "Keys match, values return."}
    module = tmp_path / ASSIGNMENT.module
    module.write_text("x = 1\n")
    assert _read(module) == ({}, [])


def _placeholder(release) -> str:
    from autograder.i18n import render
    from autograder.written.cells import PLACEHOLDER

    return render(PLACEHOLDER, COURSE.languages[0]) + "\n"


def test_hostile_files_answer_nothing_or_are_cut_never_crash(release, tmp_path):
    first = ASSIGNMENT.written[0].id
    broken = tmp_path / "broken" / ASSIGNMENT.notebook
    broken.parent.mkdir()
    broken.write_text("{not json", encoding="utf-8")
    assert _read(broken.parent) == ({}, [])
    huge = tmp_path / "huge.ipynb"
    huge.write_text(json.dumps(_answered(release, "en", {first: "x" * (MAX_ANSWER_CHARS * 2)})), encoding="utf-8")
    assert len(_read(huge)[0][first]) < MAX_ANSWER_CHARS + 10
    bad_zip = tmp_path / "bad.zip"
    bad_zip.write_bytes(b"PK not a zip")
    answers, problems = _read(bad_zip)
    assert answers == {} and problems
