"""The seed of a grading run: derived from a course secret and the submission's code, so a rerun grades alike.

The hidden tests draw their inputs from the run's seed. A fresh seed on every run would let
the same submission get different grades on a regrade or an appeal; a fixed seed would let a
student learn the hidden inputs from one run's feedback. So the seed is derived from:

* a per-course **secret** (:func:`course_secret`): the environment variable
  :data:`SECRET_ENV`, else the file :data:`SECRET_FILE` beside course.yml; it never reaches
  students (not in releases, not in the student kit);
* the assignment id;
* the submission's **code, normalised**: its syntax tree without positions, so whitespace,
  blank lines and comments change nothing, while any change to the code (a renamed variable,
  another constant, a docstring) draws new inputs.

``attn-course grade --seed N`` still replays a run exactly; a course without a secret draws a
fresh seed per run, and the result says which happened (:class:`Seed`).
"""

from __future__ import annotations

import ast
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

#: Environment variable holding the course secret (a GitHub repository secret, say).
SECRET_ENV = "ATTN_COURSE_SECRET"
#: File beside course.yml holding the course secret (never released: see the leak checks).
SECRET_FILE = ".course_secret"
#: Bits of a seed (exact in every JSON reader, JavaScript's included).
SEED_BITS = 32
#: How a run's seed came about, as results and the gradebook record it.
GIVEN, DERIVED, FRESH = "given", "derived", "fresh"
#: Bytes of a new secret.
SECRET_BYTES = 32


@dataclass(frozen=True)
class Seed:
    """A run's seed and how it was chosen: ``given`` (``--seed``), ``derived`` (secret and code) or ``fresh``."""

    value: int
    how: str


def course_secret(course_file: Path | None) -> bytes | None:
    """The course secret: :data:`SECRET_ENV`, else :data:`SECRET_FILE` beside ``course_file``, else None."""
    from_env = os.environ.get(SECRET_ENV, "").strip()
    if from_env:
        return from_env.encode("utf-8")
    if course_file is not None:
        path = Path(course_file).resolve().parent / SECRET_FILE
        if path.is_file():
            text = path.read_text(encoding="utf-8").strip()
            return text.encode("utf-8") if text else None
    return None


def ensure_secret(course_file: Path) -> bytes:
    """The course's secret, made now (beside ``course_file``, once, even with graders starting at once) if it has none."""
    secret = course_secret(course_file)
    if secret is not None:
        return secret
    path = Path(course_file).resolve().parent / SECRET_FILE
    if path.is_file() and not path.read_text(encoding="utf-8").strip():
        path.unlink()  # an empty secret is none: every seed would be fresh
    try:
        new_secret(course_file)
    except FileExistsError:  # another grader made it first
        pass
    secret = course_secret(course_file)
    if secret is None:
        raise OSError(f"{path}: no course secret could be made")
    return secret


def new_secret(course_file: Path) -> Path:
    """Write a new secret beside ``course_file`` (readable by its owner only) and return its path.

    Raises
    ------
    FileExistsError
        When the course already has one (a new secret would change every derived seed).
    """
    path = Path(course_file).resolve().parent / SECRET_FILE
    if path.exists():
        raise FileExistsError(path)
    draft = path.with_name(f"{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_hex(SECRET_BYTES) + "\n")
        os.link(draft, path)  # whole or not at all: no grader reads a half-written secret
    finally:
        draft.unlink(missing_ok=True)
    return path


def normalised_code(tree: ast.AST) -> str:
    """The code of a parsed submission with no trace of its layout: positions, whitespace and comments gone."""
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


def derived_seed(secret: bytes, assignment_id: str, tree: ast.AST) -> int:
    """The seed for ``tree``'s code in ``assignment_id``, under ``secret``."""
    digest = hashlib.blake2b(normalised_code(tree).encode("utf-8"), key=hashlib.blake2b(secret).digest(), person=b"attn-course-seed",
                             salt=hashlib.blake2b(assignment_id.encode("utf-8"), digest_size=16).digest(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def choose_seed(given: int | None, secret: bytes | None, assignment_id: str, tree: ast.AST | None) -> Seed:
    """The run's seed: the one given, else derived from the secret and the code, else a fresh one."""
    if given is not None:
        return Seed(int(given), GIVEN)
    if secret is not None and tree is not None:
        return Seed(derived_seed(secret, assignment_id, tree), DERIVED)
    return Seed(secrets.randbits(SEED_BITS), FRESH)
