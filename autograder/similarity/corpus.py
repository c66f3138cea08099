"""A planted corpus for the similarity check (benchmarks/similarity.py, the demo): hw1 submissions whose copies are known.

Honest students each combine their own way of writing the four functions (several
independent ways per function, written by hand, as students write them: two honest
students may still write the same short function alike). Every student keeps the starter
code of the corpus's stub (:data:`STARTER`: input conversions each function begins with).
Then copiers take an honest student's file and

- ``copy``: hand it in as it is (the issue's s08 and s29);
- ``renamed``: rename every local variable;
- ``reordered``: swap independent adjacent statements;
- ``disguised``: rename, reorder and rewrite the comments;
- ``partial``: copy the largest function only (scaled_dot_product_attention), the rest their own.

:func:`build_corpus` returns the sources and the pairs that are copies (a copier and their
source, and two copiers of one source), for precision and recall.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from dataclasses import dataclass

FUNCTIONS = ("softmax", "causal_mask", "scaled_dot_product_attention", "dot_product_variance")
SIGNATURES = {
    "softmax": "def softmax(x, axis: int = -1) -> np.ndarray:",
    "causal_mask": "def causal_mask(n: int) -> np.ndarray:",
    "scaled_dot_product_attention": "def scaled_dot_product_attention(Q, K, V, mask=None):",
    "dot_product_variance": "def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator):",
}
#: The corpus stub's starter code: what every student's function begins with.
STARTER = {
    "softmax": "x = np.asarray(x)\nif x.dtype != np.float32:\n    x = x.astype(np.float64)",
    "causal_mask": "if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:\n"
                   "    raise ValueError(f'n must be a positive integer, got {n!r}')",
    "scaled_dot_product_attention": "Q = np.asarray(Q)\nK = np.asarray(K)\nV = np.asarray(V)\n"
                                    "if Q.dtype != np.float32:\n    Q, K, V = (a.astype(np.float64) for a in (Q, K, V))",
    "dot_product_variance": "if d_k < 1 or n_samples < 2:\n    raise ValueError('need d_k >= 1 and n_samples >= 2')",
}
HEADER = "from __future__ import annotations\n\nimport math\n\nimport numpy as np\n"

VARIANTS = {
    "softmax": [
        "m = np.max(x, axis=axis, keepdims=True)\ne = np.exp(x - m)\nreturn e / np.sum(e, axis=axis, keepdims=True)",
        "shifted = x - x.max(axis=axis, keepdims=True)\nexps = np.exp(shifted)\ntotal = exps.sum(axis=axis, keepdims=True)\n"
        "return exps / total",
        "z = np.exp(x - np.amax(x, axis, keepdims=True))\nreturn z / z.sum(axis, keepdims=True)",
        "x = np.moveaxis(x, axis, -1)\ntop = x.max(-1)[..., None]\nex = np.exp(x - top)\nout = ex / ex.sum(-1)[..., None]\n"
        "return np.moveaxis(out, -1, axis)",
        "m = np.max(x, axis=axis, keepdims=True)\nwith np.errstate(invalid='ignore'):\n"
        "    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))\n    return np.exp(x - lse)",
    ],
    "causal_mask": [
        "return np.tril(np.ones((n, n), dtype=bool))",
        "i = np.arange(n)\nreturn i[None, :] <= i[:, None]",
        "mask = np.zeros((n, n), dtype=bool)\nrows, cols = np.tril_indices(n)\nmask[rows, cols] = True\nreturn mask",
        "return ~np.triu(np.ones((n, n), dtype=bool), k=1)",
        "grid = np.indices((n, n))\nreturn grid[1] <= grid[0]",
    ],
    "scaled_dot_product_attention": [
        "d = Q.shape[-1]\ns = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d)\nif mask is not None:\n"
        "    s = np.where(mask, s, -np.inf)\nw = softmax(s)\nreturn w @ V, w",
        "scores = np.matmul(Q, K.swapaxes(-2, -1))\nscores = scores / np.sqrt(K.shape[-1])\nif mask is not None:\n"
        "    allowed = np.asarray(mask, dtype=bool)\n    scores = np.where(allowed, scores, -np.inf)\n"
        "weights = softmax(scores, axis=-1)\noutput = np.matmul(weights, V)\nreturn output, weights",
        "scale = 1.0 / np.sqrt(Q.shape[-1])\nlogits = np.einsum('...qd,...kd->...qk', Q, K) * scale\nif mask is not None:\n"
        "    logits = logits + np.where(mask, 0.0, -np.inf)\nattn = softmax(logits, -1)\n"
        "context = np.einsum('...qk,...kv->...qv', attn, V)\nreturn context, attn",
        "Kt = np.moveaxis(K, -1, -2)\nraw = Q @ Kt\ndk = K.shape[-1]\nraw /= dk ** 0.5\nif mask is not None:\n"
        "    blocked = ~np.asarray(mask).astype(bool)\n    raw = np.where(blocked, -np.inf, raw)\np = softmax(raw, axis=-1)\n"
        "z = p @ V\nreturn z, p",
        "L_k = K.shape[-2]\nd_k = Q.shape[-1]\nsc = np.matmul(Q / math.sqrt(d_k), np.swapaxes(K, -2, -1))\n"
        "if mask is None:\n    mask = np.ones(sc.shape[-2:], dtype=bool)\nsc = np.where(np.asarray(mask) != 0, sc, float('-inf'))\n"
        "probs = softmax(sc)\nassert probs.shape[-1] == L_k\nreturn np.matmul(probs, V), probs",
        "kT = K.transpose(*range(K.ndim - 2), K.ndim - 1, K.ndim - 2)\nsim = (Q @ kT) * (1 / math.sqrt(Q.shape[-1]))\n"
        "if mask is not None:\n    sim[..., ~np.broadcast_to(np.asarray(mask, bool), sim.shape)] = -np.inf\n"
        "a = softmax(sim, axis=-1)\nreturn a @ V, a",
    ],
    "dot_product_variance": [
        "q = rng.standard_normal((n_samples, d_k))\nk = rng.standard_normal((n_samples, d_k))\ndots = np.sum(q * k, axis=1)\n"
        "return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))",
        "q = rng.standard_normal((n_samples, d_k))\nk = rng.standard_normal((n_samples, d_k))\n"
        "d = np.einsum('ij,ij->i', q, k)\ns = d / np.sqrt(d_k)\nreturn float(d.var()), float(s.var())",
        "queries = rng.standard_normal((n_samples, d_k))\nkeys = rng.standard_normal((n_samples, d_k))\n"
        "prods = (queries * keys).sum(-1)\nraw = np.mean(prods ** 2)\nscaled = np.mean((prods / np.sqrt(d_k)) ** 2)\n"
        "return float(raw), float(scaled)",
        "q = rng.standard_normal((n_samples, d_k))\nk = rng.standard_normal((n_samples, d_k))\ndiag = np.diag(q @ k.T)\n"
        "v = np.var(diag, ddof=1)\nreturn float(v), float(v / d_k)",
    ],
}
#: Honest students, then copiers, in a seeded shuffle of names s01, s02, ...
HONEST = 14
PLANTS = ("copy", "copy", "renamed", "renamed", "reordered", "reordered", "disguised", "disguised", "partial")


def _indent(text: str, spaces: int = 4) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.splitlines())


def function_source(function: str, body: str, comment: str = "") -> str:
    """One function: its signature, a comment, the starter code, then ``body``."""
    lines = [SIGNATURES[function], f"    # {comment}" if comment else "", _indent(STARTER[function]), _indent(body)]
    return "\n".join(line for line in lines if line) + "\n"


def module(bodies: dict[str, str], comment: str = "") -> str:
    return HEADER + "\n\n" + "\n\n".join(function_source(f, bodies[f], comment) for f in FUNCTIONS)


def stub() -> str:
    """The corpus's stub: each function's starter code, then ``raise NotImplementedError``."""
    return module({f: f"raise NotImplementedError('{f}: not implemented yet')" for f in FUNCTIONS})


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


def _honest_choices(rng: random.Random) -> list[dict[str, int]]:
    combos = list(itertools.product(*(range(len(VARIANTS[f])) for f in FUNCTIONS)))
    rng.shuffle(combos)
    chosen: list[tuple[int, ...]] = []
    for combo in combos:  # honest students differ in at least two functions
        if all(sum(x != y for x, y in zip(combo, other)) >= 2 for other in chosen):
            chosen.append(combo)
        if len(chosen) == HONEST:
            break
    return [dict(zip(FUNCTIONS, combo)) for combo in chosen]


def _planted(kind: str, original: str, choice: dict[str, int], rng: random.Random) -> str:
    if kind == "copy":
        return original
    if kind == "renamed":
        return rename(original, rng)
    if kind == "reordered":
        return reorder(original)
    if kind == "disguised":
        return rename(reorder(original), rng)
    own = ast.parse(styled(module({f: VARIANTS[f][(choice[f] + 1) % len(VARIANTS[f])] for f in FUNCTIONS}), rng))
    copied = [n for n in ast.parse(original).body if getattr(n, "name", "") == "scaled_dot_product_attention"]
    own.body = [copied[0] if getattr(n, "name", "") == copied[0].name else n for n in own.body]
    return rename(ast.unparse(own), rng)


def build_corpus(seed: int = 26) -> Corpus:
    """The planted class (see the module), the same for the same ``seed``."""
    rng = random.Random(seed)
    choices = _honest_choices(rng)
    names = [f"s{n:02d}" for n in range(1, HONEST + len(PLANTS) + 1)]
    rng.shuffle(names)
    honest, copiers = names[:HONEST], names[HONEST:]
    sources = {name: styled(module({f: VARIANTS[f][c[f]] for f in FUNCTIONS}, f"written by {name}"), rng)
               for name, c in zip(honest, choices)}
    origin, kinds = {}, {}
    for copier, kind in zip(copiers, PLANTS):
        source = rng.randrange(len(honest))
        origin[copier], kinds[copier] = honest[source], kind
        sources[copier] = _planted(kind, sources[honest[source]], choices[source], rng)
    copies = {tuple(sorted((c, o))) for c, o in origin.items()}
    copies |= {tuple(sorted((a, b))) for a, b in itertools.combinations(copiers, 2) if origin[a] == origin[b]}
    return Corpus(dict(sorted(sources.items())), stub(), frozenset(copies), kinds)
