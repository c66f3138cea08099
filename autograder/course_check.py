"""What ``attn-course config`` adds to validation: the values in effect, and allowed imports that exist.

Schema validation (:mod:`autograder.config`) accepts any module name in
``defaults.allowed_imports``; whether the module exists depends on the machine, so it is
checked here, where the instructor asks, rather than wherever a course file is read.
"""

from __future__ import annotations

import importlib.util
import sys

from pydantic import BaseModel

from autograder.config import SHOWN_DEFAULT, Course

#: Longest value shown for a key (lists of every assignment's values get long).
MAX_VALUE_CHARS = 120


def module_exists(name: str) -> bool:
    """Whether ``import name`` can find a module here (the standard library's are always known)."""
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def unknown_imports(names) -> list[str]:
    """The allowed imports that name no module that exists, in order."""
    return [name for name in names if not module_exists(name)]


def _values(node, parts: list[str]) -> list:
    """The values at a dotted path below ``node``; ``name[]`` steps into every item of a list."""
    if not parts:
        return [node]
    head, rest = parts[0], parts[1:]
    many = head.endswith("[]")
    value = getattr(node, head.removesuffix("[]"), None) if isinstance(node, BaseModel) else None
    if many:
        return [v for item in (value or ()) for v in _values(item, rest)]
    return _values(value, rest)


def _shown(value) -> str:
    if isinstance(value, BaseModel):
        return "(see keys below)"
    if isinstance(value, tuple) and value and isinstance(value[0], BaseModel):
        return f"({len(value)} items, see keys below)"
    return str(list(value)) if isinstance(value, tuple) else str(value)


def effective_value(course, key: str) -> str:
    """The value in effect of a dotted key of :func:`describe_schema` (a list for ``[]`` keys)."""
    values = _values(course, key.split("."))
    text = _shown(values[0]) if "[]" not in key and values else ", ".join(_shown(v) for v in values)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def describe_schema(model: type[BaseModel] | None = None, prefix: str = "") -> list[tuple[str, str, str]]:
    """Every key of the schema as ``(dotted key, default, description)`` rows."""
    model = Course if model is None else model
    rows = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        annotation = field.annotation
        nested = getattr(annotation, "__args__", (annotation,))[0] if "tuple" in str(annotation) else annotation
        default = "(required)" if field.is_required() else repr(field.get_default(call_default_factory=False))
        if field.default_factory is not None:
            made = field.default_factory()
            default = "(see keys below)" if isinstance(made, BaseModel) else repr(made)
        default = (field.json_schema_extra or {}).get(SHOWN_DEFAULT, default)
        rows.append((key, default, field.description or ""))
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            suffix = "[]." if "tuple" in str(annotation) else "."
            rows.extend(describe_schema(nested, f"{key}{suffix}"))
    return rows
