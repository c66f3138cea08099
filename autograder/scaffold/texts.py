"""The texts ``attn-course new question`` writes: each a template with clear TODOs, filled by name.

Every TODO the instructor must fill says ``TODO`` in capitals, so ``grep -n TODO`` lists them;
text to translate starts with :data:`UNTRANSLATED`, which a release build refuses (see
:func:`autograder.build.untranslated.untranslated_problems`).
"""

from __future__ import annotations

from autograder.i18n import N_

#: Marks text an instructor still has to translate; a release build fails on it, ``build --draft`` warns.
UNTRANSLATED = "TODO(translate)"

#: What the scaffolded hidden tests say of themselves to students: in the catalog already, in every language.
WORKED_EXAMPLE = N_("A small case worked out by hand.")
RANDOM_INPUTS = N_("Random inputs, every size different.")
BATCH_AXES = N_("Inputs with batch axes in front.")
FLOAT32_KEPT = N_("float32 inputs give float32 results.")

REFERENCE = '''"""{function}: TODO say in one line what it computes (the reference every submission is graded against)."""

from __future__ import annotations

import numpy as np

from attn_reference.contract import Output, graded


@graded(Output("the result"))  # TODO name the output as feedback should call it; add axes=(...) for its last axes
def {function}({parameters}):
{docstring}
    raise NotImplementedError("TODO the reference implementation of {function}")
'''

DOCSTRING = '''    """TODO one line: what {function} computes.

    Parameters
    ----------
{parameter_lines}
    Returns
    -------
    numpy.ndarray, shape TODO
        TODO what it holds.

    Raises
    ------
    ValueError
        TODO when (or delete this section).
    """'''

PARAMETER = "    {name} : TODO type and shape\n        TODO what it is.\n"

SOLUTION = '''

def {function}({parameters}):
{docstring}
    ### BEGIN SOLUTION
    raise NotImplementedError("TODO the solution of {function} (what the release's stub replaces)")
    ### END SOLUTION
'''

NOTEBOOK_SECTION = '''# %% [markdown]
# ## {title}
#
# TODO explain {function} to the student: what it computes, the formula, the shapes of its
# arguments and of its result.

{translations}# %% graded="{function}"
# (filled in from the module at build time)

# %%
# TODO a short demo of {function}, e.g. print({function}(...))

'''

NOTEBOOK_TRANSLATION = '''# %% [markdown] lang="{language}"
# ## {title}
#
# {untranslated} TODO explain {function} to the student (in this language).

'''

HIDDEN_TESTS = '''"""Hidden tests of {function} ({assignment}). Inputs are drawn afresh on every run.

Every call through ``expect_reference`` also checks the documented call properties: the
arguments are not modified, the dtype is the documented one, the result has the right shape.
"""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference

FUNCTION = "{function}"
question = pytest.mark.question("{function}")


def inputs(draw, batch=()):
    """The arguments of one call of {function}, every size different (``draw.size()``, ``draw.sizes(k)``,
    ``draw.normal(shape)``, ``draw.mask(shape)``), with ``batch`` axes in front of each array argument.
    """
    raise NotImplementedError("TODO draw the arguments of {function}: return a tuple ({parameters},)")


#: A small case worked out by hand: the arguments of one call, as literals (students may see this test: it draws
#: nothing). It is also the question's public check case, unless public_cases.py lists one of {function}.
EXAMPLE = ()  # TODO the arguments ({parameters},) of a small case worked out by hand


@question
def test_worked_example(submission, tol):
    """{worked_example}"""
    expect_reference(submission, tol, FUNCTION, *EXAMPLE, what=f"{function}{{EXAMPLE}}")


@question(weight=2)
def test_random_inputs(submission, tol, draw):
    """{random_inputs}"""
    expect_reference(submission, tol, FUNCTION, *inputs(draw))


@question
def test_batch_axes(submission, tol, draw):  # TODO delete when {function} takes no arrays
    """{batch_axes}"""
    expect_reference(submission, tol, FUNCTION, *inputs(draw, draw.batch()))


@question
def test_float32_stays_float32(submission, tol, draw):  # TODO delete when {function} takes no float arrays
    """{float32_kept}"""
    arguments = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in inputs(draw)]
    expect_reference(submission, tol, FUNCTION, *arguments)
'''

ASSIGNMENT_ENTRY = '''
  - id: {assignment}
    title: "{title}"
{titles}    module: {module}
    notebook: {notebook}
    due: {due}
    questions:
      - {{function: {function}, points: {points:g}}}
'''

MODULE = '''r"""{title}.

TODO say what the student builds in this assignment, and the conventions (shapes, dtypes, masks).
"""

from __future__ import annotations

import numpy as np
'''

NOTEBOOK = '''# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # {title}
#
# TODO introduce the assignment.
#
# <!-- points table: generated from course.yml -->

{header_translations}# %%
import numpy as np

# %% [markdown]
# ## Check your work
#
# From the assignment folder run `attn-course check {assignment}`.

{closing_translations}'''

NOTEBOOK_HEADER_TRANSLATION = '''# %% [markdown] lang="{language}"
# # {title}
#
# {untranslated} TODO introduce the assignment (in this language).
#
# <!-- points table: generated from course.yml -->

'''

NOTEBOOK_CLOSING_TRANSLATION = '''# %% [markdown] lang="{language}"
# ## {untranslated} Check your work
#
# `attn-course check {assignment}`

'''

PUBLIC_TESTS = '''"""Public checks of {assignment}: small known cases (the public cases of public_cases.py are checked too)."""

import numpy as np
import pytest

from checklib import expect_array
'''

PUBLIC_CASES = '''"""Random public cases of {assignment}, built by `attn-course build` into the release's public_cases.npz."""

from autograder.build.public_cases import PublicCase, Seed  # noqa: F401 - Seed(n) stands for a generator


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    return [
    ]
'''

DOCSTRINGS = '''# The translated prose of the docstrings of {module} (see autograder/build/docstrings.py).
module: |
  {untranslated} TODO the module docstring in this language.
functions:
'''

MISTAKES = '''"""Known mistakes in {function}: wrong versions of it the hidden tests must catch (the test-power gate) and the
grader replays on a failure, to name the student's bug with its hint.

Until MUTANTS lists one, {function} has the generic mistakes only (a result of zeros); `attn-course build
--check-only` reminds you. For each mistake: a function with the reference's signature ({parameters}), a Bug in
BUGS with an id "{function}.<what>" and a one-sentence hint starting "Your {function} ..." (wrapped in N_ so it is
translated), and a Mutant(id, "{function}", implementation) in MUTANTS.
"""

from autograder.diagnose.registry import Bug
from autograder.i18n import N_
from autograder.mutants import Mutant

BUGS: tuple[Bug, ...] = (
    # TODO e.g. Bug("{function}.off_by_one", N_("Your {function} ... .")),
)

MUTANTS: tuple[Mutant, ...] = (
    # TODO e.g. Mutant("{function}.off_by_one", "{function}", off_by_one),
)
'''
