"""Outside the checkout: a fresh virtual environment in a temporary folder, with only what an export names.

The environment of every command run here has ``PYTHONPATH`` empty and no ``VIRTUAL_ENV``; the
venv is made by the system's Python without this project's packages, and its third-party
packages come from the package index (pip's cache makes a second install quick). One venv per
test module: each costs 20-40 s; :func:`timed` prints what it took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

#: Seconds one step (a venv, an install, a grading run) may take.
STEP_TIMEOUT_S = 600
CHECKOUT = Path(__file__).resolve().parents[3]
#: Prints the import origin of ``autograder`` and whether the checkout is on the path, as JSON.
PROBE = ("import json, sys, importlib.util as u; spec = u.find_spec('autograder'); "
         "print(json.dumps({'autograder': spec.origin if spec else None, 'path': sys.path}))")


def outside_env(**extra: str) -> dict:
    """This process's environment without Python's variables or the venv's, ``PYTHONPATH`` empty."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "ATTN_"))}
    path = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and not Path(p).resolve().is_relative_to(CHECKOUT))
    return {**env, "PATH": path, "PYTHONPATH": "", **extra}


def run(command: list, cwd: Path, env: dict | None = None, timeout: float = STEP_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run ``command`` (never raising on its exit status)."""
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env or outside_env(), capture_output=True, text=True,
                          timeout=timeout, check=False)


def timed(label: str, started: float) -> None:
    """Print how long a fresh-venv step took (``pytest -s`` shows it; the time is the suite's cost)."""
    print(f"[outside] {label}: {time.perf_counter() - started:.1f} s", file=sys.stderr)


def base_python() -> str:
    """The interpreter the venvs are made from: the one this venv was made from, not this venv."""
    return os.path.join(sys.base_prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")


def fresh_venv(folder: Path) -> Path:
    """A new venv in ``folder`` (its ``bin`` returned), made by :func:`base_python`.

    Raises
    ------
    AssertionError
        When the venv cannot be made.
    """
    made = run([base_python(), "-m", "venv", folder], folder.parent)
    assert made.returncode == 0, made.stderr
    return folder / "bin"


def install(bin_dir: Path, *requirements, cwd: Path) -> None:
    """``pip install`` ``requirements`` into the venv of ``bin_dir`` (from the index, with pip's cache)."""
    started = time.perf_counter()
    done = run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements], cwd)
    timed(f"pip install {' '.join(Path(str(r)).name for r in requirements)}", started)
    assert done.returncode == 0, done.stderr[-3000:]


def assert_outside(bin_dir: Path, cwd: Path) -> None:
    """The venv imports ``autograder`` from its own site-packages and nothing of the checkout is on its path."""
    probe = json.loads(run([bin_dir / "python", "-c", PROBE], cwd).stdout)
    origin = Path(probe["autograder"]).resolve()
    assert origin.is_relative_to(bin_dir.parent.resolve()) and not origin.is_relative_to(CHECKOUT)
    assert not [p for p in probe["path"] if p and Path(p).resolve().is_relative_to(CHECKOUT)]
