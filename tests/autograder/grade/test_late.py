"""The late policy: grace period, started days, the cap, and time zones."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.config import LatePolicy
from autograder.grade.late import days_late, late_fraction
from tests.strategies import QUICK

CHINA = dt.timezone(dt.timedelta(hours=8))
DUE = dt.datetime(2027, 3, 8, 23, 59, tzinfo=CHINA)
POLICY = LatePolicy(grace_period_minutes=15, penalty_per_day=0.1, max_days_late=5)
GRACE_END = DUE + dt.timedelta(minutes=15)


def at(delta: dt.timedelta) -> tuple[int, float]:
    return late_fraction(DUE, DUE + delta, POLICY)


def test_unknown_submission_time_is_not_late():
    assert late_fraction(DUE, None, POLICY) == (0, 0.0)


@pytest.mark.parametrize(
    "delta",
    [dt.timedelta(days=-3), dt.timedelta(seconds=-1), dt.timedelta(0)],
    ids=["days early", "a second early", "exactly on time"],
)
def test_on_time_is_not_penalised(delta):
    assert at(delta) == (0, 0.0)


@pytest.mark.parametrize("minutes", [1, 14, 15])
def test_within_grace_is_on_time(minutes):
    assert at(dt.timedelta(minutes=minutes)) == (0, 0.0)


def test_one_minute_after_grace_is_one_day_late():
    days, fraction = late_fraction(DUE, GRACE_END + dt.timedelta(minutes=1), POLICY)
    assert days == 1
    assert fraction == pytest.approx(0.1)


def test_one_second_after_grace_is_one_day_late():
    assert days_late(DUE, GRACE_END + dt.timedelta(seconds=1), POLICY) == 1


@pytest.mark.parametrize("days", [1, 2, 3, 5])
def test_exactly_n_days_after_grace_is_n_days_late(days):
    submitted = GRACE_END + dt.timedelta(days=days)
    assert late_fraction(DUE, submitted, POLICY) == (days, pytest.approx(0.1 * days))


@pytest.mark.parametrize("days", [1, 2, 4])
def test_a_started_day_counts_as_a_whole_day(days):
    submitted = GRACE_END + dt.timedelta(days=days, seconds=1)
    assert days_late(DUE, submitted, POLICY) == days + 1


def test_beyond_max_days_late_removes_everything():
    submitted = GRACE_END + dt.timedelta(days=POLICY.max_days_late, minutes=1)
    assert late_fraction(DUE, submitted, POLICY) == (POLICY.max_days_late + 1, 1.0)


def test_penalty_is_capped_at_the_whole_score():
    steep = LatePolicy(grace_period_minutes=0, penalty_per_day=0.4, max_days_late=10)
    assert late_fraction(DUE, DUE + dt.timedelta(days=3), steep) == (3, 1.0)


def test_zero_grace_period():
    strict = LatePolicy(grace_period_minutes=0, penalty_per_day=0.1, max_days_late=5)
    assert days_late(DUE, DUE + dt.timedelta(seconds=1), strict) == 1


def test_utc_submission_against_a_due_date_at_plus_eight():
    due_in_utc = dt.datetime(2027, 3, 8, 15, 59, tzinfo=dt.timezone.utc)
    assert DUE == due_in_utc
    on_time = dt.datetime(2027, 3, 8, 16, 14, tzinfo=dt.timezone.utc)
    late = dt.datetime(2027, 3, 8, 16, 15, tzinfo=dt.timezone.utc)
    assert late_fraction(DUE, on_time, POLICY) == (0, 0.0)
    assert late_fraction(DUE, late, POLICY)[0] == 1


def test_same_wall_clock_in_utc_is_eight_hours_late():
    wall_clock_utc = DUE.replace(tzinfo=dt.timezone.utc)
    assert days_late(DUE, wall_clock_utc, POLICY) == 1


def test_a_submission_in_a_western_time_zone_is_converted():
    new_york = dt.timezone(dt.timedelta(hours=-5))
    submitted = dt.datetime(2027, 3, 8, 11, 0, tzinfo=new_york)  # 16:00 UTC, within grace
    assert late_fraction(DUE, submitted, POLICY) == (0, 0.0)


@QUICK
@given(
    first=st.integers(-3 * 86_400, 10 * 86_400),
    extra=st.integers(0, 3 * 86_400),
)
def test_later_submissions_never_cost_less(first, extra):
    earlier = late_fraction(DUE, DUE + dt.timedelta(seconds=first), POLICY)
    later = late_fraction(DUE, DUE + dt.timedelta(seconds=first + extra), POLICY)
    assert earlier[0] <= later[0]
    assert 0.0 <= earlier[1] <= later[1] <= 1.0
