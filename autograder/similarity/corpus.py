"""A planted corpus for the similarity check (benchmarks/similarity.py, the demo): submissions whose copies are known.

The corpus is course content (``solutions/similarity_corpus.yml``, read by :func:`corpus_spec`): honest
students each combine their own way of writing the assignment's functions (several independent ways
per function, written by hand, as students write them: two honest students may still write the same
short function alike). Every student keeps the starter code of the corpus's stub (input conversions
each function begins with) under the release's signatures.
Then copiers take an honest student's file and

- ``copy``: hand it in as it is (the issue's s08 and s29);
- ``renamed``: rename every local variable;
- ``reordered``: swap independent adjacent statements;
- ``disguised``: rename, reorder and rewrite the comments;
- ``partial``: copy the largest function only (the corpus's ``partial``), the rest their own.

:func:`build_corpus` returns the sources and the pairs that are copies (a copier and their
source, and two copiers of one source), for precision and recall.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from dataclasses import dataclass

import yaml

from autograder.config import load_course
from autograder.errors import ConfigError

#: The course's planted corpus, beside its masters (``solutions/similarity_corpus.yml``).
CORPUS_FILE = "similarity_corpus.yml"
HEADER = "from __future__ import annotations\n\nimport math\n\nimport numpy as np\n"


class CorpusError(ConfigError):
    """The course's planted corpus is missing or not in the expected form."""


@dataclass(frozen=True)
class CorpusSpec:
    """What the planted class is made of, read from the course (:func:`corpus_spec`).

    Attributes
    ----------
    assignment : str
        The assignment the class hands in.
    functions : tuple of str
        Its functions, in the order a student's module defines them.
    signatures : dict of str to str
        Each function's ``def`` line, the release's.
    starter : dict of str to str
        The stub's starter code each function begins with.
    variants : dict of str to list of str
        Each function's bodies, one per way of writing it.
    partial : str
        The function a ``partial`` copier copies (the largest).
    """

    assignment: str
    functions: tuple[str, ...]
    signatures: dict
    starter: dict
    variants: dict
    partial: str


def release_signatures(release_module: str, functions: tuple[str, ...]) -> dict[str, str]:
    """The one-line ``def`` of each of ``functions`` in a release module's source (its annotations kept).

    Raises
    ------
    CorpusError
        When the release does not define one of them.
    """
    found = {}
    for node in ast.parse(release_module).body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            bare = ast.FunctionDef(node.name, node.args, [ast.Pass()], [], node.returns, None)
            found[node.name] = ast.unparse(ast.fix_missing_locations(bare)).splitlines()[0]
    missing = [f for f in functions if f not in found]
    if missing:
        raise CorpusError(f"the release defines no {', '.join(missing)}")
    return found


def corpus_spec(course=None) -> CorpusSpec:
    """The planted corpus of ``course`` (default: the default course): its ``solutions/similarity_corpus.yml``, with
    the signatures of the assignment's release.

    Raises
    ------
    CorpusError
        When the file is missing or not in the expected form, or the release lacks a function.
    """
    course = load_course() if course is None else course
    path = course.layout.solutions / CORPUS_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assignment = course.assignment(str(data["assignment"]))
        listed = data["functions"]
        functions = tuple(str(f) for f in listed)
        starter = {f: str(listed[f]["starter"]).rstrip("\n") for f in functions}
        variants = {f: [str(v).rstrip("\n") for v in listed[f]["variants"]] for f in functions}
        partial = str(data["partial"])
        release = (course.layout.release(assignment.id) / assignment.module).read_text(encoding="utf-8")
    except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError, ConfigError) as error:
        raise CorpusError(f"{path}: no planted corpus ({type(error).__name__}: {error})") from None
    if partial not in functions or not all(variants.values()):
        raise CorpusError(f"{path}: `partial` must be one of its functions, and each function needs variants")
    return CorpusSpec(assignment.id, functions, release_signatures(release, functions), starter, variants, partial)


#: Honest students, then copiers, in a seeded shuffle of names s01, s02, ...
HONEST = 14
PLANTS = ("copy", "copy", "renamed", "renamed", "reordered", "reordered", "disguised", "disguised", "partial")


def _indent(text: str, spaces: int = 4) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.splitlines())


def function_source(spec: CorpusSpec, function: str, body: str, comment: str = "") -> str:
    """One function: its signature, a comment, the starter code, then ``body``."""
    lines = [spec.signatures[function], f"    # {comment}" if comment else "", _indent(spec.starter[function]),
             _indent(body)]
    return "\n".join(line for line in lines if line) + "\n"


def module(spec: CorpusSpec, bodies: dict[str, str], comment: str = "") -> str:
    """A student's module: the header, then each function of ``spec`` with its body from ``bodies``."""
    return HEADER + "\n\n" + "\n\n".join(function_source(spec, f, bodies[f], comment) for f in spec.functions)


def stub(spec: CorpusSpec) -> str:
    """The corpus's stub: each function's starter code, then ``raise NotImplementedError``."""
    return module(spec, {f: f"raise NotImplementedError('{f}: not implemented yet')" for f in spec.functions})


class _Renamer(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        return node  # the signature is the assignment's


def rename(source: str, rng: random.Random) -> str:
    """``source`` with every name a function assigns renamed."""
    tree = ast.parse(source)
    for function in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        args = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        stored = sorted({n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - args)
        _Renamer({name: f"{rng.choice(['tmp', 'val', 'res', 'arr', 'my'])}_{name}_{rng.randrange(99)}" for name in stored}).visit(function)
    return ast.unparse(tree) + "\n"


def _names(node: ast.AST, context) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, context)}


def reorder(source: str) -> str:
    """``source`` with each pair of adjacent independent statements swapped (once per pair)."""
    tree = ast.parse(source)
    for function in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        body, i = function.body, 0
        while i + 1 < len(body):
            a, b = body[i], body[i + 1]
            simple = all(isinstance(s, (ast.Assign, ast.AugAssign)) for s in (a, b))
            independent = not (_names(a, ast.Store) & (_names(b, ast.Load) | _names(b, ast.Store))) and \
                not (_names(b, ast.Store) & _names(a, ast.Load))
            if simple and independent:
                body[i], body[i + 1] = b, a
                i += 2
            else:
                i += 1
    return ast.unparse(tree) + "\n"


@dataclass(frozen=True)
class Corpus:
    """The class (``{student: source}``), the stub, and the pairs (sorted tuples) that are copies."""

    sources: dict[str, str]
    stub: str
    copies: frozenset[tuple[str, str]]
    kinds: dict[str, str]  # copier -> plant kind


#: Rewrites that keep the meaning, each taken by an honest student with probability 1/2: their own style.
STYLE = (
    (re.compile(r"math\.sqrt\("), "np.sqrt("),
    (re.compile(r"axis=-1\)"), "-1)"),
    (re.compile(r"keepdims=True"), "keepdims=1"),
    (re.compile(r"^(\s*)return (.+)$", re.M), r"\1result = \2\n\1return result"),
    (re.compile(r" / "), " * 1.0 / "),
    (re.compile(r"np\.asarray\((\w+)\)$", re.M), r"np.array(\1, copy=False)"),
    (re.compile(r"-np\.inf"), "float('-inf')"),
    (re.compile(r"^(\s*)(\w+) = (.+)$", re.M), r"\1\2 = (\3)"),
)


def styled(source: str, rng: random.Random) -> str:
    """``source`` in a student's own style: each of :data:`STYLE`'s rewrites taken or not."""
    for pattern, replacement in STYLE:
        if rng.random() < 0.5:
            source = pattern.sub(replacement, source)
    ast.parse(source)  # still Python
    return source


def _honest_choices(spec: CorpusSpec, rng: random.Random) -> list[dict[str, int]]:
    combos = list(itertools.product(*(range(len(spec.variants[f])) for f in spec.functions)))
    rng.shuffle(combos)
    chosen: list[tuple[int, ...]] = []
    for combo in combos:  # honest students differ in at least two functions
        if all(sum(x != y for x, y in zip(combo, other)) >= 2 for other in chosen):
            chosen.append(combo)
        if len(chosen) == HONEST:
            break
    return [dict(zip(spec.functions, combo)) for combo in chosen]


def _planted(spec: CorpusSpec, kind: str, original: str, choice: dict[str, int], rng: random.Random) -> str:
    if kind == "copy":
        return original
    if kind == "renamed":
        return rename(original, rng)
    if kind == "reordered":
        return reorder(original)
    if kind == "disguised":
        return rename(reorder(original), rng)
    own = ast.parse(styled(module(spec, {f: spec.variants[f][(choice[f] + 1) % len(spec.variants[f])]
                                         for f in spec.functions}), rng))
    copied = [n for n in ast.parse(original).body if getattr(n, "name", "") == spec.partial]
    own.body = [copied[0] if getattr(n, "name", "") == copied[0].name else n for n in own.body]
    return rename(ast.unparse(own), rng)


def build_corpus(seed: int = 26, spec: CorpusSpec | None = None) -> Corpus:
    """The planted class (see the module) of ``spec`` (default: the default course's), the same for the same ``seed``.

    Raises
    ------
    CorpusError
        When the course has no planted corpus in the expected form.
    """
    spec = corpus_spec() if spec is None else spec
    rng = random.Random(seed)
    choices = _honest_choices(spec, rng)
    names = [f"s{n:02d}" for n in range(1, HONEST + len(PLANTS) + 1)]
    rng.shuffle(names)
    honest, copiers = names[:HONEST], names[HONEST:]
    sources = {name: styled(module(spec, {f: spec.variants[f][c[f]] for f in spec.functions}, f"written by {name}"), rng)
               for name, c in zip(honest, choices)}
    origin, kinds = {}, {}
    for copier, kind in zip(copiers, PLANTS):
        source = rng.randrange(len(honest))
        origin[copier], kinds[copier] = honest[source], kind
        sources[copier] = _planted(spec, kind, sources[honest[source]], choices[source], rng)
    copies = {tuple(sorted((c, o))) for c, o in origin.items()}
    copies |= {tuple(sorted((a, b))) for a, b in itertools.combinations(copiers, 2) if origin[a] == origin[b]}
    return Corpus(dict(sorted(sources.items())), stub(spec), frozenset(copies), kinds)
