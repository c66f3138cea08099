"""The late policy of course.yml, applied to a submission time."""

from __future__ import annotations

import datetime as dt
import math

from autograder.config import LatePolicy

SECONDS_PER_DAY = 86_400


def days_late(due: dt.datetime, submitted_at: dt.datetime, policy: LatePolicy) -> int:
    """Started days past the due date plus the grace period (0 when on time)."""
    deadline = due + dt.timedelta(minutes=policy.grace_period_minutes)
    overdue = (submitted_at - deadline).total_seconds()
    return max(0, math.ceil(overdue / SECONDS_PER_DAY))


def late_fraction(due: dt.datetime, submitted_at: dt.datetime | None, policy: LatePolicy) -> tuple[int, float]:
    """(days late, fraction of the score removed); (0, 0.0) when the time is unknown or on time."""
    if submitted_at is None:
        return 0, 0.0
    days = days_late(due, submitted_at, policy)
    if days > policy.max_days_late:
        return days, 1.0
    return days, min(1.0, days * policy.penalty_per_day)
