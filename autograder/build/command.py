"""``attn-course build``: the student releases from the course's masters, or (``--check-only``) the authoring gate."""

from __future__ import annotations

import click

from autograder.cli_common import CourseCommandError, common_options, is_quiet, load_ctx_course


def _say(ctx: click.Context, line: str) -> None:
    """An informational line (left out with --quiet)."""
    if not is_quiet(ctx):
        click.echo(line)


def _assignment_ids(course, ids: tuple[str, ...]) -> list[str]:
    return [course.assignment(i).id for i in ids] if ids else [a.id for a in course.assignments]


def authoring_gate(course, assignment_id: str, files: dict, forbidden: dict) -> tuple[list[str], list[str]]:
    """``(problems, warnings)`` of one assignment whose masters build: drift from a fresh build, leaks, a question
    without its reference, hidden tests or own mistakes, each naming the file to edit (the TODOs left come first,
    see :func:`autograder.build.todo.todo_problems`)."""
    from autograder.build import release_drift
    from autograder.build.authoring import authoring_problems, mistake_warnings
    from autograder.build.leaks import find_leaks

    layout, assignment = course.layout, course.assignment(assignment_id)
    problems = release_drift(files, layout.release(assignment_id))
    problems += [f"leak of {leak.source}: {leak.release_file}:{leak.line_number}" for leak in find_leaks(files, forbidden)]
    problems += authoring_problems(assignment, layout.hidden_tests)
    return problems, mistake_warnings(assignment, layout.mistakes)


def _catalogs(ctx: click.Context, course, check_only: bool) -> list[str]:
    """Keep the message catalogs in step with the course's hidden suites and mistakes (their descriptions and hints are
    student text): rewritten by a build as ``python -m autograder.i18n update`` rewrites them
    (:func:`~autograder.i18n.maintain.update_catalogs`, the same bytes), checked by ``--check-only``. Only for the
    course whose suites the catalogs cover: the one beside the engine's package."""
    from autograder.i18n.extract import HIDDEN_TESTS, PACKAGE_DIR
    from autograder.i18n.maintain import catalog_is_current, check_language, po_path, update_catalogs
    from autograder.languages import TRANSLATED_LANGUAGES

    if course.layout.hidden_tests.resolve() != (PACKAGE_DIR.parent / HIDDEN_TESTS).resolve():
        return []
    languages = [language for language in course.languages if language in TRANSLATED_LANGUAGES]
    stale = [language for language in languages if not catalog_is_current(language)]
    if check_only:  # a hint or a test description students read in a language, still to translate
        return [f"{po_path(language)}: out of step with the hidden tests: run `attn-course build`" for language in stale] + \
            [f"{po_path(language).name}: {problem}" for language in languages if language not in stale
             for problem in check_language(language)]
    for path, untranslated in update_catalogs(stale):
        _say(ctx, f"{path}: updated" + (f" ({untranslated} to translate)" if untranslated else ""))
    return []


@click.command()
@click.argument("assignment_ids", nargs=-1)
@click.option("--check-only", is_flag=True, help="Do not write; fail if the releases differ from a fresh build or leak, "
              "a question lacks its reference function or hidden tests, or a TODO of `attn-course new` is left.")
@click.option("--draft", is_flag=True, help="Let untranslated text (TODO(translate)) through with a warning.")
@common_options
@click.pass_context
def build(ctx: click.Context, assignment_ids: tuple[str, ...], check_only: bool, draft: bool) -> None:
    """Generate the student releases from solutions/ (all assignments by default).

    The releases go to assignments/ beside the course file.
    """
    from autograder.build import build_release, write_release
    from autograder.build.leaks import course_forbidden_lines
    from autograder.build.todo import todo_problems

    course = load_ctx_course(ctx)
    layout = course.layout
    forbidden = course_forbidden_lines(course) if check_only else {}
    failed = []
    for assignment_id in _assignment_ids(course, assignment_ids):
        problems, warnings = todo_problems(layout, course.assignment(assignment_id), draft=draft)
        if check_only and not problems:  # with TODOs left the masters may not even run: those come first
            gate, gate_warnings = authoring_gate(course, assignment_id, build_release(course, assignment_id), forbidden)
            problems, warnings = gate, warnings + gate_warnings
        for warning in warnings:
            click.echo(f"warning: {assignment_id}: {warning}", err=True)
        failed += [f"{assignment_id}: {line}" for line in problems]
        if check_only:
            _say(ctx, f"{assignment_id}: {'up to date' if not problems else f'{len(problems)} difference(s)'}")
        elif not problems:
            written = write_release(build_release(course, assignment_id), layout.release(assignment_id))
            _say(ctx, f"{assignment_id}: {len(written)} files in {layout.release(assignment_id)}")
    failed += _catalogs(ctx, course, check_only)
    if failed:
        what = ("is not ready (a release differs from a fresh build or leaks, a question lacks its reference or hidden "
                "tests, or a TODO is left)") if check_only else "cannot be built (TODOs left)"
        raise CourseCommandError(f"{layout.releases} {what}:\n" + "\n".join(failed))
