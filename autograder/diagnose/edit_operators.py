"""Single edits of a function's source: the small slips a student makes, generated from the right code.

Each operator walks a function's syntax tree and proposes one change at one place: another numpy function
(``np.tan`` for ``np.tanh``, a mean for a sum), a call left out, another axis, a keyword dropped, a constant
off by one or doubled, a numpy function applied where none belongs or its argument scaled, the entries of an index
in another order, another operator or its operands swapped, one operand of a product or a sum left out,
the brackets of ``a * (b - c)`` moved, another of the function's own names used in a place, a comparison
flipped, a negation, a transpose or an index left out, two arguments of a call swapped. Nothing here knows a
course: the operators read only the tree. Lines that validate the inputs (a ``raise`` and the test guarding it)
are never edited: a slip there changes no result the contract allows.
"""

from __future__ import annotations

import ast
import contextlib
import copy
from dataclasses import dataclass
from typing import Iterator

#: Functions a student writes in place of another, by the last part of their name (np.tanh -> np.tan ...).
SUBSTITUTES: dict[str, tuple[str, ...]] = {
    "tanh": ("tan", "arctan", "sinh"),
    "exp": ("exp2", "expm1"),
    "sqrt": ("square", "cbrt", "log"),
    "sum": ("mean", "max", "prod"),
    "mean": ("sum", "median", "max"),
    "max": ("min", "mean", "sum"),
    "min": ("max",),
    "amax": ("amin",),
    "var": ("std",),
    "std": ("var",),
    "log": ("log2", "log10"),
    "tril": ("triu",),
    "triu": ("tril",),
    "abs": ("square",),
    "square": ("abs",),
}
#: Functions a slip applies where none belongs (a tanh copied from another score), by their numpy name: the
#: nonlinearities a step is copied with (a root or an absolute value would also stand for other bugs: the norm of
#: diag(a) - sqrt(a a^T) is the root of a trace).
WRAPPERS = ("tanh", "exp")
#: Functions whose argument a slip scales (tanh(x / 2) for a hand-written tanh), by the last part of their name.
SCALED_ARGUMENT = ("tanh", "exp", "sqrt", "log")
#: Axes tried in place of an axis given as a number.
AXES = (-1, -2, -3, 0, 1, 2)
#: Operators a slip turns into another.
OPERATOR_SLIPS: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.Div, ast.MatMult), ast.Div: (ast.Mult, ast.FloorDiv),
    ast.MatMult: (ast.Mult,), ast.Pow: (ast.Mult,),
}
#: Operators whose operands, swapped, give another result.
ORDERED = (ast.Sub, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv)
COMPARISON_SLIPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.GtE), ast.Gt: (ast.GtE, ast.Lt), ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
}
#: Deepest level of a shown expression; what lies deeper is shown as an ellipsis (down to DEEPEST_SHOWN when the
#: change lies deeper).
SHOWN_DEPTH = 2
DEEPEST_SHOWN = 5


@dataclass(frozen=True)
class Edit:
    """One change of a function: where (parent node, field, index), the node put there, and the expression shown
    as it was and as it is after the change."""

    place: tuple
    replacement: ast.AST
    was: str
    becomes: str
    kind: str
    line: int = 0


def abbreviated(node: ast.AST, depth: int = SHOWN_DEPTH) -> str:
    """``node`` as source, every sub-expression deeper than ``depth`` shown as ``…``."""
    shown = copy.deepcopy(node)

    def cut(parent: ast.AST, level: int) -> None:
        for name, value in ast.iter_fields(parent):
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if not isinstance(child, ast.expr):
                    if isinstance(child, ast.AST):
                        cut(child, level)
                    continue
                if level >= depth and name != "func" and not _atomic(child):
                    stub = ast.Name("…", ast.Load())
                    if isinstance(value, list):
                        value[index] = stub
                    else:
                        setattr(parent, name, stub)
                else:
                    cut(child, level + 1)

    cut(shown, 1)
    return ast.unparse(shown)


def _atomic(node: ast.AST) -> bool:
    """A name, a number, a dotted name such as ``np.inf``, or a slice of those (``:``, ``:d_s``): shown whole at any
    depth."""
    if isinstance(node, ast.Slice):
        return all(part is None or _atomic(part) for part in (node.lower, node.upper, node.step))
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def _guarded(function: ast.FunctionDef) -> set[int]:
    """Ids of the nodes no edit touches: every ``raise`` and the test of an ``if`` whose body only raises."""
    skipped: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Raise):
            skipped.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.If) and all(isinstance(s, ast.Raise) for s in node.body):
            skipped.update(id(n) for n in ast.walk(node.test))
    for default in (*function.args.defaults, *function.args.kw_defaults):
        if default is not None:
            skipped.update(id(n) for n in ast.walk(default))
    return skipped


def _local_names(function: ast.FunctionDef) -> list[str]:
    """The function's parameters and the names it assigns, in order of appearance."""
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
    return list(dict.fromkeys(names))


def _parents(function: ast.FunctionDef) -> dict[int, ast.AST]:
    return {id(child): parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}


def _shown(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    """The expression a change at ``node`` is shown in: the nearest call, operation or index around it when
    ``node`` alone (a name, a number, a keyword's value) says little."""
    shown = node
    while isinstance(shown, (ast.Name, ast.Constant, ast.UnaryOp, ast.keyword, ast.Tuple, ast.Starred)):
        parent = parents.get(id(shown))
        if not isinstance(parent, (ast.expr, ast.keyword)):
            break
        shown = parent
    parent = parents.get(id(shown))
    if isinstance(parent, ast.Starred) and isinstance(parents.get(id(parent)), ast.Call):
        shown = parents[id(parent)]  # f(*g(a, b)): the call that receives them
    return shown


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return call.func.id if isinstance(call.func, ast.Name) else None


def _replacements(node: ast.AST, names: list[str], numpy: str | None) -> Iterator[tuple[ast.AST, str]]:
    """What ``node`` may be replaced with, and the kind of slip each replacement is (``numpy``: the name numpy has
    in the function's module, None when it has none)."""
    if numpy and isinstance(node, (ast.BinOp, ast.Call)):
        for wrapper in WRAPPERS:
            if not (isinstance(node, ast.Call) and _called_name(node) == wrapper):
                yield ast.Call(ast.Attribute(ast.Name(numpy, ast.Load()), wrapper, ast.Load()), [copy.deepcopy(node)], []), "wrapped"
    if isinstance(node, ast.Call) and _called_name(node) in SCALED_ARGUMENT and len(node.args) == 1 \
            and not isinstance(node.args[0], ast.Starred):
        for operator in (ast.Mult, ast.Div):
            changed = copy.deepcopy(node)
            changed.args[0] = ast.BinOp(changed.args[0], operator(), ast.Constant(2))
            yield changed, "argument_scaled"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
        for i in range(len(node.slice.elts)):
            for j in range(i + 1, len(node.slice.elts)):
                changed = copy.deepcopy(node)
                elements = changed.slice.elts
                elements[i], elements[j] = elements[j], elements[i]
                yield changed, "index_order"
    if isinstance(node, ast.Call):
        called = _called_name(node)
        for other in SUBSTITUTES.get(called or "", ()):
            changed = copy.deepcopy(node)
            if isinstance(changed.func, ast.Attribute):
                changed.func.attr = other
            else:
                changed.func.id = other
            yield changed, "function"
        if node.args and not isinstance(node.args[0], ast.Starred):
            yield copy.deepcopy(node.args[0]), "call_left_out"
        yield from _keyword_slips(node)
        yield from _argument_swaps(node)
    elif isinstance(node, ast.BinOp):
        yield from _operator_slips(node)
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        for other in COMPARISON_SLIPS.get(type(node.ops[0]), ()):
            yield ast.Compare(copy.deepcopy(node.left), [other()], copy.deepcopy(node.comparators)), "comparison"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert, ast.Not)):
        yield copy.deepcopy(node.operand), "sign"
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        for value in _constant_slips(node.value):
            yield ast.Constant(value), "constant"
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
        for other in names:
            if other != node.id:
                yield ast.Name(other, ast.Load()), "name"
    elif isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        yield copy.deepcopy(node.value), "transpose_left_out"
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        yield copy.deepcopy(node.value), "index_left_out"


def _constant_slips(value: int | float) -> list[int | float]:
    candidates = [value + 1, value - 1, -value, 0, 1, 2, value * 2, value / 2 if isinstance(value, float) else value // 2]
    return [c for c in dict.fromkeys(candidates) if c != value and not (isinstance(value, bool))]


def _keyword_slips(call: ast.Call) -> Iterator[tuple[ast.AST, str]]:
    for index, keyword in enumerate(call.keywords):
        if keyword.arg is None:
            continue
        dropped = copy.deepcopy(call)
        del dropped.keywords[index]
        yield dropped, "keyword_left_out"
        value = keyword.value
        number = value.value if isinstance(value, ast.Constant) else (
            -value.operand.value if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
            and isinstance(value.operand, ast.Constant) else None)
        if keyword.arg == "axis" and isinstance(number, int):
            for axis in AXES:
                if axis != number:
                    changed = copy.deepcopy(call)
                    changed.keywords[index].value = ast.Constant(axis)
                    yield changed, "axis"
    if _called_name(call) in ("var", "std") and not any(k.arg == "ddof" for k in call.keywords):
        changed = copy.deepcopy(call)
        changed.keywords.append(ast.keyword("ddof", ast.Constant(1)))
        yield changed, "keyword_added"


def _argument_swaps(call: ast.Call) -> Iterator[tuple[ast.AST, str]]:
    positional = [index for index, a in enumerate(call.args[:4]) if not isinstance(a, ast.Starred)]
    for i in positional:
        for j in (j for j in positional if j > i):
            changed = copy.deepcopy(call)
            changed.args[i], changed.args[j] = changed.args[j], changed.args[i]
            yield changed, "arguments_swapped"


def _operator_slips(node: ast.BinOp) -> Iterator[tuple[ast.AST, str]]:
    left, right = node.left, node.right
    for other in OPERATOR_SLIPS.get(type(node.op), ()):
        yield ast.BinOp(copy.deepcopy(left), other(), copy.deepcopy(right)), "operator"
    if isinstance(node.op, ORDERED):
        yield ast.BinOp(copy.deepcopy(right), copy.deepcopy(node.op), copy.deepcopy(left)), "operands_swapped"
    if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)):
        yield copy.deepcopy(left), "operand_left_out"
    if isinstance(node.op, (ast.Add, ast.Mult, ast.MatMult)):
        yield copy.deepcopy(right), "operand_left_out"
    if isinstance(right, ast.BinOp):  # a op (b op2 c) -> (a op b) op2 c
        yield ast.BinOp(ast.BinOp(copy.deepcopy(left), copy.deepcopy(node.op), copy.deepcopy(right.left)),
                        copy.deepcopy(right.op), copy.deepcopy(right.right)), "brackets"
    if isinstance(left, ast.BinOp):  # (a op2 b) op c -> a op2 (b op c)
        yield ast.BinOp(copy.deepcopy(left.left), copy.deepcopy(left.op),
                        ast.BinOp(copy.deepcopy(left.right), copy.deepcopy(node.op), copy.deepcopy(right))), "brackets"


def _places(function: ast.FunctionDef) -> dict[int, tuple[ast.AST, str, int | None]]:
    """Where each node of ``function`` hangs: its parent, the parent's field, and the index in that field's list."""
    places = {}
    for parent in ast.walk(function):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list):
                places.update((id(child), (parent, name, index)) for index, child in enumerate(value)
                              if isinstance(child, ast.AST))
            elif isinstance(value, ast.AST):
                places[id(value)] = (parent, name, None)
    return places


@contextlib.contextmanager
def applied(edit: Edit) -> Iterator[None]:
    """The edit made in its function's tree for the time of the block (to compile it), then undone."""
    parent, name, index = edit.place
    if index is None:
        original = getattr(parent, name)
        setattr(parent, name, edit.replacement)
    else:
        original = getattr(parent, name)[index]
        getattr(parent, name)[index] = edit.replacement
    try:
        yield
    finally:
        if index is None:
            setattr(parent, name, original)
        else:
            getattr(parent, name)[index] = original


def edits(function: ast.FunctionDef, numpy: str | None = "np") -> Iterator[Edit]:
    """Every single edit of ``function`` (decorators and docstring already removed), with how it is shown; make one
    with :func:`applied`. ``numpy`` is the name numpy has where the function is defined (None: no wrapping)."""
    skipped = _guarded(function)
    names = _local_names(function)
    parents = _parents(function)
    places = _places(function)
    for node in list(ast.walk(function)):
        if id(node) in skipped or node is function or not isinstance(node, ast.expr) or id(node) not in places:
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            continue
        shown = _shown(node, parents)
        for replacement, kind in _replacements(node, names, numpy):
            ast.fix_missing_locations(ast.copy_location(replacement, node))
            after = replacement if shown is node else _replace_in(shown, node, replacement)
            for depth in range(SHOWN_DEPTH, DEEPEST_SHOWN + 1):  # deeper until the change shows
                was, becomes = abbreviated(shown, depth), abbreviated(after, depth)
                if was != becomes:
                    yield Edit(places[id(node)], replacement, was, becomes, kind, getattr(node, "lineno", 0))
                    break


def _replace_in(expression: ast.AST, target: ast.AST, replacement: ast.AST) -> ast.AST:
    """A copy of ``expression`` (which holds ``target``) with ``target`` replaced."""

    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if node is target:
                return replacement
            return self.generic_visit(node)

    return Swap().visit(copy.deepcopy(expression, {id(target): target}))
