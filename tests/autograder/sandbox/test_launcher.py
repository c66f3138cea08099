"""The worker's command line and limits."""

from __future__ import annotations

import json
import os

from autograder.config import Defaults
from autograder.sandbox import host, launcher
from autograder.sandbox.isolation import Isolation


def test_rlimits_follow_the_course_defaults():
    limits = Defaults(memory_mb=300, cpu_time_s=7, max_processes=9, max_file_size_mb=2)
    got = launcher.rlimits(limits, host.sandbox_id())
    assert got["RLIMIT_AS"] == [300 * host.MIB, 300 * host.MIB]
    assert got["RLIMIT_CPU"] == [7, 7 + launcher.CPU_HARD_GRACE_S]
    assert got["RLIMIT_NPROC"] == [9, 9]
    assert got["RLIMIT_FSIZE"] == [2 * host.MIB, 2 * host.MIB]
    assert got["RLIMIT_CORE"] == [0, 0]


def test_a_worker_without_bwrap_is_limited_and_confined_by_landlock():
    command = launcher.worker_command(Defaults(), Isolation.NONE, 3, 4, "/tmp/private")
    config = json.loads(command[-1])
    assert config["rlimits"]["RLIMIT_AS"][0] == Defaults().memory_mb * host.MIB
    assert config["drop_capabilities"] and config["parent_death_signal"]
    assert config["landlock"]["write"] == ["/tmp/private"]
    assert config["chdir"] == "/tmp/private"


def test_every_worker_and_every_worker_of_a_fork_server_is_told_to_make_no_socket():
    configs = [json.loads(launcher.worker_command(Defaults(), level, 3, 4, "/tmp/private")[-1]) for level in Isolation]
    if os.geteuid() == 0:
        configs.append(json.loads(launcher.zygote_command(Defaults(), 5)[-1]))
    assert [config.get("no_sockets") for config in configs] == [True] * len(configs)
