"""The review benchmark runs end to end on a small class and prints its figures (the targets are checked by running it)."""

from __future__ import annotations

from tests.benchmarks.scripts import benchmark_script


def test_the_benchmark_measures_start_pages_and_saves_on_a_small_class():
    lines = benchmark_script("review_speed").measure(students=12, pages=6)
    assert lines[0].startswith("class of 12 students")
    assert "s to the printed URL" in lines[1]
    assert "(6)" in lines[2] and lines[3].startswith("save")
