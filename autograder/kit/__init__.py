"""The student kit: ``attn-course check`` installable without the course (no reference, no hidden tests).

:mod:`autograder.kit.wheel` builds it as a wheel the instructor hands out with the releases;
:mod:`autograder.kit.cli` is its command line.
"""
