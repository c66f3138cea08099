"""``attn-course build``: generate student releases from the instructor masters."""

from autograder.build.release import build_release, release_drift, write_release

__all__ = ["build_release", "release_drift", "write_release"]
