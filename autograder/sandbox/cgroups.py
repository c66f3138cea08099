"""A memory and process bound per submission, from a cgroup v2 subtree the grader was handed.

Used only when the grader finds it was given a delegated cgroup v2 subtree of its own:
``systemd-run --scope -p Delegate=yes -p MemoryMax=2G attn-course grade ...``, or a
container with a cgroup namespace (Gradescope's). Then each sandbox runs in a child cgroup
whose ``memory.max`` is ``memory_mb`` and whose ``pids.max`` is ``max_processes`` (plus
the sandbox's own processes): a submission as a whole, whatever it forks, holds at most that.
Anywhere else (cgroup v1, a hybrid hierarchy, a cgroup that belongs to someone else) nothing
is created, moved or written, and the bound is the rlimits' ``max_processes x memory_mb``.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

#: What the grader needs of its subtree.
CONTROLLERS = ("memory", "pids")
#: Extended attributes systemd (Delegate=yes) sets on a cgroup it hands over.
DELEGATE_XATTRS = ("trusted.delegate", "user.delegate")
#: The leaf the grader's own processes move to, so that the subtree may enable controllers
#: (cgroup v2 lets a cgroup with member processes have no controller-enabled children).
GRADER_LEAF = "grader"
#: Name prefix of each sandbox's cgroup.
SANDBOX_PREFIX = "sandbox-"
#: Processes of a sandbox besides the submission's: bwrap, its init, the fork server.
SANDBOX_OVERHEAD_PIDS = 3
#: Attempts (and the pause between them) to remove a sandbox's cgroup once it is killed.
REMOVE_ATTEMPTS = 50
REMOVE_PAUSE_S = 0.01
MIB = 1024 * 1024
#: A shell that moves itself into the cgroup named by $0, then becomes the command.
ENTER = 'echo 0 > "$0/cgroup.procs" && exec "$@"'


@dataclass(frozen=True)
class CgroupSystem:
    """Where the cgroup hierarchy and this process's view of it are (a fake tree in tests)."""

    root: Path = Path("/sys/fs/cgroup")
    proc_self_cgroup: Path = Path("/proc/self/cgroup")
    mountinfo: Path = Path("/proc/self/mountinfo")


def _unified_path(system: CgroupSystem) -> str | None:
    """This process's cgroup path when the hierarchy is pure cgroup v2 (one ``0::`` line), else None."""
    try:
        lines = system.proc_self_cgroup.read_text().split()
    except OSError:
        return None
    if len(lines) != 1 or not lines[0].startswith("0::"):
        return None
    return lines[0][len("0::"):]


def _is_cgroup2_mount(system: CgroupSystem) -> bool:
    try:
        rows = system.mountinfo.read_text().splitlines()
    except OSError:
        return False
    for row in rows:
        fields, _, rest = row.partition(" - ")
        parts = fields.split()
        if len(parts) > 4 and parts[4] == str(system.root) and rest.split()[:1] == ["cgroup2"]:
            return True
    return False


def _marked_delegated(folder: Path) -> bool:
    for name in DELEGATE_XATTRS:
        try:
            os.getxattr(folder, name)
            return True
        except OSError:
            continue
    return False


def _handed_over(folder: Path, path: str) -> bool:
    """Whether the cgroup at ``folder`` is this grader's: a container's own root, or delegated to it."""
    if path == "/":
        return (folder / "memory.max").exists()  # a namespace's root; the host's real root has no memory.max
    return _marked_delegated(folder) or (os.geteuid() != 0 and folder.stat().st_uid == os.geteuid())


def delegated_cgroup(system: CgroupSystem = CgroupSystem()) -> Path | None:
    """The cgroup v2 folder this grader was handed, or None (then no cgroup is ever touched).

    Handed means: the hierarchy is pure cgroup v2; the grader's cgroup is the root of its
    cgroup namespace (a container's own) or marked delegated (``trusted.delegate`` /
    ``user.delegate``, as systemd's ``Delegate=yes`` does) or, for a non-root grader, owned by
    it; it offers the memory and pids controllers; and the grader may write to it.
    """
    path = _unified_path(system)
    if path is None or not _is_cgroup2_mount(system):
        return None
    folder = system.root / path.lstrip("/")
    try:
        offered = (folder / "cgroup.controllers").read_text().split()
        if not _handed_over(folder, path):
            return None
    except OSError:
        return None
    writable = all(os.access(folder / name, os.W_OK) for name in ("cgroup.procs", "cgroup.subtree_control"))
    return folder if writable and all(c in offered for c in CONTROLLERS) else None


class SubmissionCgroups:
    """Child cgroups, one per sandbox, under the subtree the grader was handed."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._names = itertools.count()
        self._ready = False

    def _enable_controllers(self) -> None:
        """Move this subtree's processes into a leaf, then let children use memory and pids."""
        enabled = (self.folder / "cgroup.subtree_control").read_text().split()
        if all(c in enabled for c in CONTROLLERS):
            return
        leaf = self.folder / GRADER_LEAF
        leaf.mkdir(exist_ok=True)
        for pid in (self.folder / "cgroup.procs").read_text().split():
            try:
                (leaf / "cgroup.procs").write_text(pid)
            except OSError:
                continue  # it ended meanwhile
        (self.folder / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in CONTROLLERS))

    def create(self, memory_mb: int, processes: int) -> Path:
        """A fresh child cgroup bounded to ``memory_mb`` (no swap) and ``processes`` (plus the sandbox's own)."""
        if not self._ready:
            self._enable_controllers()
            self._ready = True
        child = self.folder / f"{SANDBOX_PREFIX}{os.getpid()}-{next(self._names)}"
        child.mkdir()
        (child / "memory.max").write_text(str(memory_mb * MIB))
        if (child / "memory.swap.max").exists():
            (child / "memory.swap.max").write_text("0")
        (child / "pids.max").write_text(str(processes + SANDBOX_OVERHEAD_PIDS))
        return child

    @staticmethod
    def remove(child: Path) -> None:
        """Kill everything left in ``child`` (``cgroup.kill``), then remove it once it is empty."""
        try:
            (child / "cgroup.kill").write_text("1")
        except OSError:
            pass
        for _ in range(REMOVE_ATTEMPTS):
            try:
                child.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(REMOVE_PAUSE_S)


def entering(child: Path, command: list[str]) -> list[str]:
    """``command``, run from inside the cgroup ``child`` (a shell moves itself there, then execs it)."""
    return ["/bin/sh", "-c", ENTER, str(child), *command]


_found: list[SubmissionCgroups | None] = []


def submission_cgroups() -> SubmissionCgroups | None:
    """The per-sandbox cgroups of this grader, when it was handed a subtree (decided once)."""
    if not _found:
        folder = delegated_cgroup()
        _found.append(SubmissionCgroups(folder) if folder is not None else None)
    return _found[0]
