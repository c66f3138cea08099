"""The judging core: how a result is compared with the reference's, and how a difference is put in words.

Both :mod:`autograder.grade` (which scores) and :mod:`autograder.diagnose` (which names bugs) use it;
it uses neither.
"""
