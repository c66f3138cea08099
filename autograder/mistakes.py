"""The course's mistakes: the Python modules of its ``mistakes/`` folder, loaded by path.

A course's known mistakes are course content, like its hidden suites: wrong versions of its graded
functions (each module's ``MUTANTS``, :class:`autograder.mutants.catalog.Mutant` entries), the hints of its
bugs (``BUGS``, :class:`autograder.diagnose.registry.Bug` entries) and which functions a bug id's prefix
belongs to (``PREFIXES``). They sit beside ``course.yml``
(:attr:`autograder.layout.CourseDirectory.mistakes`); the engine keeps the generic machinery and the
mistakes of any function.

Which course's mistakes are read: the folder set by :func:`course_mistakes` while a course is graded,
else the default course's (``course.yml`` of the checkout, or of an installed course bundle). The modules
are the instructor's code, trusted like the reference; a student's code never reaches them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
import types
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

from autograder.errors import ConfigError
from autograder.layout import default_layout

_ACTIVE: ContextVar[Path | None] = ContextVar("attn_course_mistakes", default=None)


@functools.lru_cache(maxsize=1)
def _default_folder() -> Path:
    return default_layout().mistakes.resolve()


def active_folder() -> Path:
    """The mistakes folder in use: the one :func:`course_mistakes` set, else the default course's."""
    folder = _ACTIVE.get()
    return folder if folder is not None else _default_folder()


@contextmanager
def course_mistakes(folder: Path) -> Iterator[Path]:
    """Use the mistakes in ``folder`` (a course's :attr:`~autograder.layout.CourseDirectory.mistakes`) meanwhile.

    Parameters
    ----------
    folder : Path
        The course's ``mistakes/`` folder (it may be missing: a course without mistakes of its own).

    Returns
    -------
    context manager
        Gives the folder, resolved.
    """
    token = _ACTIVE.set(Path(folder).resolve())
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


def module_files(folder: Path) -> list[Path]:
    """The modules of a mistakes folder, in name order (none when the folder is missing)."""
    return sorted(p for p in Path(folder).glob("*.py") if not p.name.startswith("_")) if Path(folder).is_dir() else []


def _load(path: Path) -> types.ModuleType:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"attn_course_mistakes_{digest}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise ConfigError(f"cannot load the course's mistakes from {path}: {type(error).__name__}: {error}") from error
    return module


@functools.lru_cache(maxsize=None)
def modules(folder: Path) -> tuple[types.ModuleType, ...]:
    """Every module of a mistakes folder, loaded once.

    Raises
    ------
    ConfigError
        When a module cannot be loaded (the message names its file).
    """
    return tuple(_load(path) for path in module_files(folder))


def collected(name: str, folder: Path | None = None) -> tuple:
    """The items of every module's ``name`` tuple (``MUTANTS``, ``BUGS``), in module then listing order.

    Parameters
    ----------
    name : str
        The attribute each module may define.
    folder : Path, optional
        The mistakes folder (default: :func:`active_folder`).

    Returns
    -------
    tuple
    """
    folder = active_folder() if folder is None else Path(folder).resolve()
    return tuple(item for module in modules(folder) for item in getattr(module, name, ()))


def merged(name: str, folder: Path | None = None) -> dict:
    """Every module's ``name`` table (``PREFIXES``) merged, a later module's key over an earlier one's."""
    folder = active_folder() if folder is None else Path(folder).resolve()
    table: dict = {}
    for module in modules(folder):
        table.update(getattr(module, name, {}))
    return table
