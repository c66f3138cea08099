"""The planted corpus of the similarity benchmark: :mod:`autograder.similarity.corpus` (the demo uses it too)."""

from autograder.similarity.corpus import *  # noqa: F401,F403
from autograder.similarity.corpus import FUNCTIONS, build_corpus  # noqa: F401
