"""Hidden tests: ordinary pytest files run by the grader, never shipped to students.

Each test takes the ``submission`` fixture (a proxy to the sandboxed worker) and the
``tol`` fixture (course.yml's tolerances) and is marked with the question it counts for.
"""
