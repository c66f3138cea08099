"""How a worker confines itself, seen from inside a sandboxed submission with course.yml's own limits.

The expected values are literals copied from course.yml (``defaults``), not read from the
code, so a change of a limit in either place without the other fails here.
"""

from __future__ import annotations

import glob
import os
import site
import sys

import pytest

from autograder.config import load_course

from .conftest import needs_bwrap

MIB = 1024 * 1024
#: course.yml defaults: memory_mb, max_processes, cpu_time_s, max_file_size_mb, tmp_max_files.
COURSE_MEMORY_MB = 256
COURSE_PROCESSES = 4
COURSE_CPU_S = 30
COURSE_FILE_MB = 16
COURSE_TMP_FILES = 1000
#: What the code adds: a second of grace before SIGKILL, 64 open files, no core files.
EXPECTED_RLIMITS = {
    "RLIMIT_AS": [COURSE_MEMORY_MB * MIB, COURSE_MEMORY_MB * MIB],
    "RLIMIT_NPROC": [COURSE_PROCESSES, COURSE_PROCESSES],
    "RLIMIT_CPU": [COURSE_CPU_S, COURSE_CPU_S + 1],
    "RLIMIT_FSIZE": [COURSE_FILE_MB * MIB, COURSE_FILE_MB * MIB],
    "RLIMIT_NOFILE": [64, 64],
    "RLIMIT_CORE": [0, 0],
}
#: Enough to show a bound holds without letting an unbounded /tmp run for long.
MAX_TRIED_FILES = 100_000

INSIDE = '''
import os, resource, sys
import numpy as np

def limits(names):
    return np.array([list(resource.getrlimit(getattr(resource, name))) for name in names])

def fill_tmp(most):
    made = 0
    try:
        while made < most:
            os.mkdir("/tmp/d%d" % made)
            made += 1
    except OSError:
        pass
    return np.array(made)

def importable_with(folders, names):
    sys.path.extend(folders)
    found = []
    for name in names:
        try:
            __import__(name)
            found.append(name)
        except Exception:
            pass
    listed = sum(len(os.listdir(f)) for f in folders if os.path.isdir(f))
    return np.array([len(found), listed])
'''


@pytest.fixture
def course_limits():
    return load_course().defaults


def test_course_yml_bounds_a_submission_to_one_gib_in_all(course_limits):
    assert (course_limits.memory_mb, course_limits.max_processes) == (COURSE_MEMORY_MB, COURSE_PROCESSES)
    assert course_limits.memory_mb * course_limits.max_processes <= 1024


@needs_bwrap
def test_hard_and_soft_limits_inside_the_sandbox_are_course_ymls(sandbox, course_limits):
    sub = sandbox(INSIDE, limits=course_limits)
    got = sub.call("limits", list(EXPECTED_RLIMITS)).tolist()
    assert dict(zip(EXPECTED_RLIMITS, got)) == EXPECTED_RLIMITS


@needs_bwrap
def test_tmp_holds_a_bounded_number_of_files(sandbox, course_limits):
    sub = sandbox(INSIDE, limits=course_limits)
    assert int(sub.call("fill_tmp", MAX_TRIED_FILES)) < COURSE_TMP_FILES


def _host_site_folders() -> list[str]:
    """Every folder of installed packages on this machine, found independently of the grader's code."""
    prefixes = {"/usr", "/usr/local", "/opt", sys.base_prefix, sys.prefix, os.path.expanduser("~/.local")}
    folders = set(site.getsitepackages(sorted(prefixes)))
    for prefix in prefixes:
        folders.update(glob.glob(os.path.join(prefix, "lib*", "python*", "*-packages")))
    return sorted(f for f in folders if os.path.isdir(f))


@needs_bwrap
def test_appending_any_host_site_packages_to_sys_path_finds_nothing(sandbox):
    folders = _host_site_folders()
    entries = {entry.split(".")[0].split("-")[0] for f in folders for entry in os.listdir(f)}
    names = sorted(n for n in entries if n.isidentifier() and not n.startswith("__") and n not in sys.stdlib_module_names | {"numpy"})
    assert folders and len(names) > 10, "the probe needs packages to look for"
    found, listed = sandbox(INSIDE).call("importable_with", folders, names).tolist()
    assert (found, listed) == (0, 0)
