"""Removing what a finished worker left: its processes and its files.

Used inside the sandbox by the fork server, and in the grader for its private folders,
so it needs the standard library only. Folder trees are walked one open folder at a time,
by name relative to that folder, going back up through ``..``: neither a path longer than
PATH_MAX, nor a tree deeper than the recursion limit or the open-file limit, nor a folder
whose mode locks its owner out stops the walk.
"""

from __future__ import annotations

import os
import signal
import stat

#: Mode that lets the owner list and empty a folder whatever its mode was.
OWNER_ONLY_MODE = 0o700
#: How a folder is opened for the walk: never through a symbolic link.
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)  # 0: Windows, which never sweeps


def _is_folder(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _enter(name: str, dir_fd: int) -> int | None:
    """An fd of the folder ``name`` inside ``dir_fd``, opened up for its owner first; None if it cannot be."""
    try:
        os.chmod(name, OWNER_ONLY_MODE, dir_fd=dir_fd)
    except OSError:
        pass
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def _names(fd: int) -> list[str]:
    try:
        return os.listdir(fd)
    except OSError:
        return []


def empty_folder_fd(fd: int) -> None:
    """Delete everything inside the folder open as ``fd`` that may be deleted; closes ``fd``.

    Only one folder is open at a time: the walk goes down by name and back up through
    ``..``, remembering the names still to visit on each level.
    """
    pending = [_names(fd)]  # names left to visit, per level
    entered: list[str] = []  # the name of each level's folder in its parent
    while True:
        if pending[-1]:
            name = pending[-1].pop()
            child = _enter(name, fd) if _is_folder(name, fd) else None
            if child is not None:
                os.close(fd)
                fd = child
                pending.append(_names(fd))
                entered.append(name)
            else:
                try:
                    os.unlink(name, dir_fd=fd)
                except OSError:
                    pass
            continue
        if not entered:
            os.close(fd)
            return
        parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
        os.close(fd)
        fd = parent
        pending.pop()
        try:
            os.rmdir(entered.pop(), dir_fd=fd)
        except OSError:
            pass


def empty_folder(path: str) -> None:
    """Delete everything under ``path`` (not ``path`` itself) that may be deleted."""
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError:
        return
    empty_folder_fd(fd)


def remove_tree(path: str) -> None:
    """Delete ``path`` and everything under it, however deep or locked; errors are ignored."""
    if not os.path.isdir(path) or os.path.islink(path):
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    empty_folder(path)
    try:
        os.rmdir(path)
    except OSError:
        pass


def processes_of(uid: int) -> int:
    """How many processes ``uid`` owns in this PID namespace now, zombies included (they count against its RLIMIT_NPROC)."""
    count = 0
    for entry in os.scandir("/proc"):
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            continue
    return count


def kill_all_of_this_uid() -> None:
    """SIGKILL every process of the calling process's uid but itself (``kill(-1)``)."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
