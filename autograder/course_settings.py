"""The settings sections of ``course.yml``: the course's name, the grading limits and tolerances (``defaults``), the
late policy and the Gradescope settings. :mod:`autograder.config` holds the schema that uses them."""

from __future__ import annotations

import keyword
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CourseInfo(_Strict):
    name: str = Field(description="Course name shown in reports and notebooks.", min_length=1)
    term: str = Field(description="Term the course runs in, e.g. 'Spring 2027'.", min_length=1)


class Defaults(_Strict):
    call_timeout_s: float = Field(5.0, gt=0, le=600, description="Wall-clock seconds for one call into student code.")
    submission_timeout_s: float = Field(60.0, gt=0, le=3600, description="Wall-clock seconds for grading one whole submission.")
    cpu_time_s: int = Field(30, gt=0, le=3600, description="CPU seconds a sandboxed worker may use (RLIMIT_CPU).")
    memory_mb: int = Field(
        256, ge=128, le=65536,
        description="Address space of each process of a submission in MiB (RLIMIT_AS). Without a cgroup of the grader's "
        "own, a submission can hold max_processes x memory_mb in all, plus its /tmp; with one, memory_mb in all.",
    )
    max_processes: int = Field(
        4, ge=1, le=4096,
        description="Processes (and threads) a submission may have at once, the worker included (RLIMIT_NPROC; pids.max "
        "in a cgroup of the grader's own).",
    )
    max_file_size_mb: int = Field(
        16, ge=0, le=4096, description="Largest file a worker may write, in MiB (RLIMIT_FSIZE); also the size of its /tmp."
    )
    tmp_max_files: int = Field(
        1000, ge=16, le=1_000_000,
        description="Files and folders a worker's /tmp may hold (its tmpfs's nr_inodes): empty folders cost no bytes "
        "but kernel memory.",
    )
    output_limit_kb: int = Field(32, ge=1, le=10240, description="Captured student stdout/stderr kept per submission, in KiB.")
    rtol: float = Field(1e-5, ge=0, lt=1, description="Relative tolerance when comparing with the reference.")
    atol: float = Field(1e-8, ge=0, lt=1, description="Absolute tolerance when comparing with the reference.")
    allowed_imports: tuple[str, ...] = Field(
        ("numpy", "math", "typing", "functools", "itertools", "__future__", "dataclasses"),
        description="Top-level modules a submission may import; others are reported and penalised.",
    )
    disallowed_import_penalty: float = Field(
        0.5, ge=0, le=1, description="Fraction of the score removed when a disallowed import is found."
    )
    sandbox: Literal["bwrap", "none"] = Field(
        "bwrap",
        description="How student code is isolated: 'bwrap' (bubblewrap; without it the grader refuses to grade) or "
        "'none' (no sandbox: unsafe for untrusted code, meant for a container holding one submission, such as "
        "Gradescope's; class folders are refused). The --sandbox option and ATTN_SANDBOX override it.",
    )

    @field_validator("allowed_imports")
    @classmethod
    def _module_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        bad = [n for n in names if not n.isidentifier() or keyword.iskeyword(n)]
        if bad:
            raise ValueError(f"not module names: {bad}")
        return names


class LatePolicy(_Strict):
    grace_period_minutes: int = Field(15, ge=0, description="Minutes after the due date that still count as on time.")
    penalty_per_day: float = Field(0.1, ge=0, le=1, description="Fraction of the score removed per started day late.")
    max_days_late: int = Field(5, ge=0, description="Days late after which the score is 0.")


class GradescopeSettings(_Strict):
    hidden_test_visibility: Literal["hidden", "after_due_date", "after_published", "visible"] = Field(
        "after_due_date",
        description="When students see each question's hidden-test detail (score and feedback) on Gradescope: the "
        "visibility the Gradescope export's run_autograder gives every test of results.json (hidden, after_due_date, "
        "after_published or visible).",
    )
