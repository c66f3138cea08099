"""The course bundle: one installable wheel of the engine and one course (``attn-course bundle``).

See :mod:`autograder.bundle.wheel` for what it holds and :mod:`autograder.bundle.version` for how it is versioned.
"""
