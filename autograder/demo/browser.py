"""Open a page in a real headless Chromium, and report what a reader would meet: errors, images, a screenshot.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``: file
descriptors 3 and 4 of the browser, messages as JSON ending in a NUL byte), so nothing but
the standard library is needed and no port is opened. The demo keeps a screenshot of a
feedback page; the suite checks the HTML pages with it (no console errors, no request
beyond the file itself, the heatmaps loaded and visible, nothing wider than a phone).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Where Debian's ``chromium`` package puts the browser, and the names it may have on the PATH.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: The flags of a headless browser run as root in a container, without network chatter.
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--disable-extensions",
    "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe",
)
#: A phone's viewport (CSS pixels) the pages must fit.
PHONE_WIDTH, PHONE_HEIGHT = 390, 844
#: Seconds to wait for the browser's answer to one command, and for a page to load.
COMMAND_TIMEOUT_S = 30.0
#: File descriptors the browser reads commands from and writes answers to.
BROWSER_IN_FD, BROWSER_OUT_FD = 3, 4
#: Where the pipe ends are moved first in the child, clear of 3 and 4.
FIRST_SPARE_FD = 10
#: What the page reports about itself once loaded (evaluated in the page).
PAGE_FACTS_SCRIPT = """JSON.stringify({
  scripts: document.scripts.length,
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
  images: Array.from(document.images).map(img => {
    const box = img.getBoundingClientRect();
    const style = getComputedStyle(img);
    return {cls: img.className, alt: img.alt, complete: img.complete, naturalWidth: img.naturalWidth,
            naturalHeight: img.naturalHeight, width: box.width, height: box.height, left: box.left, right: box.right,
            visible: style.visibility !== "hidden" && style.display !== "none" && box.width > 0 && box.height > 0};
  }),
})"""


class BrowserError(RuntimeError):
    """The browser could not be started or did not answer."""


def find_chromium() -> str | None:
    """The path of a Chromium on this machine, or None."""
    return next((path for path in map(shutil.which, CHROMIUM_NAMES) if path), None)


@dataclass
class PageReport:
    """What opening a page showed.

    Attributes
    ----------
    errors : list of str
        Console errors, uncaught exceptions and browser log errors (a blocked load, say).
    requests : list of str
        URLs the page asked for beyond itself and ``data:`` URIs.
    facts : dict
        :data:`PAGE_FACTS_SCRIPT`'s answer: scripts, widths and every image's state.
    screenshot : bytes
        A PNG of the whole page at the viewport's width.
    measured : object
        What the caller's own script answered (JSON), when one was given.
    """

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    screenshot: bytes = b""
    measured: object = None


class _Pipe:
    """The DevTools protocol over the browser's pipe: commands with ids, events kept for later."""

    def __init__(self, to_browser: int, from_browser: int):
        self._out, self._in = to_browser, from_browser
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._in], [], [], remaining)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = COMMAND_TIMEOUT_S) -> dict:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float = COMMAND_TIMEOUT_S) -> dict:
        """The first event ``method`` (kept or still to come)."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((e for e in self.events if e.get("method") == method), None)
            if found is not None:
                return found
            self.events.append(self._read_message(deadline))


def _error_texts(events: list[dict]) -> list[str]:
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append("exception: " + str(params.get("exceptionDetails", {}).get("text", "")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append("log: " + str(params["entry"].get("text", "")))
    return errors


def _requests(events: list[dict], page_url: str) -> list[str]:
    urls = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    return [url for url in urls if url != page_url and not url.startswith("data:")]


def _evaluate(pipe: _Pipe, session: str, script: str):
    """The JSON value a script returns in the page (``JSON.stringify`` of what it computes)."""
    answer = pipe.call("Runtime.evaluate", {"expression": script, "returnByValue": True}, session=session)
    return json.loads(answer["result"]["value"])


def _inspect(pipe: _Pipe, url: str, width: int, height: int, script: str | None = None) -> PageReport:
    target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Page", "Network"):
        pipe.call(f"{domain}.enable", session=session)
    pipe.call("Emulation.setDeviceMetricsOverride",
              {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}, session=session)
    pipe.call("Page.navigate", {"url": url}, session=session)
    pipe.wait_for("Page.loadEventFired")
    facts = _evaluate(pipe, session, PAGE_FACTS_SCRIPT)
    measured = _evaluate(pipe, session, script) if script else None
    size = pipe.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": width, "height": min(size["height"], 16384), "scale": 1}
    shot = pipe.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session=session)
    return PageReport(_error_texts(pipe.events), _requests(pipe.events, url), facts, base64.b64decode(shot["data"]), measured)


def open_page(path: Path, chromium: str | None = None, width: int = PHONE_WIDTH, height: int = PHONE_HEIGHT,
              script: str | None = None) -> PageReport:
    """Open the HTML file at ``path`` in a fresh headless Chromium at a phone's size and report on it.

    ``script``, a JavaScript expression returning ``JSON.stringify(...)``, is evaluated in the
    loaded page; its value is the report's ``measured``.

    Raises
    ------
    BrowserError
        When no Chromium is found, or it does not start or answer.
    """
    executable = chromium or find_chromium()
    if executable is None:
        raise BrowserError("no Chromium found (Debian: apt-get install chromium)")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def _wire():  # in the child: the protocol's fds where Chromium expects them (every other fd closes at exec)
        high_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, FIRST_SPARE_FD)
        high_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, FIRST_SPARE_FD)
        os.dup2(high_in, BROWSER_IN_FD)
        os.dup2(high_out, BROWSER_OUT_FD)

    with tempfile.TemporaryDirectory(prefix="attn-chromium-") as profile:
        process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_wire, close_fds=False,  # Python's own fds are not inheritable: only 3 and 4 reach Chromium
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        pipe = _Pipe(to_browser_w, from_browser_r)
        try:
            return _inspect(pipe, Path(path).resolve().as_uri(), width, height, script)
        finally:
            try:
                pipe.call("Browser.close", timeout=5)
            except (BrowserError, OSError):
                pass
            os.close(to_browser_w)
            os.close(from_browser_r)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def screenshot(path: Path, out: Path, chromium: str | None = None) -> Path:
    """Write a PNG of the page at ``path`` (a phone's width, the whole page) to ``out``."""
    report = open_page(path, chromium)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(report.screenshot)
    return out
