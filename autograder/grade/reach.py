"""Which modules a submission's attribute chains reach, read in the grader's own copy of the allowed modules.

``import dataclasses`` is allowed, yet ``dataclasses.inspect.os`` is the module ``os``: an
allowed module holds others as attributes. Every name an import of an allowed module binds is
looked up, attribute by attribute, in the grader's own (trusted) import of that module, and so
is every alias of it the source shows: assignments and unpacking (``m = dataclasses``), loop,
comprehension and ``with`` targets, default values, the arguments of calls to the submission's
own functions and what they return, attributes and items set on objects. A container stands
for everything put in it (``[dataclasses][0]``), a call for its function and its arguments (it
may return any of them), an attribute for every value bound to that name anywhere: the analysis
may see more than the run does, never less of what it can see. A chain whose base it cannot
read (a value passed in a way it does not follow) still counts when its attribute is one of
:data:`ESCAPE_NAMES`, the names under which the standard library holds the modules that reach
the process or the interpreter.

Nothing of the submission runs. Attributes of modules of the allowed packages are read with
``getattr``, so their lazy submodules load as they would in the student's run (``np.testing``);
other modules are read from their namespace only, other objects with
:func:`inspect.getattr_static`: no property or ``__getattr__`` of theirs runs.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import warnings
from collections import deque
from types import ModuleType

#: An attribute name -> the module it names, for chains whose base cannot be read: ``f(m).os``.
ESCAPE_NAMES = {
    "os": "os", "_os": "os", "posix": "posix", "sys": "sys", "_sys": "sys", "builtins": "builtins",
    "subprocess": "subprocess", "_posixsubprocess": "_posixsubprocess", "importlib": "importlib", "_imp": "_imp",
    "inspect": "inspect", "shutil": "shutil", "ctypes": "ctypes", "socket": "socket", "runpy": "runpy",
    "multiprocessing": "multiprocessing", "pty": "pty",
}
#: Nesting of an expression the alias analysis reads (deeper parts are values it cannot read).
MAX_DEPTH = 100
#: Expressions the alias analysis reads, per expression of one reading of every binding site (and a floor), before
#: it stops where it is: its time stays linear in the source's (a chain not followed by then is a base it cannot read).
VISITS_PER_NODE, VISITS_FLOOR = 8, 100_000
_MISSING = object()
#: The key under which what a function named ``f`` returns is kept (no identifier starts with "()").
_RETURNS = "()"

Values = dict[int, object]  # the objects an expression may be, by id


def reached_modules(nodes: tuple[ast.AST, ...], allowed: tuple[str, ...]):
    """(top-level module name, line) for each attribute, import or literal ``getattr`` reaching a module outside ``allowed``.

    Parameters
    ----------
    nodes : tuple of ast.AST
        Every node of the submission's tree (``ast.walk`` order: a node before its children).
    allowed : tuple of str
        The course's allowed top-level modules; those the grader cannot import reach nothing.

    Returns
    -------
    iterator of (str, int)
        ``builtins`` stands for the builtins module; one pair per access and module.
    """
    reader = _Reader(allowed)
    env, reached = reader.import_bindings(nodes)
    reader.solve(env, _sites(nodes))
    reader.settled = {}  # env no longer changes: a set of values and an attribute name give one answer
    memo: dict[int, Values] = {}
    for node in reversed(nodes):  # children first: each chain is read once, however long
        kind = type(node)
        if kind is ast.Attribute or kind is ast.Call and _literal_getattr(node) is not None:
            memo[id(node)] = found = reader.values(node, env, memo)
            reached += [(name, node.lineno) for name in reader.outside(found)]
            if kind is ast.Attribute and not found and node.attr in ESCAPE_NAMES and type(node.ctx) is ast.Load:
                reached.append((ESCAPE_NAMES[node.attr], node.lineno))
    yield from reached


def _literal_getattr(node: ast.Call) -> str | None:
    """The attribute name of ``getattr(x, "name"[, default])``, else None."""
    if getattr(node.func, "id", None) == "getattr" and len(node.args) in (2, 3) and not node.keywords:
        name = node.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str) and not any(
                isinstance(arg, ast.Starred) for arg in node.args):
            return name.value
    return None


def _literal_import(node: ast.Call) -> str | None:
    """The module name of ``__import__("name")`` (whose value is the top-level package), else None."""
    if getattr(node.func, "id", None) == "__import__" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
        return node.args[0].value if isinstance(node.args[0].value, str) else None
    return None


def _target_names(target) -> list[str]:
    """The keys a binding target writes: a name, an attribute's name, the names in a container or subscript."""
    names, todo = [], [target]
    while todo:  # not recursive: ``x[0][0]...[0] = m`` may be thousands deep
        target = todo.pop()
        if isinstance(target, str):
            names.append(target)
        elif isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Attribute):
            names.append(target.attr)
        elif isinstance(target, (ast.Subscript, ast.Starred)):
            todo.append(target.value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            todo += target.elts
    return names


def _parameters(arguments: ast.arguments) -> tuple[list[str], list[str]]:
    """(positional parameter names, every parameter name) of a function."""
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    rest = [a.arg for a in [*arguments.kwonlyargs, arguments.vararg, arguments.kwarg] if a is not None]
    return positional, positional + rest


def _defaults(node):
    """(parameter, default value) of a function or lambda."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    yield from zip((a.arg for a in positional[len(positional) - len(arguments.defaults):]), arguments.defaults)
    yield from ((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)


#: The nodes that bind a value (the others are skipped at once: a long module has millions of nodes).
_BINDING = frozenset({ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension,
                      ast.withitem, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})


def _sites(nodes: tuple[ast.AST, ...]) -> list[tuple[list[str], ast.expr]]:
    """Every place a value is bound: (the keys it writes, the expression it comes from)."""
    sites, functions = [], {}
    for node in nodes:
        kind = type(node)
        if kind not in _BINDING:
            continue
        if kind is ast.Assign:
            sites += [(_target_names(target), node.value) for target in node.targets]
        elif kind in (ast.AnnAssign, ast.NamedExpr, ast.AugAssign) and node.value is not None:
            sites.append((_target_names(node.target), node.value))
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
            sites.append((_target_names(node.target), node.iter))
        elif kind is ast.withitem and node.optional_vars is not None:
            sites.append((_target_names(node.optional_vars), node.context_expr))
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            sites += [([name], default) for name, default in _defaults(node)]
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            functions.setdefault(node.name, []).append(_parameters(node.args))
            sites += [([_RETURNS + node.name], inner.value) for inner in ast.walk(node)
                      if type(inner) in (ast.Return, ast.Yield, ast.YieldFrom) and inner.value is not None]
    return sites + list(_call_sites(nodes, functions)) if functions else sites


def _call_sites(nodes: tuple[ast.AST, ...], functions: dict):
    """(parameters, argument) for each call of a function the submission defines (a method's ``self`` either way)."""
    for node in nodes:
        if type(node) is not ast.Call:
            continue
        for positional, every in functions.get(_called(node), ()):
            for index, argument in enumerate(node.args):
                names = every if type(argument) is ast.Starred else positional[index:index + 2] or every
                yield names, argument
            for keyword in node.keywords:
                yield ([keyword.arg] if keyword.arg in every else every), keyword.value


class _Reader:
    """The grader's own copy of the allowed modules, read attribute by attribute (each lookup once)."""

    def __init__(self, allowed: tuple[str, ...]):
        self.allowed = frozenset(allowed)
        self.roots = {name: module for name in allowed if (module := _trusted_import(name)) is not None}
        self._members: dict[tuple[int, str], object] = {}
        self._kept: list[object] = []  # keeps every object looked up alive, so no id is reused
        self.visits = 0
        self.reads: set[str] | None = None  # while a site is read the first time: the keys it looks up
        self._read: dict[int, set[str]] = {}
        self.settled: dict[tuple[int, str], tuple[Values, Values]] | None = None

    def member(self, owner: object, name: str) -> object:
        """``owner.name`` in the grader's copy, or ``_MISSING``."""
        key = (id(owner), name)
        if key not in self._members:
            self._members[key] = found = _lookup(owner, name, self.allowed)
            self._kept += [owner, found]
        return self._members[key]

    def members(self, owners: Values, name: str) -> Values:
        """``owner.name`` for every owner that has it; once the analysis is settled, the same answer for the same set."""
        if not owners:
            return _NONE
        key = (id(owners), name)
        if self.settled is not None and key in self.settled:
            return self.settled[key][1]
        found = (self.member(owner, name) for owner in owners.values())
        found = {id(value): value for value in found if value is not _MISSING}
        if self.settled is not None:
            self.settled[key] = (owners, found)  # keeps the set alive with its answer: its id is not reused
        return found

    def outside(self, found: Values) -> list[str]:
        """The top-level names of the modules among ``found`` outside the allowed list (``builtins`` always)."""
        names = [_module_name(value).partition(".")[0] for value in found.values() if isinstance(value, ModuleType)]
        return [name for name in names if name == "builtins" or name not in self.allowed]

    def import_bindings(self, nodes: tuple[ast.AST, ...]) -> tuple[dict[str, Values], list[tuple[str, int]]]:
        """The names the imports of allowed modules bind, and what a ``from`` import reaches outside the list."""
        env: dict[str, Values] = {}
        reached: list[tuple[str, int]] = []
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    value = self.dotted(parts if alias.asname else parts[:1])
                    if value is not _MISSING:
                        env.setdefault(alias.asname or parts[0], {})[id(value)] = value
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                base = self.dotted(node.module.split("."))
                if base is _MISSING:
                    continue
                for name, value in self._imported(base, node.module, node.names):
                    env.setdefault(name, {})[id(value)] = value
                    reached += [(module, node.lineno) for module in self.outside({id(value): value})]
        return env, reached

    def _imported(self, base: object, module: str, aliases: list[ast.alias]):
        """(bound name, value) for the names of ``from module import ...``."""
        for alias in aliases:
            if alias.name == "*":
                public = getattr(base, "__all__", None) or [n for n in vars(base) if not n.startswith("_")]
                found = ((name, self.member(base, name)) for name in public if isinstance(name, str))
            else:
                value = self.member(base, alias.name)
                found = [(alias.asname or alias.name, sys.modules.get(f"{module}.{alias.name}", _MISSING)
                          if value is _MISSING else value)]
            yield from ((name, value) for name, value in found if value is not _MISSING)

    def dotted(self, parts: list[str]) -> object:
        """The module (or attribute) ``a.b.c`` of an allowed package, without importing anything by that name."""
        value = self.roots.get(parts[0], _MISSING)
        for depth, name in enumerate(parts[1:], start=2):
            if value is _MISSING:
                break
            found = self.member(value, name)
            value = sys.modules.get(".".join(parts[:depth]), _MISSING) if found is _MISSING else found
        return value

    def solve(self, env: dict[str, Values], sites: list[tuple[list[str], ast.expr]]) -> None:
        """Grow ``env`` with what every binding site may bind, until nothing changes (or the budget is spent).

        A site is read again only when a key it read grows; the keys are those its first reading
        looked up. The budget is :data:`VISITS_PER_NODE` times the cost of reading every site once.
        """
        readers: dict[str, list[int]] = {}
        queue, queued = deque(range(len(sites))), set(range(len(sites)))
        budget = self.visits + VISITS_FLOOR
        while queue and self.visits < budget:
            index = queue.popleft()
            queued.discard(index)
            names, expression = sites[index]
            first, before = index not in self._read, self.visits
            self.reads = self._read.setdefault(index, set()) if first else None
            found = self.values(expression, env, {})
            if first:
                budget += VISITS_PER_NODE * (self.visits - before)
                for key in self.reads:
                    readers.setdefault(key, []).append(index)
            for name in names if found else ():
                slot = env.setdefault(name, {})
                if found.keys() - slot.keys():
                    slot.update(found)
                    fresh = [i for i in readers.get(name, ()) if i not in queued]
                    queue.extend(fresh)
                    queued.update(fresh)
        self.reads = None

    def values(self, node: ast.expr, env: dict[str, Values], memo: dict[int, Values], depth: int = 0) -> Values:
        """The objects of the allowed modules ``node`` may be (empty: none that the analysis can see)."""
        self.visits += 1
        kind = type(node)
        if kind is ast.Name:
            if self.reads is not None:
                self.reads.add(node.id)
            return env.get(node.id, _NONE)
        if id(node) in memo:
            return memo[id(node)]
        if depth > MAX_DEPTH or kind in _OPAQUE:
            return _NONE
        if self.reads is not None and kind in (ast.Attribute, ast.Call):
            self.reads.add(node.attr if kind is ast.Attribute else _RETURNS + (_called(node) or ""))
        if kind is ast.Attribute:
            found = self.members(self.values(node.value, env, memo, depth + 1), node.attr)
            bound = env.get(node.attr, _NONE)
            return {**bound, **found} if bound else found
        if kind is ast.Call:
            return self._call_values(node, env, memo, depth)
        found: Values = {}
        for child in _value_children(node):
            found.update(self.values(child, env, memo, depth + 1))
        return found

    def _call_values(self, node: ast.Call, env: dict[str, Values], memo: dict[int, Values], depth: int) -> Values:
        """A literal ``getattr``'s attribute; else the function, its arguments, what it returns (if the source has it)."""
        name = _literal_getattr(node)
        if name is not None:
            found = self.members(self.values(node.args[0], env, memo, depth + 1), name)
            return {**found, **(self.values(node.args[2], env, memo, depth + 1) if len(node.args) == 3 else _NONE)}
        found = dict(env.get(_RETURNS + (_called(node) or ""), _NONE))
        imported = self.roots.get((_literal_import(node) or "").partition(".")[0], _MISSING)
        if imported is not _MISSING:
            found[id(imported)] = imported
        for child in [node.func, *node.args, *(keyword.value for keyword in node.keywords)]:
            found.update(self.values(child, env, memo, depth + 1))
        return found


#: Expressions whose value is never an object the analysis follows (numbers, strings, comparisons).
_OPAQUE = frozenset({ast.Constant, ast.Compare, ast.UnaryOp, ast.JoinedStr, ast.FormattedValue})
_NONE: Values = {}


def _value_children(node: ast.expr) -> list[ast.expr]:
    """The parts of an expression its value may be one of: a container's items, a subscript's container..."""
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, ast.Lambda):
        return [node.body]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt]
    if isinstance(node, ast.DictComp):
        return [node.key, node.value]
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]


def _called(node: ast.Call) -> str | None:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", None)


def _trusted_import(name: str) -> ModuleType | None:
    """The grader's own import of an allowed top-level module (a name from the course file), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a module the grader cannot import reaches nothing here
        return None


def _module_name(module: ModuleType) -> str:
    name = vars(module).get("__name__")
    return name if isinstance(name, str) else ""


def _lookup(owner: object, name: str, allowed: frozenset[str]) -> object:
    """``owner.name`` without running code outside the allowed packages (see the module's docstring)."""
    try:
        if isinstance(owner, ModuleType):
            if _module_name(owner).partition(".")[0] not in allowed:
                return vars(owner).get(name, _MISSING)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return getattr(owner, name)
        return inspect.getattr_static(owner, name)
    except Exception:  # noqa: BLE001 - AttributeError, or whatever a lazy attribute of the trusted copy raises
        return _MISSING
