"""``attn-course build``: generate student releases from the instructor masters."""

__all__ = ["build_release", "release_drift", "write_release"]


def __getattr__(name: str):
    """The release functions, imported on first use: importing the package (every command line's start) stays light."""
    if name in __all__:
        from autograder.build import release

        return getattr(release, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
