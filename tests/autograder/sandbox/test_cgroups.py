"""The cgroup v2 bound: used only in a subtree the grader was handed, decided on a fake cgroupfs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from autograder.sandbox import cgroups

#: This machine's own /proc/self/cgroup: a hybrid hierarchy, cgroup v1 owned by the host.
HYBRID = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/ae5c\n0::/\n"


def fake_system(tmp_path: Path, cgroup_line: str = "0::/grading", mount_type: str = "cgroup2",
                controllers: str = "cpu memory pids", delegated: bool = True, root_memory_max: bool = True) -> cgroups.CgroupSystem:
    """A cgroup tree under ``tmp_path`` as the kernel would show it to the grader."""
    root = tmp_path / "cgroup"
    path = cgroup_line.split("::", 1)[1] if "::" in cgroup_line else "/"
    folder = root / path.lstrip("/")
    folder.mkdir(parents=True)
    (folder / "cgroup.controllers").write_text(controllers + "\n")
    (folder / "cgroup.procs").write_text("101\n102\n")
    (folder / "cgroup.subtree_control").write_text("\n")
    if root_memory_max or path != "/":
        (folder / "memory.max").write_text("max\n")
    if delegated and path != "/":
        try:
            os.setxattr(folder, "user.delegate", b"1")
        except OSError:
            pytest.skip("this filesystem keeps no user.* extended attributes")
    (tmp_path / "cgroup-of-self").write_text(cgroup_line + "\n")
    (tmp_path / "mountinfo").write_text(
        f"24 1 0:22 / /proc rw - proc proc rw\n35 24 0:30 / {root} rw,nosuid - {mount_type} {mount_type} rw\n"
    )
    return cgroups.CgroupSystem(root, tmp_path / "cgroup-of-self", tmp_path / "mountinfo")


def test_a_delegated_subtree_is_found(tmp_path):
    system = fake_system(tmp_path)
    assert cgroups.delegated_cgroup(system) == system.root / "grading"


def test_a_containers_own_root_is_its_subtree(tmp_path):
    system = fake_system(tmp_path, cgroup_line="0::/")
    assert cgroups.delegated_cgroup(system) == system.root


@pytest.mark.parametrize(
    "why, options",
    [
        ("a hybrid hierarchy, cgroup v1 owned by the host", {"cgroup_line": HYBRID.strip()}),
        ("cgroup v1 mounted where cgroup2 is looked for", {"mount_type": "tmpfs"}),
        ("the host's real root cgroup", {"cgroup_line": "0::/", "root_memory_max": False}),
        ("a cgroup nobody delegated", {"delegated": False}),
        ("no pids controller offered", {"controllers": "cpu memory"}),
    ],
)
def test_anything_else_is_never_touched(tmp_path, why, options):
    if "hybrid" in why:
        system = fake_system(tmp_path)
        system.proc_self_cgroup.write_text(HYBRID)
    else:
        system = fake_system(tmp_path, **options)
    assert cgroups.delegated_cgroup(system) is None, why


def test_each_sandbox_gets_a_child_bounded_by_the_limits(tmp_path):
    system = fake_system(tmp_path)
    folder = cgroups.delegated_cgroup(system)
    child = cgroups.SubmissionCgroups(folder).create(memory_mb=256, processes=4)
    assert (folder / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (folder / cgroups.GRADER_LEAF / "cgroup.procs").exists(), "the subtree's processes moved to a leaf"
    assert child.parent == folder and child.name.startswith(cgroups.SANDBOX_PREFIX)
    assert (child / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (child / "pids.max").read_text() == str(4 + cgroups.SANDBOX_OVERHEAD_PIDS)


def test_a_command_enters_its_cgroup_before_it_runs(tmp_path):
    child = tmp_path / "sandbox-1-0"
    child.mkdir()
    command = cgroups.entering(child, ["/bin/echo", "ran"])
    assert command[:2] == ["/bin/sh", "-c"] and command[-2:] == ["/bin/echo", "ran"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert done.stdout == "ran\n" and (child / "cgroup.procs").read_text().strip() == "0"
