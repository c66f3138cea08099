"""The review server over HTTP: the token, the host, a stale save, a forged or junk request, student text escaped."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from html.parser import HTMLParser

import pytest

from autograder.written.server import serve_in_thread
from tests.autograder.written.serving import ASSIGNMENT, COURSE, HOSTILE, key, rows, seed

QUESTION = ASSIGNMENT.written[0]
STUDENTS = [f"s{n:02d}" for n in range(6)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = seed(tmp_path_factory.mktemp("review") / "gradebook.sqlite3", STUDENTS, {("s03", QUESTION.id): HOSTILE})
    running = serve_in_thread(COURSE, ASSIGNMENT.id, path, "ta1", COURSE.languages[0])
    yield running, path
    running.stop()


def _get(url: str, headers: dict | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def _save(url: str, body) -> tuple[int, dict | str]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8")
        return error.code, json.loads(text) if text.startswith("{") else text


def _body(student: str, items, version: int, comment: str = "") -> dict:
    return {"question": QUESTION.id, "key": key(student, QUESTION.id), "items": items, "comment": comment, "version": version}


def test_without_the_token_everything_is_refused_and_with_it_the_page_opens(server):
    running, path = server
    base = running.url.rstrip("/")
    root = base.rsplit("/t/", 1)[0]
    assert _get(running.url)[0] == 200  # the honest control
    for forged in (root + "/", root + "/t/", root + "/t/wrong/", base + "x/", root + "/t/" + "/q/" + QUESTION.id,
                   root + "/static/review.js"):
        assert _get(forged)[0] == 403, forged
    assert _get(running.url, {"Host": "evil.example"})[0] == 403  # a rebound name is not this server
    status, _ = _save(root + "/t/wrong/save", _body("s00", [QUESTION.rubric[0].id], 1))
    assert status == 403 and not rows(path, QUESTION.id)["s00"].graded


def test_a_save_is_kept_and_a_stale_one_refused_with_a_message(server):
    running, path = server
    save = running.url + "save"
    item = QUESTION.rubric[0].id
    version = rows(path, QUESTION.id)["s01"].version
    status, answer = _save(save, _body("s01", [item], version, "first TA"))
    assert status == 200 and answer["version"] == version + 1
    status, answer = _save(save, _body("s01", [], version, "second TA, from the old page"))
    assert status == 409 and "another TA" in answer["message"]
    kept = rows(path, QUESTION.id)["s01"]
    assert kept.items == (item,) and kept.comment == "first TA"


@pytest.mark.parametrize("junk", [b"not json", b"[]", {"question": QUESTION.id}, "unknown item", "unknown key",
                                  "bool version"])
def test_a_junk_save_is_refused_and_changes_nothing(server, junk):
    running, path = server
    before = rows(path, QUESTION.id)["s02"]
    body = {"unknown item": _body("s02", ["no_such_item"], before.version),
            "unknown key": {**_body("s02", [], before.version), "key": "0" * 20},
            "bool version": {**_body("s02", [], before.version), "version": True}}.get(junk, junk) \
        if isinstance(junk, str) else junk
    status, answer = _save(running.url + "save", body)
    assert status == 400 and "Not saved" in answer["message"]
    assert rows(path, QUESTION.id)["s02"] == before


class _Texts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.answer, self._in_answer = [], "", False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_answer = self._in_answer or ("id", "answer") in attrs

    def handle_endtag(self, tag):
        self._in_answer = self._in_answer and tag != "pre"

    def handle_data(self, data):
        if self._in_answer:
            self.answer += data


@pytest.mark.parametrize("student, text", [("s04", None), ("s03", HOSTILE)])
def test_an_answer_is_shown_as_its_text_never_as_markup(server, student, text):
    running, _ = server
    status, page = _get(f"{running.url}q/{QUESTION.id}/{key(student, QUESTION.id)}?reveal=1")
    parser = _Texts()
    parser.feed(page)
    expected = text or rows(server[1], QUESTION.id)[student].answer
    assert status == 200 and parser.answer == expected
    assert parser.tags.count("script") == 1 and "img" not in parser.tags and "b" not in parser.tags
    assert f"Student: {student}" in page  # revealed when asked; hidden otherwise:
    assert student not in _get(f"{running.url}q/{QUESTION.id}/{key(student, QUESTION.id)}")[1]


def test_the_command_prints_a_url_that_opens_and_refuses_a_gradebook_that_is_none(tmp_path):
    import subprocess
    import sys

    from click.testing import CliRunner

    from autograder.cli import main

    path = seed(tmp_path / "g.sqlite3", STUDENTS[:2])
    process = subprocess.Popen([sys.executable, "-m", "autograder.cli", "review", ASSIGNMENT.id, "--gradebook", str(path)],
                               stdout=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:") and _get(url)[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
    (tmp_path / "junk.sqlite3").write_text("not a gradebook")
    result = CliRunner().invoke(main, ["review", ASSIGNMENT.id, "--gradebook", str(tmp_path / "junk.sqlite3")])
    assert result.exit_code != 0 and "is not a gradebook" in result.output
    without = next((a for a in COURSE.assignments if not a.written), None)
    if without is not None:
        result = CliRunner().invoke(main, ["review", without.id, "--gradebook", str(path)])
        assert result.exit_code != 0 and "no written questions" in result.output


@pytest.mark.parametrize("language", COURSE.languages)
def test_the_page_speaks_the_tas_language_and_shows_the_prompt_and_rubric_in_it(tmp_path, language):
    from autograder.i18n import msg, render
    from autograder.written.pages import KEYS_HELP, answer_page
    from autograder.written.review import Review

    review = Review(COURSE, ASSIGNMENT.id, seed(tmp_path / "g.sqlite3", STUDENTS[:1]), "ta")
    try:
        page = answer_page(review, "/t/x", QUESTION, review.place(QUESTION.id, None, False), False, False, language)
    finally:
        review.close()
    assert render(KEYS_HELP, language) in page and render(msg("Comment for the student"), language) in page
    assert QUESTION.prompt[language] in page and all(item.description[language] in page for item in QUESTION.rubric)
