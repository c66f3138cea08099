"""Writing an export into its output folder: refuse a non-empty folder unless forced."""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder.export.target import ExportContext, ExportError, ExportTarget
from autograder.paths import PROJECT_ROOT


def _prepare(out: Path, force: bool) -> None:
    """Make ``out`` an empty folder.

    Raises
    ------
    ExportError
        When it holds files and ``force`` is not given, or it is (inside the parents of)
        the project or the current folder, which ``--force`` would empty.
    """
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise ExportError(f"{out} is not empty: choose another --out, or pass --force to replace its contents")
        resolved = out.resolve()
        for precious in (PROJECT_ROOT.resolve(), Path.cwd().resolve()):
            if resolved == precious or resolved in precious.parents:
                raise ExportError(f"refusing to empty {out}: it holds {precious}")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def export_to(target: ExportTarget, context: ExportContext, out: Path, *, force: bool = False) -> list[Path]:
    """Write ``target``'s export of ``context`` into ``out``; return the files written.

    Raises
    ------
    ExportError
        When ``out`` is refused or the export fails.
    """
    _prepare(Path(out), force)
    return target.export(context, Path(out))
