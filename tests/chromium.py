"""A real headless Chromium for the tests of the HTML pages: found, or installed with apt-get, or a clear skip.

Debian's ``chromium`` package is installed when missing (two test processes share one
install through a lock file). The tests are skipped, saying why, only when it cannot be
installed (no apt-get, not root, no network).
"""

from __future__ import annotations

import fcntl
import os
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
