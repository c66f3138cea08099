"""The review page in a real headless Chromium (Playwright driving /usr/bin/chromium or the one tests/chromium.py installs).

One browser for the module: 20 answers graded with the keyboard alone; two TAs on the same answer;
a reload in the middle; a hostile answer shown as text; no token, no page.
"""

from __future__ import annotations

import time

import pytest

from autograder.i18n import render
from autograder.written.server import serve_in_thread
from tests.autograder.written.serving import ASSIGNMENT, COURSE, HOSTILE, key, rows, seed
from tests.chromium import chromium  # noqa: F401 - the fixture

playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is a dev extra: pip install -e '.[dev]'")
STUDENTS = [f"s{n:02d}" for n in range(20)]
KEYBOARD, TWO_TAS, RELOAD = ASSIGNMENT.written[0], ASSIGNMENT.written[1], ASSIGNMENT.written[-1]
LANGUAGE = COURSE.languages[0]
SAVED = render("Saved.", LANGUAGE)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = seed(tmp_path_factory.mktemp("review") / "gradebook.sqlite3", STUDENTS, {("s05", TWO_TAS.id): HOSTILE})
    running = serve_in_thread(COURSE, ASSIGNMENT.id, path, "ta", LANGUAGE)
    yield running, path
    running.stop()


@pytest.fixture(scope="module")
def browser(chromium):  # noqa: F811 - the fixture's path
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


def _saved(page) -> None:
    page.wait_for_function("s => document.getElementById('status').textContent === s", arg=SAVED, timeout=5000)


def test_twenty_answers_graded_with_the_keyboard_alone(served, page):
    running, path = served
    page.goto(f"{running.url}q/{KEYBOARD.id}?ungraded=1")
    for number in range(len(STUDENTS)):
        page.keyboard.press("1")
        page.keyboard.press("2")
        _saved(page)
        page.wait_for_function("() => document.getElementById('score').textContent !== '0'")
        if number < len(STUDENTS) - 1:
            with page.expect_navigation():
                page.keyboard.press("j")
    graded = rows(path, KEYBOARD.id)
    expected = tuple(sorted(item.id for item in KEYBOARD.rubric[:2]))
    assert all(r.graded and r.items == expected for r in graded.values()), graded
    with page.expect_navigation():
        page.keyboard.press("u")  # the filter off, and on again: nothing ungraded is left
    with page.expect_navigation():
        page.keyboard.press("u")
    assert page.text_content("nav .tab[aria-current]").endswith(f"{len(STUDENTS)} of {len(STUDENTS)} graded")


def test_two_tas_on_the_same_answer_never_overwrite_each_other(served, browser):
    running, path = served
    url = f"{running.url}q/{TWO_TAS.id}/{key('s01', TWO_TAS.id)}"
    first, second = browser.new_context().new_page(), browser.new_context().new_page()
    first.goto(url)
    second.goto(url)
    first.keyboard.press("1")
    _saved(first)
    second.keyboard.press("2")
    second.wait_for_function("() => document.getElementById('review').dataset.refused === '1'", timeout=5000)
    assert "another TA" in second.text_content("#status")
    assert rows(path, TWO_TAS.id)["s01"].items == (TWO_TAS.rubric[0].id,)
    second.reload()  # the honest way on: see the first TA's grade, then add to it
    second.keyboard.press("2")
    _saved(second)
    assert rows(path, TWO_TAS.id)["s01"].items == tuple(sorted(i.id for i in TWO_TAS.rubric[:2]))
    first.context.close()
    second.context.close()


def test_a_reload_in_the_middle_loses_nothing(served, page):
    running, path = served
    page.goto(f"{running.url}q/{RELOAD.id}/{key('s02', RELOAD.id)}")
    page.keyboard.press("1")
    _saved(page)
    page.keyboard.press("c")
    page.keyboard.type("half-way comment")
    page.reload()  # before the comment's own save is due
    assert page.input_value("#comment") == "half-way comment"
    assert page.is_checked(f"input[data-item='{RELOAD.rubric[0].id}']")
    deadline = time.monotonic() + 5  # the comment's save may still be on its way
    while rows(path, RELOAD.id)["s02"].comment != "half-way comment" and time.monotonic() < deadline:
        time.sleep(0.02)
    kept = rows(path, RELOAD.id)["s02"]
    assert (kept.items, kept.comment) == ((RELOAD.rubric[0].id,), "half-way comment")


@pytest.mark.parametrize("student", ["s04", "s05"])  # an honest answer, and one holding HTML and script
def test_an_answer_holding_html_and_script_is_shown_as_text(served, page, student):
    running, path = served
    page.goto(f"{running.url}q/{TWO_TAS.id}/{key(student, TWO_TAS.id)}")
    assert page.text_content("#answer") == rows(path, TWO_TAS.id)[student].answer
    assert page.evaluate("() => [window.__pwned, document.images.length, document.querySelectorAll('#answer *').length]") \
        == [None, 0, 0]


def test_a_request_without_the_token_is_refused(served, page):
    running, _ = served
    root = running.url.rsplit("/t/", 1)[0]
    assert page.goto(running.url).status == 200
    for forged in (f"{root}/", f"{root}/t/not-the-token/q/{KEYBOARD.id}"):
        assert page.goto(forged).status == 403
        assert KEYBOARD.prompt[LANGUAGE] not in page.content()
