"""The benchmarks' machine speed: the median run of a fixed workload, in milliseconds."""

from __future__ import annotations

from tests.benchmarks.scripts import benchmark_script


def _machine():
    return benchmark_script("machine")


def test_speed_is_the_median_run_in_milliseconds():
    ticks = iter([10.0, 10.5, 20.0, 20.2, 30.0, 30.9])  # runs of 0.5 s, 0.2 s and 0.9 s
    runs = []
    speed = _machine().speed_ms(lambda: runs.append(1), 3, clock=lambda: next(ticks))
    assert len(runs) == 3
    assert abs(speed - 500.0) < 1e-6


def test_each_workload_takes_measurable_time_and_the_line_names_every_speed():
    machine = _machine()
    for work in (machine.compute_workload, machine.process_workload):
        assert machine.speed_ms(work, 1) > 1.0, f"{work.__name__} is too short to tell a slow machine from a fast one"
    line = machine.speed_line({"compute": 24.25, "processes": 31.5}, {"compute": 26.0, "processes": 80.0})
    assert "compute 24.2 ms before and 26.0 ms after" in line and "processes 31.5 ms before and 80.0 ms after" in line
