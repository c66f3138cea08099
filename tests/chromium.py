"""A real headless Chromium for the tests of the HTML pages: found, or installed with apt-get, or a clear skip.

Debian's ``chromium`` package is installed when missing (two test processes share one
install through a lock file), and so is a Chinese font (``fonts-wqy-zenhei``) for the pages
in Chinese, whose characters are checked on the screenshot (:func:`cjk_glyph_problems`).
The tests are skipped, saying why, only when they cannot be installed (no apt-get, not
root, no network).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder.demo.browser import find_chromium

#: The Debian package, and how long its installation may take.
CHROMIUM_PACKAGE = "chromium"
INSTALL_TIMEOUT_S = 600
LOCK_FILE = Path(tempfile.gettempdir()) / "attn-course-chromium-install.lock"
APT_ENV = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}


def _apt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["apt-get", *args], env=APT_ENV, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)


def install_chromium() -> tuple[str | None, str]:
    """A Chromium's path, installing Debian's package when there is none; else (None, why not)."""
    found = find_chromium()
    if found:
        return found, ""
    if shutil.which("apt-get") is None:
        return None, "no Chromium and no apt-get to install it (Debian: apt-get install chromium)"
    if os.geteuid() != 0:
        return None, "no Chromium, and installing it needs root (sudo apt-get install chromium)"
    with LOCK_FILE.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if find_chromium():
            return find_chromium(), ""
        done = _apt("install", "-y", "-q", CHROMIUM_PACKAGE)
        if done.returncode != 0:
            _apt("update", "-q")
            done = _apt("install", "-y", "-q", CHROMIUM_PACKAGE)
    found = find_chromium()
    return (found, "") if found else (None, f"apt-get install {CHROMIUM_PACKAGE} failed: {done.stderr.strip()[-300:]}")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of a headless-capable Chromium (installed when missing), or the test is skipped with the reason."""
    path, why = install_chromium()
    if path is None:
        pytest.skip(f"no Chromium for the browser test: {why}")
    return path


def page_problems(report, image_class: str, minimum_images: int = 1) -> list[str]:
    """What a reader would meet on a page opened with :func:`autograder.demo.browser.open_page`; [] when it reads well.

    No console error, no request beyond the file, no script, nothing wider than the
    viewport, and at least ``minimum_images`` images of ``image_class``, each decoded, shown
    and inside the viewport.
    """
    facts = report.facts
    problems = [f"error: {e}" for e in report.errors] + [f"request: {r}" for r in report.requests]
    if facts["scripts"]:
        problems.append(f"{facts['scripts']} script(s)")
    if facts["scrollWidth"] > facts["innerWidth"]:
        problems.append(f"wider than the viewport: {facts['scrollWidth']} > {facts['innerWidth']} px")
    images = [i for i in facts["images"] if image_class in i["cls"].split()]
    if len(images) < minimum_images:
        problems.append(f"{len(images)} {image_class} image(s), expected at least {minimum_images}")
    for index, picture in enumerate(images):
        if not (picture["complete"] and picture["naturalWidth"] > 0 and picture["visible"]):
            problems.append(f"{image_class} {index} not shown: {picture}")
        elif picture["left"] < 0 or picture["right"] > facts["innerWidth"] + 0.5:
            problems.append(f"{image_class} {index} outside the viewport: {picture}")
    if not report.screenshot.startswith(b"\x89PNG"):
        problems.append("no screenshot")
    return problems


def coloured_share(png: bytes) -> float:
    """The share of a screenshot's pixels that are neither white nor grey: heatmaps and histograms are coloured."""
    import io

    import matplotlib.image
    import numpy as np

    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    saturation = pixels.max(axis=-1) - pixels.min(axis=-1)
    return float(np.mean(saturation > 0.2))


#: A small font with the Chinese glyphs the Chinese feedback needs (Debian's package; about 10 MB).
CJK_FONT_PACKAGE = "fonts-wqy-zenhei"


def cjk_font_installed() -> bool:
    """Whether fontconfig knows a font covering Chinese."""
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, timeout=60)
    return bool(listed.stdout.strip())


def install_cjk_font() -> tuple[bool, str]:
    """A Chinese font for the browser, installing Debian's package when there is none; else (False, why not)."""
    if cjk_font_installed():
        return True, ""
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return False, f"no Chinese font, and installing {CJK_FONT_PACKAGE} needs apt-get and root"
    with LOCK_FILE.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if cjk_font_installed():
            return True, ""
        done = _apt("install", "-y", "-q", CJK_FONT_PACKAGE)
        if done.returncode != 0:
            _apt("update", "-q")
            done = _apt("install", "-y", "-q", CJK_FONT_PACKAGE)
    return (True, "") if cjk_font_installed() else (False, f"apt-get install {CJK_FONT_PACKAGE} failed: {done.stderr.strip()[-300:]}")


@pytest.fixture(scope="session")
def cjk_font() -> None:
    """A Chinese font installed (as the CI does), or the test is skipped with the reason."""
    installed, why = install_cjk_font()
    if not installed:
        pytest.skip(f"no Chinese font for the browser test: {why}")


def glyph_boxes_script(selector: str) -> str:
    """JavaScript measuring the box of every character of the first element matching ``selector`` (page pixels)."""
    return f"""JSON.stringify((() => {{
  const element = document.querySelector({json.dumps(selector)});
  if (!element) return [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const boxes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {{
    for (let i = 0; i < node.data.length; i++) {{
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getBoundingClientRect();
      boxes.push({{ch: node.data[i], x: box.left + window.scrollX, y: box.top + window.scrollY, w: box.width, h: box.height}});
    }}
  }}
  return boxes;
}})())"""


#: Share of a glyph's box that must be ink (dark pixels), and how different two glyphs' pictures must be.
MIN_INK_SHARE = 0.03
MIN_GLYPH_DIFFERENCE = 0.18
_CJK = re.compile("[\u4e00-\u9fff]")


def _glyph_pictures(png: bytes, boxes: list[dict]) -> dict:
    import io

    import matplotlib.image
    import numpy as np

    gray = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3].mean(axis=-1)
    pictures = {}
    for box in boxes:
        if _CJK.match(box["ch"]) and box["w"] > 0:
            top, left = int(box["y"]), int(box["x"])
            pictures.setdefault(box["ch"], _inked(gray[top: top + int(np.ceil(box["h"])), left: left + int(np.ceil(box["w"]))]))
    return pictures


def _inked(picture):
    """The picture cut to the box around its ink (dark pixels), so that where a glyph sits in its cell does not count."""
    import numpy as np

    rows, columns = np.nonzero(picture < 0.5)
    if not len(rows):
        return picture
    return picture[rows.min(): rows.max() + 1, columns.min(): columns.max() + 1]


def cjk_glyph_problems(png: bytes, boxes: list[dict], minimum: int = 4) -> list[str]:
    """What keeps the Chinese characters measured in ``boxes`` from showing as themselves in the screenshot.

    Without a font that has them, a browser draws every such character as the same box
    ("tofu") or as nothing: each character must hold ink, and every two different
    characters must look different.
    """
    import numpy as np

    pictures = _glyph_pictures(png, boxes)
    if len(pictures) < minimum:
        return [f"{len(pictures)} different Chinese characters measured, expected at least {minimum}"]
    problems = [f"{ch!r} is blank" for ch, picture in pictures.items() if picture.size == 0 or np.mean(picture < 0.5) < MIN_INK_SHARE]
    names = list(pictures)
    for index, first in enumerate(names):
        for second in names[index + 1:]:
            a, b = pictures[first], pictures[second]
            rows, columns = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
            if np.mean(np.abs(a[:rows, :columns] - b[:rows, :columns])) < MIN_GLYPH_DIFFERENCE:
                problems.append(f"{first!r} and {second!r} look the same (tofu)")
    return problems
