"""What the worker sends back about a call: failures as catalog messages, the result as plain arrays, what else it did.

Runs inside the sandbox with the worker (:mod:`autograder.sandbox.worker`): only the standard
library and numpy are imported here.
"""

from __future__ import annotations

import numpy as np

if __package__:
    from . import protocol
else:  # inside the sandbox, beside the worker
    import protocol

#: Longest traceback sent back, in characters (the end is kept).
MAX_TRACEBACK_CHARS = 4000
#: Longest excerpt of a returned string quoted in a message.
MAX_QUOTE_CHARS = 60


def N_(template: str) -> str:
    """Mark ``template`` as an entry of the grader's message catalog (autograder/i18n); returns it unchanged."""
    return template


def said(template: str, **facts) -> dict:
    """A catalog message as the grader reads it back (``{"msgid", "facts"}``; a fact may be such a message too)."""
    return {"msgid": template, "facts": facts}


def english(message: dict | str) -> str:
    """The English text of a :func:`said` message (text as it is)."""
    if not isinstance(message, dict):
        return message
    return message["msgid"].format(**{name: english(fact) for name, fact in message["facts"].items()})


class Failure(Exception):
    """A failure to report to the grader as ``{kind, type, message}``, with ``said`` for a catalog message.

    ``message`` is text (a traceback) or a :func:`said` message, which the grader shows in the
    student's language.
    """

    def __init__(self, kind: str, message: dict | str, type_name: str = "", raised_in: str = ""):
        super().__init__(english(message))
        self.raised_in = raised_in  # the student's function whose own line raised, when known
        self.kind = kind
        self.message = english(message)
        self.said = message if isinstance(message, dict) else None
        self.type_name = type_name


def truncate(text: str, limit: int = MAX_TRACEBACK_CHARS) -> str:
    """Keep the last ``limit`` characters of ``text`` (where tracebacks end)."""
    if len(text) <= limit:
        return text
    return "[... truncated ...]\n" + text[-limit:]


# --- results -------------------------------------------------------------------------


def _bad_return(message: dict) -> Failure:
    return Failure(protocol.KIND_BAD_RETURN, message)


def _refuse_plain(value, what: str) -> None:
    """Refuse values that np.asarray would happily turn into something useless."""
    if value is None:
        raise _bad_return(said(N_("{what} is None: did the function forget to `return` its result?"), what=what))
    if isinstance(value, (str, bytes)):
        raise _bad_return(said(N_("{what} is a {type} ({quote}), not an array"), what=what, type=type(value).__name__,
                               quote=repr(value[:MAX_QUOTE_CHARS])))
    if isinstance(value, dict):
        raise _bad_return(said(N_("{what} is a dict, not an array"), what=what))


def as_numeric_array(value, what: dict) -> np.ndarray:
    """``value`` as a plain ndarray of bool, int or float values.

    ``np.asarray`` returns the base class, so subclasses (matrix, masked arrays) arrive
    as plain arrays.

    Raises
    ------
    Failure
        ``bad_return`` naming what was returned.
    """
    _refuse_plain(value, what)
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - student objects may raise anything
        raise _bad_return(said(N_("{what} ({type}) cannot be turned into an array: {error}"), what=what,
                               type=type(value).__name__, error=f"{type(error).__name__}: {error}")) from None
    if array.dtype.hasobject:
        raise _bad_return(said(N_("{what} ({type}) is not a numeric array"), what=what, type=type(value).__name__))
    try:
        protocol.check_dtype(array.dtype, protocol.RESULT_KINDS)
    except protocol.RejectedArray as error:
        raise _bad_return(said(N_("{what} has {reason}; return real numbers (float, int or bool)"), what=what,
                               reason=error.reason)) from None
    if array.nbytes > protocol.MAX_ARRAY_BYTES:
        raise _bad_return(said(N_("{what} has {size} bytes, more than the {limit} allowed"), what=what,
                               size=str(array.nbytes), limit=str(protocol.MAX_ARRAY_BYTES)))
    return array


def _elementwise(items, what: dict) -> tuple[np.ndarray, ...]:
    return tuple(as_numeric_array(v, said(N_("element {index} of {what}"), index=str(i), what=what))
                 for i, v in enumerate(items))


def convert_result(value) -> np.ndarray | tuple[np.ndarray, ...]:
    """A return value as one plain array or a tuple of plain arrays.

    A tuple is converted element by element. A list becomes one array when numpy can
    stack it, otherwise (e.g. arrays of different shapes) a tuple of its elements.

    Raises
    ------
    Failure
        ``bad_return`` for None, strings, dicts, objects, complex values, ...
    """
    if isinstance(value, tuple):
        return _elementwise(value, said(N_("the returned tuple")))
    if isinstance(value, list):
        try:
            return as_numeric_array(value, said(N_("the returned list")))
        except Failure:
            if value and all(isinstance(v, np.ndarray) for v in value):
                return _elementwise(value, said(N_("the returned list")))
            raise
    return as_numeric_array(value, said(N_("the return value")))


# --- what a call did besides returning ------------------------------------------------------


def _labelled_arrays(args: tuple, kwargs: dict):
    """``(label, array)`` for every array argument: ``"0"``, ``"1.2"`` (inside a tuple), ``"mask"``."""
    stack = [(str(i), value) for i, value in enumerate(args)] + [(str(k), v) for k, v in kwargs.items()]
    while stack:
        label, value = stack.pop()
        if isinstance(value, np.ndarray):
            yield label, value
        elif isinstance(value, (tuple, list)):
            stack += [(f"{label}.{i}", item) for i, item in enumerate(value)]


def input_snapshots(args: tuple, kwargs: dict) -> dict[str, np.ndarray]:
    """A private copy of every array argument, taken before the student's code sees it."""
    return {label: array.copy() for label, array in _labelled_arrays(args, kwargs)}


def modified_inputs(before: dict[str, np.ndarray], args: tuple, kwargs: dict) -> list[str]:
    """Labels of the array arguments whose shape or values the call changed in place."""
    after = dict(_labelled_arrays(args, kwargs))
    return sorted(
        label for label, copy in before.items()
        if label in after and not np.array_equal(copy, after[label], equal_nan=copy.dtype.kind in "fc")
    )


def _kind(value) -> str:
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, np.generic):
        return "numpy_scalar"
    if isinstance(value, (bool, int, float)):
        return "python_scalar"
    return type(value).__name__[:MAX_QUOTE_CHARS]


def returned_kinds(value) -> dict:
    """What kind of object came back: ``{"container": "tuple"|"list"|None, "parts": [kind, ...]}``."""
    if isinstance(value, (tuple, list)):
        return {"container": type(value).__name__, "parts": [_kind(v) for v in value][: protocol.MAX_ARRAYS]}
    return {"container": None, "parts": [_kind(value)]}
