"""Cache what is computed from files for as long as the files stay the same.

A batch grades hundreds of submissions in one process against the same release and the
same hidden tests; reading and parsing those again for each submission is waste. Results
derived from files are cached under the files' stamps, so an edited file is read afresh.
"""

from __future__ import annotations

import os
from pathlib import Path

#: How many derived results per kind are kept (a course has a handful of assignments).
CACHED_PER_KIND = 32


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, modification time in ns) of ``path``, or None when it does not exist."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def stamps(paths) -> tuple:
    """The stamps of several paths, in order: a cache key that changes when any of them does."""
    return tuple((str(path), file_stamp(path)) for path in paths)
