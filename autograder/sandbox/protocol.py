"""The wire format between the grader and the sandboxed worker.

A *message* is one frame::

    MAGIC (4 bytes) | header length (uint32) | array count (uint32) | header (UTF-8 JSON)
    then, per array: array length (uint64) | the array

and an array is::

    dtype code length (uint8) | dtype code (ASCII, e.g. ``<f8``) | ndim (uint8)
    | shape (ndim x uint64) | the values, C order

(all integers big-endian). A dtype code is read only when it is a plain type code, its
kind must be an accepted one, and the values must fill exactly what the shape promises;
the values are then copied out of the bytes. Nothing from the other side is ever
unpickled or evaluated. The reader bounds every length before it allocates, which keeps
a hostile worker from making the grader allocate unbounded memory.

Values inside a header (arguments, results) are encoded by :mod:`~autograder.sandbox.wire_values`.

The worker imports this module too, so it depends on the standard library and numpy only.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

#: First bytes of every frame; a mismatch means the stream is out of step.
MAGIC = b"ATN1"
#: Frame prefix after MAGIC: header length and array count, big-endian uint32 each.
_PREFIX = struct.Struct("!II")
#: Length prefix of each array, big-endian uint64.
_ARRAY_LENGTH = struct.Struct("!Q")
#: An array's dtype code length and its number of dimensions: one byte each.
_CODE_LENGTH = struct.Struct("!B")
_NDIM = struct.Struct("!B")
#: What a dtype code may look like: byte order, kind letter, size, and a datetime unit
#: (parsed only so such an array is refused by its kind, with its name).
_DTYPE_CODE = re.compile(r"[<>|=][a-zA-Z][0-9]{0,3}(\[[a-z]{1,2}\])?")

KIB = 1024
MIB = KIB * KIB

#: Largest JSON header accepted from the other side.
MAX_HEADER_BYTES = 1 * MIB
#: Largest single ``.npy`` payload accepted from the other side.
MAX_ARRAY_BYTES = 256 * MIB
#: Largest sum of all payloads of one message.
MAX_MESSAGE_BYTES = 512 * MIB
#: Most arrays one message may carry.
MAX_ARRAYS = 256
#: Deepest nesting of tuples and lists inside a value.
MAX_NESTING = 32

#: dtype kinds a result may have: bool, signed and unsigned integers, floats.
RESULT_KINDS = "biuf"
#: dtype kinds an argument may have (the grader's own inputs; complex allowed).
ARGUMENT_KINDS = "biufc"

#: Failure kinds the worker may report; each equals the ``kind`` of an
#: :class:`autograder.errors.SubmissionError` subclass.
KIND_NOT_IMPLEMENTED = "not_implemented"
KIND_EXCEPTION = "exception"
KIND_BAD_RETURN = "bad_return"
KIND_LOAD_FAILED = "load_failed"
KIND_MISSING_FUNCTION = "missing_function"
WORKER_KINDS = (KIND_NOT_IMPLEMENTED, KIND_EXCEPTION, KIND_BAD_RETURN, KIND_LOAD_FAILED, KIND_MISSING_FUNCTION)


class Op(StrEnum):
    """Operations the grader asks of a worker; the worker's greeting, and what a stand-in asks of the grader."""

    HELLO = "hello"
    LOAD = "load"
    CALL = "call"
    PING = "ping"
    REFERENCE = "reference"  # worker -> grader, during a call with stand-ins only (autograder.sandbox.standin)
    RUNNING = "running"  # worker -> grader, before a call's limit: the student's function it is in (sandbox.running)


class ProtocolError(Exception):
    """A frame is malformed, out of step, or larger than the limits allow."""


class RejectedArray(ProtocolError):
    """A well-formed array that may not cross: wrong dtype or too large.

    Attributes
    ----------
    reason : str
        Plain description, safe to show a student, e.g. ``"complex128 values"``.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    """Bounds a reader enforces before allocating anything.

    Attributes
    ----------
    max_header_bytes, max_array_bytes, max_message_bytes, max_arrays : int
        See the module constants of the same names.
    kinds : str
        Accepted ``dtype.kind`` letters.
    """

    max_header_bytes: int = MAX_HEADER_BYTES
    max_array_bytes: int = MAX_ARRAY_BYTES
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_arrays: int = MAX_ARRAYS
    kinds: str = RESULT_KINDS


@dataclass
class Message:
    """One decoded frame: a JSON header and the arrays it refers to by index."""

    header: dict
    arrays: list[np.ndarray] = field(default_factory=list)


def describe_dtype(dtype: np.dtype) -> str:
    """Name a dtype for a message, e.g. ``"complex128"`` or ``"object"``."""
    if dtype.fields is not None:
        return "structured (record)"
    return str(dtype)


def check_dtype(dtype: np.dtype, kinds: str) -> None:
    """Accept only plain numeric dtypes of the given kinds.

    Raises
    ------
    RejectedArray
        For object, complex (unless allowed), string, structured or sub-array dtypes.
    """
    plain = dtype.fields is None and dtype.subdtype is None and not dtype.hasobject
    if not plain or dtype.kind not in kinds:
        raise RejectedArray(f"{describe_dtype(dtype)} values")


def encode_array(array: np.ndarray) -> bytes:
    """The wire bytes of ``array`` (see the module docstring; never pickled).

    Raises
    ------
    ValueError
        For object and structured arrays, which have no plain type code.
    """
    array = np.asarray(array)  # not ascontiguousarray: it turns a 0-d array into a 1-d one
    code = array.dtype.str.encode("ascii")
    if array.dtype.hasobject or array.dtype.fields is not None or not _DTYPE_CODE.fullmatch(array.dtype.str):
        raise ValueError(f"cannot send {describe_dtype(array.dtype)} values")
    shape = struct.pack(f"!{array.ndim}Q", *array.shape)
    return b"".join((_CODE_LENGTH.pack(len(code)), code, _NDIM.pack(array.ndim), shape, array.tobytes(order="C")))


def _array_header(data: bytes) -> tuple[np.dtype, tuple[int, ...], int]:
    """(dtype, shape, offset of the values) of one array's bytes.

    Raises
    ------
    ProtocolError
        When the header is truncated or its dtype code is not a plain type code.
    """
    try:
        (code_length,) = _CODE_LENGTH.unpack_from(data, 0)
        code = data[_CODE_LENGTH.size:_CODE_LENGTH.size + code_length].decode("ascii")
        offset = _CODE_LENGTH.size + code_length
        (ndim,) = _NDIM.unpack_from(data, offset)
        shape = struct.unpack_from(f"!{ndim}Q", data, offset + _NDIM.size)
    except (struct.error, UnicodeDecodeError) as error:
        raise ProtocolError(f"malformed array header: {error}") from None
    if not _DTYPE_CODE.fullmatch(code):
        raise ProtocolError(f"malformed array header: dtype code {code!r}")
    try:
        dtype = np.dtype(code)
    except TypeError as error:
        raise ProtocolError(f"malformed array header: {error}") from None
    return dtype, shape, offset + _NDIM.size + 8 * ndim


def decode_array(data: bytes, kinds: str = RESULT_KINDS) -> np.ndarray:
    """Read one array after checking its dtype and its exact size.

    Raises
    ------
    RejectedArray
        When the dtype is not one of ``kinds``.
    ProtocolError
        When the payload is malformed or its length does not match its header.
    """
    dtype, shape, offset = _array_header(data)
    check_dtype(dtype, kinds)
    expected = offset + math.prod(shape) * dtype.itemsize
    if expected != len(data):
        raise ProtocolError(f"array payload has {len(data)} bytes, its header promises {expected}")
    try:
        return np.frombuffer(data, dtype, offset=offset, count=math.prod(shape)).reshape(shape).copy()
    except ValueError as error:  # e.g. more dimensions than numpy has
        raise ProtocolError(f"unreadable array: {error}") from None


def encode_message(header: dict, arrays: list[np.ndarray] | tuple[np.ndarray, ...] = ()) -> bytes:
    """One frame carrying ``header`` and ``arrays``.

    Raises
    ------
    ValueError
        When ``header`` contains something JSON cannot represent, or an array is an object array.
    """
    header_bytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    parts = [MAGIC, _PREFIX.pack(len(header_bytes), len(arrays)), header_bytes]
    for array in arrays:
        payload = encode_array(array)
        parts += [_ARRAY_LENGTH.pack(len(payload)), payload]
    return b"".join(parts)


def _check_length(what: str, length: int, limit: int) -> None:
    if length > limit:
        raise RejectedArray(f"{what} of {length} bytes (the limit is {limit})")


def _decode_header(data: bytes) -> dict:
    try:
        header = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ProtocolError(f"header is not JSON: {error}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header


def read_message(read_exact: Callable[[int], bytes], limits: Limits = Limits()) -> Message:
    """Read one frame, bounding every length before reading what it announces.

    Parameters
    ----------
    read_exact : callable
        ``read_exact(n)`` returns exactly ``n`` bytes or raises.
    limits : Limits
        Bounds and accepted dtype kinds.

    Raises
    ------
    RejectedArray
        An array with a refused dtype, or a frame part over its limit.
    ProtocolError
        Anything else malformed.
    """
    if read_exact(len(MAGIC)) != MAGIC:
        raise ProtocolError("frame does not start with the protocol magic")
    header_length, count = _PREFIX.unpack(read_exact(_PREFIX.size))
    if header_length > limits.max_header_bytes:
        raise ProtocolError(f"header of {header_length} bytes (the limit is {limits.max_header_bytes})")
    if count > limits.max_arrays:
        raise RejectedArray(f"{count} arrays in one message (the limit is {limits.max_arrays})")
    header = _decode_header(read_exact(header_length))
    arrays, total = [], 0
    for _ in range(count):
        (length,) = _ARRAY_LENGTH.unpack(read_exact(_ARRAY_LENGTH.size))
        _check_length("an array", length, limits.max_array_bytes)
        total += length
        _check_length("a message", total, limits.max_message_bytes)
        arrays.append(decode_array(read_exact(length), limits.kinds))
    return Message(header, arrays)
