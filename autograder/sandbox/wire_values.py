"""Values on the wire: arguments and results inside a frame's JSON header (see :mod:`~autograder.sandbox.protocol`).

Values inside a header are plain JSON (``None``, bools, ints, floats, strings) or tagged
objects: ``{"t": "array", "i": 0}`` (the first array of the message), ``{"t": "scalar",
"i": 0}`` (a numpy scalar, sent as a 0-d array), ``{"t": "tuple", "v": [...]}``,
``{"t": "list", "v": [...]}`` and ``{"t": "rng", "seed": 7}`` (a fresh
``np.random.default_rng(7)`` on the receiving side).
``{"t": "rng_state", "state": {...}}`` is a generator continuing a PCG64 stream.

The worker imports this module too, so it depends on the standard library and numpy only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

if __package__:
    from .protocol import MAX_NESTING, ProtocolError
else:  # inside the sandbox, beside the worker
    from protocol import MAX_NESTING, ProtocolError

_TAG_ARRAY = "array"
_TAG_SCALAR = "scalar"
_TAG_TUPLE = "tuple"
_TAG_LIST = "list"
_TAG_RNG = "rng"
_TAG_RNG_STATE = "rng_state"
#: Bit generators whose state is plain JSON (integers), so it can travel to the worker.
SENDABLE_BIT_GENERATORS = ("PCG64", "PCG64DXSM")


def generator_state(generator: np.random.Generator) -> dict:
    """The JSON-safe state of a generator, so the worker can continue the same stream.

    Raises
    ------
    TypeError
        For bit generators whose state holds arrays (only PCG64-style ones are sent).
    """
    state = generator.bit_generator.state
    if state.get("bit_generator") not in SENDABLE_BIT_GENERATORS:
        raise TypeError(f"cannot send a {state.get('bit_generator')} generator to the sandbox")
    return state


def generator_from_state(state: dict) -> np.random.Generator:
    """A generator continuing from ``state`` (see :func:`generator_state`).

    Raises
    ------
    ProtocolError
        For an unknown bit generator or a malformed state.
    """
    name = state.get("bit_generator")
    if name not in SENDABLE_BIT_GENERATORS:
        raise ProtocolError(f"unknown bit generator {name!r}")
    bit_generator = getattr(np.random, name)()
    try:
        bit_generator.state = state
    except (TypeError, ValueError, KeyError) as error:
        raise ProtocolError(f"malformed generator state: {error}") from None
    return np.random.Generator(bit_generator)


def encode_value(value, arrays: list[np.ndarray], seed_of: Callable[[object], int | None] | None = None, depth: int = 0):
    """The JSON form of an argument, appending its arrays to ``arrays``.

    Parameters
    ----------
    value : object
        An ndarray, numpy scalar, None, bool, int, float, str, a ``np.random.Generator``
        (sent as its state), a tuple/list of these, or whatever ``seed_of`` recognises
        as a random generator seed.
    arrays : list
        Receives the arrays the result refers to by index.
    seed_of : callable, optional
        Returns the seed of a value that stands for ``np.random.default_rng(seed)``, else None.

    Raises
    ------
    TypeError
        For any other value (a dict, an arbitrary object).
    """
    if depth > MAX_NESTING:
        raise TypeError(f"arguments nest deeper than {MAX_NESTING} levels")
    seed = seed_of(value) if seed_of is not None else None
    if seed is not None:
        return {"t": _TAG_RNG, "seed": int(seed)}
    if isinstance(value, np.random.Generator):
        return {"t": _TAG_RNG_STATE, "state": generator_state(value)}
    if isinstance(value, (np.ndarray, np.generic)):
        arrays.append(np.asarray(value))
        return {"t": _TAG_ARRAY if isinstance(value, np.ndarray) else _TAG_SCALAR, "i": len(arrays) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        tag = _TAG_TUPLE if isinstance(value, tuple) else _TAG_LIST
        return {"t": tag, "v": [encode_value(v, arrays, seed_of, depth + 1) for v in value]}
    raise TypeError(f"cannot send a {type(value).__name__} to the sandbox")


def _array_at(node: dict, arrays: list[np.ndarray]) -> np.ndarray:
    index = node.get("i")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(arrays):
        raise ProtocolError(f"array reference {index!r} out of range")
    return arrays[index]


def decode_value(node, arrays: list[np.ndarray], depth: int = 0):
    """Inverse of :func:`encode_value`; seeds become fresh generators.

    Raises
    ------
    ProtocolError
        For an unknown tag, a bad array reference, or nesting beyond :data:`MAX_NESTING`.
    """
    if depth > MAX_NESTING:
        raise ProtocolError(f"value nests deeper than {MAX_NESTING} levels")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if not isinstance(node, dict):
        raise ProtocolError(f"unexpected {type(node).__name__} in a value")
    tag = node.get("t")
    if tag == _TAG_ARRAY:
        return _array_at(node, arrays)
    if tag == _TAG_SCALAR:
        return _array_at(node, arrays)[()]
    if tag in (_TAG_TUPLE, _TAG_LIST) and isinstance(node.get("v"), list):
        items = [decode_value(v, arrays, depth + 1) for v in node["v"]]
        return tuple(items) if tag == _TAG_TUPLE else items
    if tag == _TAG_RNG and isinstance(node.get("seed"), int):
        return np.random.default_rng(node["seed"])
    if tag == _TAG_RNG_STATE and isinstance(node.get("state"), dict):
        return generator_from_state(node["state"])
    raise ProtocolError(f"unknown value tag {tag!r}")


def encode_result(result: np.ndarray | tuple[np.ndarray, ...], arrays: list[np.ndarray]) -> dict:
    """The JSON form of a converted result: one array or a tuple of arrays."""
    if isinstance(result, tuple):
        return {"t": _TAG_TUPLE, "v": [encode_result(r, arrays) for r in result]}
    arrays.append(result)
    return {"t": _TAG_ARRAY, "i": len(arrays) - 1}


def decode_result(node, arrays: list[np.ndarray]) -> np.ndarray | tuple[np.ndarray, ...]:
    """A result as the grader accepts it: one array or a flat tuple of arrays.

    Raises
    ------
    ProtocolError
        For anything else (nested tuples, plain JSON values, unknown tags).
    """
    if isinstance(node, dict) and node.get("t") == _TAG_TUPLE and isinstance(node.get("v"), list):
        return tuple(_decode_result_array(v, arrays) for v in node["v"])
    return _decode_result_array(node, arrays)


def _decode_result_array(node, arrays: list[np.ndarray]) -> np.ndarray:
    if not isinstance(node, dict) or node.get("t") != _TAG_ARRAY:
        raise ProtocolError("a result must be an array or a tuple of arrays")
    return _array_at(node, arrays)
