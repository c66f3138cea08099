"""The committed releases are a fresh build, leak nothing, and the stubs are proper stubs."""

import datetime as dt
import inspect
import re
import json
import shutil
import types

import pytest

from autograder.build import build_release, release_drift, write_release
from autograder.build.notebook import POINTS_TABLE_PLACEHOLDER, points_table
from autograder.build.release import BuildError
from autograder.build.leaks import course_forbidden_lines, find_leaks
from autograder.build.markers import keep_solutions, solution_code_lines
from autograder.config import load_course
from autograder.languages import localized_file_name
from autograder.paths import ASSIGNMENTS_DIR, NOTEBOOK_SOURCE, SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


@pytest.fixture(scope="module")
def forbidden():
    return course_forbidden_lines(COURSE)


def _module(text: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(text, name, "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("assignment_id", IDS)
def test_committed_release_matches_a_fresh_build(assignment_id):
    drift = release_drift(build_release(COURSE, assignment_id), ASSIGNMENTS_DIR / assignment_id)
    assert drift == [], f"assignments/{assignment_id} is stale; run `attn-course build`: {drift}"


@pytest.mark.parametrize("assignment_id", IDS)
def test_build_is_deterministic(assignment_id):
    assert build_release(COURSE, assignment_id) == build_release(COURSE, assignment_id)


def test_drift_is_detected_for_edited_missing_and_extra_files(tmp_path):
    files = build_release(COURSE, IDS[0])
    write_release(files, tmp_path)
    assert release_drift(files, tmp_path) == []
    module = COURSE.assignment(IDS[0]).module
    (tmp_path / module).write_text("# edited by hand\n", encoding="utf-8")
    (tmp_path / "README.md").unlink()
    (tmp_path / "notes.txt").write_text("extra", encoding="utf-8")
    assert sorted(release_drift(files, tmp_path)) == sorted(
        [f"changed: {module}", "missing: README.md", "extra: notes.txt"]
    )


def test_write_release_removes_stale_files(tmp_path):
    files = build_release(COURSE, IDS[0])
    (tmp_path / "stale.py").write_text("x = 1\n", encoding="utf-8")
    write_release(files, tmp_path)
    assert not (tmp_path / "stale.py").exists()


@pytest.mark.parametrize("assignment_id", IDS)
def test_release_leaks_no_solution_hidden_test_or_reference_code(assignment_id, forbidden):
    release = {
        p.name: p.read_bytes() if p.suffix == ".npz" else p.read_text(encoding="utf-8")
        for p in (ASSIGNMENTS_DIR / assignment_id).iterdir() if p.is_file()
    }
    assert find_leaks(release, forbidden) == []


@pytest.mark.parametrize("source_kind", ["solution code", "hidden tests", "attn_reference"])
def test_leak_finder_catches_a_planted_line(source_kind, forbidden):
    planted = next(line for line, where in forbidden.items() if where == source_kind)
    release = build_release(COURSE, IDS[0])
    module = COURSE.assignment(IDS[0]).module
    release[module] += f"\n    {planted}\n"
    leaks = find_leaks(release, forbidden)
    assert [(leak.release_file, leak.source) for leak in leaks] == [(module, source_kind)]


def test_leak_finder_reads_notebook_cells(forbidden):
    planted = next(line for line, where in forbidden.items() if where == "solution code")
    release = build_release(COURSE, IDS[0])
    notebook_name = COURSE.assignment(IDS[0]).notebook
    notebook = json.loads(release[notebook_name])
    notebook["cells"][-1]["source"] = ["x = 1\n", f"    {planted}\n"]
    release[notebook_name] = json.dumps(notebook)
    assert [(leak.release_file, leak.source) for leak in find_leaks(release, forbidden)] == [(notebook_name, "solution code")]


@pytest.mark.parametrize("assignment_id", IDS)
def test_masters_have_solution_code_for_every_question(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    master = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    assert len(solution_code_lines(master)) >= len(assignment.questions)


@pytest.mark.parametrize("assignment_id", IDS)
def test_stubs_keep_signatures_and_docstrings_and_raise_with_the_question(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    stub = _module(build_release(COURSE, assignment_id)[assignment.module], "stub")
    master_text = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    solution = _module(keep_solutions(master_text), "solution")
    short_id = assignment_id.split("_")[0]
    for number, question in enumerate(assignment.questions, start=1):
        stub_fn, solution_fn = getattr(stub, question.function), getattr(solution, question.function)
        assert inspect.signature(stub_fn) == inspect.signature(solution_fn)
        assert stub_fn.__doc__ and stub_fn.__doc__ == solution_fn.__doc__
        arguments = [None] * len(inspect.signature(stub_fn).parameters)
        with pytest.raises(NotImplementedError, match=rf"^{question.function}: not implemented yet \({short_id}, question {number}\)$"):
            stub_fn(*arguments)


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_question_has_a_random_batched_public_case_with_the_references_answer(assignment_id):
    import numpy as np

    import attn_reference
    from autograder.check.checklib import load_cases

    cases = load_cases(ASSIGNMENTS_DIR / assignment_id / "public_cases.npz")
    assignment = COURSE.assignment(assignment_id)
    assert {case.function for case in cases} == set(assignment.functions)
    for case in cases:
        args = tuple(np.random.default_rng(a.seed) if hasattr(a, "seed") else a for a in case.args)
        expected = getattr(attn_reference, case.function)(*args, **case.kwargs)  # computed here, independently
        parts = expected if isinstance(expected, tuple) else (expected,)
        assert len(parts) == len(case.expected)
        for mine, stored in zip(parts, case.expected):  # within a few ulps: the last bits depend on the machine's BLAS
            rtol = 64 * float(np.finfo(stored.dtype).eps) if stored.dtype.kind == "f" else 0
            atol = rtol * float(np.max(np.abs(stored), initial=0.0)) if stored.dtype.kind == "f" else 0
            np.testing.assert_allclose(stored, mine, rtol=rtol, atol=atol)
    arrays = [a for case in cases for a in case.args if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    assert any(a.ndim >= 3 for a in arrays), "at least one batched case"
    assert all(a.shape[-1] != 4 for a in arrays if a.ndim >= 2), "d_k (the last axis) is never 4"


def test_a_case_with_a_repeated_name_is_refused():
    from autograder.build.public_cases import PublicCase, cases_archive

    with pytest.raises(ValueError, match="repeat"):
        cases_archive([PublicCase("a", "causal_mask", (3,)), PublicCase("a", "causal_mask", (4,))])


def test_a_question_without_a_public_case_stops_the_build(tmp_path):
    import shutil

    from autograder.build.release import BuildError
    from autograder.paths import SOLUTIONS_DIR

    copied = tmp_path / "solutions"
    shutil.copytree(SOLUTIONS_DIR, copied)
    source = copied / IDS[0] / "public_cases.py"
    kept = [line for line in source.read_text(encoding="utf-8").splitlines() if '"causal_mask", (' not in line]
    source.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(BuildError, match="no public case for question causal_mask"):
        build_release(COURSE, IDS[0], copied)


def test_a_leaked_solution_line_of_thirty_characters_is_caught():
    from autograder.build.leaks import forbidden_lines

    line = "weights = np.exp(shifted) / total"  # 33 characters: well above the short-line cut-off
    master = f"def f(x):\n    ### BEGIN SOLUTION\n    {line}\n    ### END SOLUTION\n"
    forbidden = forbidden_lines([master], [], [])
    assert [leak.line for leak in find_leaks({"stub.py": f"def g():\n    {line}\n"}, forbidden)] == [line]
    short = "return x + y"  # too common to mean anything
    assert find_leaks({"stub.py": f"    {short}\n"}, forbidden_lines([master.replace(line, short)], [], [])) == []


@pytest.mark.parametrize("assignment_id", IDS)
def test_release_notebook_lists_the_points_of_course_yml(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    notebook = json.loads(build_release(COURSE, assignment_id)[assignment.notebook])
    markdown = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert points_table(assignment.questions) in markdown
    assert POINTS_TABLE_PLACEHOLDER not in markdown


def test_changing_points_in_course_yml_changes_the_release_notebook():
    assignment = COURSE.assignment(IDS[0])
    doubled = tuple(q.model_copy(update={"points": 2 * q.points}) for q in assignment.questions)
    course = COURSE.model_copy(update={"assignments": (assignment.model_copy(update={"questions": doubled}), *COURSE.assignments[1:])})
    drift = release_drift(build_release(course, IDS[0]), ASSIGNMENTS_DIR / IDS[0])
    assert f"changed: {assignment.notebook}" in drift


#: How the notebook's due line begins in each language (the translator's words).
DUE_WORDS = {"en": "**Due:** ", "zh": "**截止时间：** "}


def _points_cell_lines(notebook_text: str) -> list[str]:
    cells = json.loads(notebook_text)["cells"]
    return next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown" and "| --- |" in "".join(c["source"])).split("\n")


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_release_notebook_shows_the_due_date_of_course_yml_under_the_points_table(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    for language in COURSE.languages:
        name = localized_file_name(assignment.notebook, language, COURSE.languages[0])
        lines = _points_cell_lines((ASSIGNMENTS_DIR / assignment_id / name).read_text(encoding="utf-8"))
        assert DUE_WORDS[language] + assignment.due.isoformat() in lines, (name, lines)


def test_changing_the_due_date_in_course_yml_changes_every_release_notebook():
    assignment = COURSE.assignment(IDS[0])
    later = assignment.due + dt.timedelta(days=3, hours=1)
    course = COURSE.model_copy(update={"assignments": (assignment.model_copy(update={"due": later}), *COURSE.assignments[1:])})
    release = build_release(course, IDS[0])
    for language in COURSE.languages:
        name = localized_file_name(assignment.notebook, language, COURSE.languages[0])
        lines = _points_cell_lines(release[name])
        assert DUE_WORDS[language] + later.isoformat() in lines and assignment.due.isoformat() not in release[name]


def test_a_notebook_without_the_points_table_placeholder_does_not_build(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    shutil.copytree(SOLUTIONS_DIR / IDS[0], tmp_path / IDS[0])
    source = tmp_path / IDS[0] / NOTEBOOK_SOURCE
    source.write_text(source.read_text(encoding="utf-8").replace(POINTS_TABLE_PLACEHOLDER, "| hand-typed |"), encoding="utf-8")
    with pytest.raises(BuildError, match=f"{NOTEBOOK_SOURCE}: no points table"):
        build_release(COURSE, assignment.id, solutions_dir=tmp_path)


# --- languages ---------------------------------------------------------------------------------

from autograder.build.release import TEMPLATES_DIR, release_templates  # noqa: E402


def in_languages(*languages: str):
    """The real course shipped in ``languages``."""
    return COURSE.model_copy(update={"languages": languages, "feedback_language": languages[0]})


def _zh(name: str) -> str:
    return name.replace(".ipynb", ".zh.ipynb").replace(".md", ".zh.md")


@pytest.mark.parametrize(
    "languages, expected",
    [
        (("en",), {"README.md": ("README.md.tmpl", "en"), "conftest.py": ("conftest.py.tmpl", "en")}),
        (("en", "zh"), {"README.md": ("README.md.tmpl", "en"), "README.zh.md": ("README.zh.md.tmpl", "zh"),
                        "conftest.py": ("conftest.py.tmpl", "en")}),
        (("zh", "en"), {"README.md": ("README.zh.md.tmpl", "zh"), "README.en.md": ("README.md.tmpl", "en"),
                        "conftest.py": ("conftest.py.tmpl", "zh")}),
    ],
)
def test_each_language_gets_its_version_of_a_template_and_a_shared_template_is_rendered_once(languages, expected):
    chosen = release_templates(languages)
    assert {name: (template.name, language) for name, (template, language) in chosen.items()} == expected
    assert all(template.parent == TEMPLATES_DIR for template, _ in chosen.values())


def test_a_template_without_versions_is_shared_and_a_lone_version_serves_its_language(tmp_path):
    (tmp_path / "README.md.tmpl").write_text("# $title\n", encoding="utf-8")
    (tmp_path / "NOTES.zh.md.tmpl").write_text("# $title\n", encoding="utf-8")
    chosen = release_templates(("en", "zh"), tmp_path)
    assert {name: (template.name, language) for name, (template, language) in chosen.items()} == {
        "README.md": ("README.md.tmpl", "en"), "NOTES.zh.md": ("NOTES.zh.md.tmpl", "zh"),
    }
    assert set(release_templates(("en",), tmp_path)) == {"README.md"}


def test_an_english_only_course_builds_no_chinese_file():
    assignment = COURSE.assignment(IDS[0])
    files = build_release(in_languages("en"), IDS[0])
    assert not [name for name in files if ".zh." in name]
    assert "中文" not in files[assignment.module] and files[assignment.notebook] == build_release(COURSE, IDS[0])[assignment.notebook]


@pytest.mark.parametrize("assignment_id", IDS)
def test_a_bilingual_course_builds_each_notebook_and_readme_in_both_languages(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    files = build_release(in_languages("en", "zh"), assignment_id)
    chinese_notebook = json.loads(files[_zh(assignment.notebook)])
    assert chinese_notebook["cells"][0]["source"][0].startswith(f"# 作业 {IDS.index(assignment_id) + 1} · ")
    assert f"# {assignment_id.split('_')[0]}：{assignment.title_in('zh')}" in files["README.zh.md"]
    assert _zh(assignment.notebook) in files["README.zh.md"] and _zh(assignment.notebook) not in files["README.md"]
    assert "\n中文 (简体)\n" in files[assignment.module]


def test_a_chinese_first_course_names_its_chinese_files_plainly():
    assignment = COURSE.assignment(IDS[0])
    files = build_release(in_languages("zh", "en"), IDS[0])
    english_name = assignment.notebook.replace(".ipynb", ".en.ipynb")
    assert "作业 1" in files[assignment.notebook] and "Assignment 1" in files[english_name]
    assert files["README.md"].startswith("# hw1：") and files["README.en.md"].startswith("# hw1: ")
    assert english_name in files["README.en.md"] and f"check {IDS[0]} {assignment.notebook}" in files["README.md"]


def _copied_solutions(tmp_path):
    copied = tmp_path / "solutions"
    shutil.copytree(SOLUTIONS_DIR, copied)
    return copied / IDS[0]


def test_a_source_missing_a_translation_builds_only_without_its_language(tmp_path):
    folder = _copied_solutions(tmp_path)
    source = folder / NOTEBOOK_SOURCE
    text = source.read_text(encoding="utf-8")
    start = text.index('# %% [markdown] lang="zh"\n# ## 4.')
    source.write_text(text[:start] + text[text.index("# %%", start + 10):], encoding="utf-8")
    with pytest.raises(BuildError, match=r"notebook\.py: cell \d+ \('## 4\. Masks.*no zh translation follows"):
        build_release(COURSE, IDS[0], folder.parent)
    assert build_release(in_languages("en"), IDS[0], folder.parent)


@pytest.mark.parametrize(
    "old, new, words",
    [
        ("第 6 节中三个 token", "第六节中三个 token", "cell 11, zh: numbers missing from the translation: ['6']"),
        ("## 7. 为什么要除以", "### 7. 为什么要除以", "block 1 is heading[2]"),
    ],
)
def test_a_translation_that_departs_from_the_english_stops_the_build(tmp_path, old, new, words):
    source = _copied_solutions(tmp_path) / NOTEBOOK_SOURCE
    text = source.read_text(encoding="utf-8")
    assert old in text
    source.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(BuildError, match=re.escape(words)):
        build_release(COURSE, IDS[0], source.parent.parent)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda text: text.replace("  causal_mask: |", "  causal_masks: |"),
         ["no translated docstring for causal_mask", "causal_masks is no graded or given function"]),
        (lambda text: text.replace("    n : int\n", "    n : integer\n"), ["causal_mask: the numpydoc skeleton differs"]),
        (lambda text: text[: text.index("functions:")].replace("module: |", "module: ''\nunused: |"), ["expected `module: <text>`"]),
    ],
)
def test_missing_or_unfaithful_translated_docstrings_stop_the_build(tmp_path, edit, words):
    path = _copied_solutions(tmp_path) / "docstrings.zh.yml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build_release(COURSE, IDS[0], path.parent.parent)
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_drift_of_the_chinese_notebook_and_readme_is_detected(tmp_path):
    files = build_release(COURSE, IDS[0])
    write_release(files, tmp_path)
    chinese = tmp_path / _zh(COURSE.assignment(IDS[0]).notebook)
    chinese.write_text(chinese.read_text(encoding="utf-8").replace("掩码", "遮罩"), encoding="utf-8")
    (tmp_path / "README.zh.md").unlink()
    assert sorted(release_drift(files, tmp_path)) == [f"changed: {chinese.name}", "missing: README.zh.md"]


def test_leak_finder_reads_the_chinese_notebook(forbidden):
    planted = next(line for line, where in forbidden.items() if where == "solution code")
    release = build_release(COURSE, IDS[0])
    name = _zh(COURSE.assignment(IDS[0]).notebook)
    notebook = json.loads(release[name])
    notebook["cells"][-1]["source"] = [f"    {planted}\n"]
    release[name] = json.dumps(notebook)
    assert [(leak.release_file, leak.source) for leak in find_leaks(release, forbidden)] == [(name, "solution code")]
