"""The shell lines the Gradescope and GitHub exports share: grade, and fall back only when the sandbox cannot run.

A Gradescope container and a GitHub runner each hold one submission. The grader is tried
with its sandbox first; only when it refuses because bubblewrap cannot run there is the
submission graded again with ``--sandbox none`` (Landlock and the resource limits still
confine it), and the run says so. Any other failure of the grader fails the run.
"""

from __future__ import annotations

#: What the grader says when it refuses to grade without its sandbox (autograder.sandbox.isolation).
SANDBOX_REFUSAL = "refusing to grade without the sandbox"
#: Bash: ``grade_with_fallback`` runs the function ``grade`` (defined by the caller) with that fallback.
GRADE_WITH_FALLBACK = f'''\
grade_with_fallback() {{
  local log
  log="$(mktemp)"
  if grade 2> "$log"; then
    cat "$log" >&2
    return 0
  fi
  if grep -q "{SANDBOX_REFUSAL}" "$log"; then
    cat "$log" >&2
    echo "bubblewrap cannot run here: grading this one submission again with --sandbox none"
    grade --sandbox none
    return
  fi
  cat "$log" >&2
  return 1
}}
'''
