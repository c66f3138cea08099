"""The planted corpus of the similarity benchmark: :mod:`autograder.similarity.corpus` (the demo uses it too), on the
course's own corpus (``solutions/similarity_corpus.yml``)."""

from autograder.similarity.corpus import build_corpus, corpus_spec  # noqa: F401
from autograder.similarity.corpus import stub as _stub

#: The default course's planted corpus.
SPEC = corpus_spec()
#: The functions its students write.
FUNCTIONS = SPEC.functions


def stub() -> str:
    """The corpus's stub: each function's starter code, then ``raise NotImplementedError``."""
    return _stub(SPEC)
