"""``attn-course review``'s web server: tornado on 127.0.0.1, every page behind a random per-run token.

Every URL is ``/t/<token>/...``; a request without the token (or with another one, or for another
host name than the server's own) is refused with 403 before anything is read. Pages are rendered
by :mod:`autograder.written.pages`; a save (``POST /t/<token>/save``, JSON) is one transaction
(:meth:`autograder.written.review.Review.save`) and a stale one is answered 409 with a message.
The Content-Security-Policy lets the page load only its own script and style sheet.
"""

from __future__ import annotations

import hmac
import json
import secrets
from pathlib import Path

import tornado.web

from autograder.errors import GraderError
from autograder.escape import json_data
from autograder.i18n import msg, render
from autograder.written.pages import answer_page, empty_page, link
from autograder.gradebook.written import StaleSave

STATIC = Path(__file__).resolve().parent / "static"
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                           "form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
#: Largest save request read, in bytes.
MAX_BODY_BYTES = 64 * 1024


def new_token() -> str:
    """A fresh random token (a run's every URL carries it)."""
    return secrets.token_urlsafe(24)


class _Guarded(tornado.web.RequestHandler):
    """Refuses (403) any request whose path token or host is not the server's, and sets the safety headers."""

    def initialize(self, review, token: str, language: str, hosts: set[str] | None = None):
        self.review, self.token, self.language, self.hosts = review, token, language, hosts

    def set_default_headers(self) -> None:
        self.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")
        self.set_header("Cache-Control", "no-store")

    def prepare(self) -> None:
        given = self.path_kwargs.get("token") or ""
        host_ok = self.hosts is None or self.request.host in self.hosts
        if not host_ok or not hmac.compare_digest(given.encode(), self.token.encode()):
            self.send_error(403)

    @property
    def base(self) -> str:
        return f"/t/{self.token}"

    def write_error(self, status_code: int, **kwargs) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {self._reason}\n")


class Refused(_Guarded):
    """Any URL outside ``/t/<token>/``: 403."""

    def prepare(self) -> None:
        self.send_error(403)


class Start(_Guarded):
    def get(self, token: str) -> None:
        self.redirect(link(self.base, self.review.assignment.written[0].id, None, True, False))


class Answer(_Guarded):
    def get(self, token: str, question_id: str, key: str | None = None) -> None:
        question = self.review.question(question_id)
        if question is None:
            raise tornado.web.HTTPError(404)
        ungraded, reveal = self.get_argument("ungraded", "") == "1", self.get_argument("reveal", "") == "1"
        place = self.review.place(question_id, key, ungraded)
        if place is None and key is not None:
            raise tornado.web.HTTPError(404)
        page = (answer_page(self.review, self.base, question, place, ungraded, reveal, self.language) if place
                else empty_page(self.review, self.base, question, ungraded, reveal, self.language))
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(page)


class Static(_Guarded):
    def get(self, token: str, name: str) -> None:
        path = STATIC / name
        if name not in {p.name for p in STATIC.iterdir()} or path.suffix not in STATIC_TYPES:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", STATIC_TYPES[path.suffix])
        self.finish(path.read_bytes())


def _request(body: bytes) -> tuple[str, str, list, str, int]:
    """``(question, key, items, comment, version)`` of a save request.

    Raises
    ------
    ValueError
        When the body is not such a JSON object.
    """
    if len(body) > MAX_BODY_BYTES:
        raise ValueError("too large")
    data = json.loads(body.decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not an object")
    question, key, items = data.get("question"), data.get("key"), data.get("items")
    comment, version = data.get("comment", ""), data.get("version")
    if not (isinstance(question, str) and isinstance(key, str) and isinstance(comment, str)
            and isinstance(items, list) and all(isinstance(i, str) for i in items)
            and isinstance(version, int) and not isinstance(version, bool)):
        raise ValueError("bad fields")
    return question, key, items, comment, version


class Save(_Guarded):
    def post(self, token: str) -> None:
        try:
            question_id, key, items, comment, version = _request(self.request.body)
            row = self.review.save(question_id, key, items, comment, version)
        except StaleSave as stale:
            self.set_status(409)
            self._answer(msg("Not saved: another TA saved this answer meanwhile (by {who}). Reload the page to see "
                             "their grade, then grade again.", who=stale.current.graded_by or "?"),
                         version=stale.current.version)
            return
        except (ValueError, UnicodeDecodeError):
            self.set_status(400)
            self._answer(msg("Not saved: the request did not name an answer and rubric items of this question."))
            return
        question = self.review.question(question_id)
        self._answer(msg("Saved."), version=row.version, score=f"{question.score_of(row.items):g}",
                     state=render(msg("graded by {who}", who=row.graded_by or "?"), self.language))

    def _answer(self, message, **facts) -> None:
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(json_data({"message": render(message, self.language), **facts})))


def make_app(review, token: str, language: str, hosts: set[str] | None = None) -> tornado.web.Application:
    """The review application (``hosts``: the Host headers accepted, None for any)."""
    options = {"review": review, "token": token, "language": language, "hosts": hosts}
    token_part = r"(?P<token>[^/]*)"
    return tornado.web.Application([
        (rf"/t/{token_part}/?", Start, options),
        (rf"/t/{token_part}/q/(?P<question_id>[a-z0-9_]+)/?", Answer, options),
        (rf"/t/{token_part}/q/(?P<question_id>[a-z0-9_]+)/(?P<key>[0-9a-f]+)", Answer, options),
        (rf"/t/{token_part}/static/(?P<name>[a-z]+\.[a-z]+)", Static, options),
        (rf"/t/{token_part}/save", Save, options),
        (r"/.*", Refused, options),
    ], xsrf_cookies=False, autoreload=False, compress_response=False)


def listen(app: tornado.web.Application, port: int = 0) -> int:
    """Bind ``app`` to 127.0.0.1 (``port`` 0: any free port); the port bound."""
    from tornado.httpserver import HTTPServer
    from tornado.netutil import bind_sockets

    sockets = bind_sockets(port, "127.0.0.1")
    HTTPServer(app, max_body_size=MAX_BODY_BYTES).add_sockets(sockets)
    return sockets[0].getsockname()[1]


def start(course, assignment_id: str, gradebook_path: Path, who: str, language: str, port: int = 0):
    """Start the review server on 127.0.0.1 (not yet serving: the caller runs tornado's loop); ``(url, review)``.

    Raises
    ------
    GraderError
        When the gradebook is missing or not one, or the assignment has no written questions.
    """
    from autograder.gradebook.store import gradebook_problem
    from autograder.written.review import Review

    assignment = course.assignment(assignment_id)
    if not assignment.written:
        raise GraderError(f"{assignment.id} has no written questions in course.yml (its `written` list)")
    problem = gradebook_problem(gradebook_path) if gradebook_path.exists() else "there is no such file"
    if problem:
        raise GraderError(f"{gradebook_path} is not a gradebook: {problem}")
    review, token, hosts = Review(course, assignment.id, gradebook_path, who), new_token(), set()
    bound = listen(make_app(review, token, language, hosts), port)
    hosts.update({f"127.0.0.1:{bound}", f"localhost:{bound}"})
    return f"http://127.0.0.1:{bound}/t/{token}/", review


class Running:
    """A review server on a thread of its own (tests, benchmarks): its ``url``; :meth:`stop` ends it."""

    def __init__(self, url: str, loop, review):
        self.url, self._loop, self._review = url, loop, review

    def stop(self) -> None:
        self._loop.add_callback(self._loop.stop)


def serve_in_thread(course, assignment_id: str, gradebook_path: Path, who: str, language: str) -> Running:
    """Start ``attn-course review``'s server on a thread (its own event loop) and return once it listens."""
    import asyncio
    import threading

    import tornado.ioloop

    started: dict = {}

    def run() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        try:
            url, review = start(course, assignment_id, gradebook_path, who, language)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            started["error"] = error
            return
        loop = tornado.ioloop.IOLoop.current()
        started["running"] = Running(url, loop, review)
        loop.start()
        review.close()

    threading.Thread(target=run, daemon=True).start()
    while "running" not in started and "error" not in started:
        threading.Event().wait(0.005)
    if "error" in started:
        raise started["error"]
    return started["running"]
