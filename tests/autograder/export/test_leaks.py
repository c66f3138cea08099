"""What students receive from an export leaks no solution code, hidden-test line or seed.

nbgrader's release is made here by nbgrader's own preprocessors (those ``generate_assignment``
runs); otter's student notebook and the GitHub repository are read as exported.
"""

import json

import pytest

from autograder.build.leaks import course_forbidden_lines, find_leaks
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export.github import WORKFLOW
from autograder.export.notebooks import HIDDEN_BEGIN

COURSE = load_course()
IDS = tuple(a.id for a in COURSE.assignments)
CONTEXT = ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS)


@pytest.fixture(scope="module")
def forbidden():
    return course_forbidden_lines(COURSE)


def nbgrader_release(source_notebook: str) -> str:
    """The release nbgrader makes of a source notebook: solutions and hidden tests cleared."""
    nbformat = pytest.importorskip("nbformat")
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    notebook = nbformat.reads(source_notebook, as_version=4)
    resources = {}
    for preprocessor in (ClearSolutions(), ClearHiddenTests()):
        notebook, resources = preprocessor.preprocess(notebook, resources)
    return nbformat.writes(notebook)


def _seed_leaks(files: dict[str, str]) -> list[str]:
    seeds = [str(CONTEXT.spec(i).seed) for i in IDS]
    return [name for name, text in files.items() if isinstance(text, str) and any(s in text for s in seeds)]


def test_nbgrader_releases_leak_nothing(tmp_path, forbidden):
    export_to(TARGETS["nbgrader"], CONTEXT, tmp_path)
    releases = {p.name: nbgrader_release(p.read_text(encoding="utf-8")) for p in sorted(tmp_path.glob("source/*/*.ipynb"))}
    assert len(releases) == len(IDS) * len(CONTEXT.course.languages)  # one notebook per language
    assert find_leaks(releases, forbidden) == []
    assert _seed_leaks(releases) == [] and not any(HIDDEN_BEGIN in text for text in releases.values())


def test_the_leak_check_sees_a_source_notebook_leak(tmp_path, forbidden):
    """The source notebook (for the instructor) holds the solutions and the seed: the checks above would see them."""
    export_to(TARGETS["nbgrader"], CONTEXT, tmp_path)
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(tmp_path.glob("source/*/*.ipynb"))}
    assert find_leaks(sources, forbidden) and _seed_leaks(sources)


def test_github_repositories_leak_nothing(tmp_path, forbidden):
    export_to(TARGETS["github"], CONTEXT, tmp_path)
    files = {str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8") for p in tmp_path.rglob("*")
             if p.is_file() and p.suffix != ".npz"}
    assert any(name.endswith(WORKFLOW) for name in files)
    assert find_leaks(files, forbidden) == [] and _seed_leaks(files) == []


def test_otter_student_notebooks_leak_nothing(tmp_path, forbidden, monkeypatch):
    from autograder.export import otter

    monkeypatch.setattr(otter, "generate_zip", lambda folder, requirement: folder / otter.ZIP_NAME)  # the zip is not the students'
    export_to(TARGETS["otter"], CONTEXT, tmp_path)
    notebooks = {str(p): p.read_text(encoding="utf-8") for p in tmp_path.glob("*/student/*.ipynb")}
    assert len(notebooks) == len(IDS) * len(CONTEXT.course.languages)  # one notebook per language
    assert all(json.loads(text)["metadata"]["otter"]["assignment_name"] for text in notebooks.values())
    assert find_leaks(notebooks, forbidden) == [] and _seed_leaks(notebooks) == []
