"""The module an in-notebook check runs on, rebuilt from the live kernel's definitions (source text only).

Each graded function the kernel defines, the functions and classes of the notebook it uses
(transitively, through the global names its code reads), the modules and imported names it
uses (as import statements), and the plain constants it reads (as literals). Each definition
comes from its own cell's source (``inspect.getsource``, which IPython makes possible); one
without source (made by ``exec``) is left out.
"""

from __future__ import annotations

import inspect
import textwrap
import types

#: Values of the notebook a rebuilt module may copy as literals.
_LITERALS = (bool, int, float, complex, str, bytes, type(None))


def _uses(code: types.CodeType) -> set[str]:
    """Every global name a function's code (and the code nested in it) may read."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _uses(constant)
    return names


def _defined_here(value) -> bool:
    return getattr(value, "__module__", None) == "__main__" and (inspect.isfunction(value) or inspect.isclass(value))


def _import_line(name: str, value) -> str | None:
    """How a module or an imported object is bound to ``name``, as an import statement (None: not one)."""
    if isinstance(value, types.ModuleType):
        return f"import {value.__name__}" if name == value.__name__ else f"import {value.__name__} as {name}"
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if module and module != "__main__" and qualname and "." not in qualname and (callable(value) or inspect.isclass(value)):
        return f"from {module} import {qualname}" + ("" if qualname == name else f" as {name}")
    return None


def _literal_line(name: str, value) -> str | None:
    if isinstance(value, _LITERALS) or (isinstance(value, tuple) and all(isinstance(v, _LITERALS) for v in value)):
        return f"{name} = {value!r}"
    return None


def kernel_source(namespace: dict, functions: tuple[str, ...]) -> str:
    """The module the checks run on: what the graded ``functions`` of ``namespace`` need, as source text.

    Parameters
    ----------
    namespace : dict
        The kernel's globals (``__main__``).
    functions : tuple of str
        The assignment's graded functions (those the kernel does not define are left out).

    Returns
    -------
    str
        Imports, constants, then the notebook's definitions, each from its own cell's source.
    """
    imports, literals, definitions, seen = [], [], [], set()
    pending = [name for name in functions if name in namespace]
    while pending:
        name = pending.pop(0)
        if name in seen or name not in namespace:
            continue
        seen.add(name)
        value = namespace[name]
        if _defined_here(value):
            try:
                definitions.append(textwrap.dedent(inspect.getsource(value)))
            except (OSError, TypeError):  # no source (defined by exec): nothing to check for it
                continue
            code = getattr(value, "__code__", None)
            pending += sorted(_uses(code)) if code is not None else sorted(vars(value))
        elif (line := _import_line(name, value) or _literal_line(name, value)) is not None:
            (imports if line.startswith(("import ", "from ")) else literals).append(line)
    return "\n".join([*imports, *literals, "", *definitions]) + "\n"
