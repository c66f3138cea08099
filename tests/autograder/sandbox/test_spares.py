"""Spare workers: taken once each, replaced when spares are on, never left running.

The mechanics are checked at the ``none`` level, where a batch keeps spares (under bwrap
for a root grader a batch forks workers instead: see test_zygote.py).
"""

import pytest

from autograder.config import Defaults
from autograder.sandbox import spares
from autograder.sandbox.isolation import Isolation, choose_isolation

NONE = Isolation.NONE

LIMITS = Defaults(call_timeout_s=2.0)
KEY = (LIMITS, NONE)


@pytest.fixture
def taken():
    """``take(isolation)`` takes a worker that is killed after the test."""
    workers = []

    def take(isolation=NONE):
        workers.append(spares.take_worker(LIMITS, isolation))
        return workers[-1]

    yield take
    spares.keep_spares(False)
    for worker in workers:
        worker.kill()
        worker.close_pipes()


def test_without_spares_each_take_starts_a_new_worker_and_keeps_none(taken):
    assert taken(choose_isolation(LIMITS)).alive()
    assert spares._spares == {}


def test_with_spares_the_next_take_gets_the_started_spare(taken):
    spares.keep_spares(True)
    first = taken()
    spare = spares._spares[KEY]
    second = taken()
    assert second is spare and second is not first
    assert spares._spares[KEY] is not spare


def test_a_dead_spare_is_replaced(taken):
    spares.keep_spares(True)
    taken()
    spare = spares._spares[KEY]
    spare.kill()
    second = taken()
    assert second is not spare and second.alive()


def test_turning_spares_off_kills_them(taken):
    spares.keep_spares(True)
    taken()
    spare = spares._spares[KEY]
    spares.keep_spares(False)
    assert not spare.alive() and spares._spares == {}


def test_prestart_leaves_one_worker_for_the_next_take_even_with_spares_off(taken):
    isolation = choose_isolation(LIMITS)
    spares.prestart(LIMITS, isolation)
    started = spares._spares[(LIMITS, isolation)]
    assert taken(isolation) is started and spares._spares == {}
