"""The wire format: round trips, and what a hostile peer cannot make the grader do."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograder import errors
from autograder.inputs import RngSeed
from autograder.sandbox import protocol, wire_values

REAL_DTYPES = st.sampled_from(["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64", ">f8"])


def _reader(data: bytes, requested: list[int] | None = None):
    stream = io.BytesIO(data)

    def read_exact(size: int) -> bytes:
        if requested is not None:
            requested.append(size)
        chunk = stream.read(size)
        if len(chunk) != size:
            raise EOFError
        return chunk

    return read_exact


def _round_trip(header: dict, arrays, limits: protocol.Limits = protocol.Limits()) -> protocol.Message:
    return protocol.read_message(_reader(protocol.encode_message(header, arrays)), limits)


def _raw(code: str, shape: tuple[int, ...], payload: bytes = b"") -> bytes:
    """An array's wire bytes written by hand, for dtypes the grader would never send."""
    code_bytes = code.encode("ascii")
    return struct.pack("!B", len(code_bytes)) + code_bytes + struct.pack(f"!B{len(shape)}Q", len(shape), *shape) + payload


def _frame(header: bytes, payloads: list[bytes]) -> bytes:
    parts = [protocol.MAGIC, struct.pack("!II", len(header), len(payloads)), header]
    for payload in payloads:
        parts += [struct.pack("!Q", len(payload)), payload]
    return b"".join(parts)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(REAL_DTYPES, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
def test_arrays_round_trip_with_dtype_and_shape(array):
    message = _round_trip({"x": 1}, [array])
    (back,) = message.arrays
    assert type(back) is np.ndarray
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)


@pytest.mark.parametrize("array", [np.float64(3.5) * np.ones(()), np.zeros((0,)), np.zeros((3, 0, 2), np.float32), np.ones((2, 3), np.float32)])
def test_zero_d_empty_and_float32_arrays_keep_dtype_and_shape(array):
    (back,) = _round_trip({}, [array]).arrays
    assert (back.dtype, back.shape) == (array.dtype, array.shape)


def test_fortran_ordered_and_strided_arrays_round_trip():
    base = np.arange(24.0).reshape(4, 6)
    for array in (np.asfortranarray(base), base[:, ::2], base.T):
        np.testing.assert_array_equal(_round_trip({}, [array]).arrays[0], array)


def test_values_round_trip_with_types_kept():
    arrays: list[np.ndarray] = []
    value = (np.ones(2, np.float32), np.float32(1.5), None, True, 3, 2.5, "causal", [1, (2, 3)], RngSeed(7))
    node = wire_values.encode_value(value, arrays, lambda v: v.seed if isinstance(v, RngSeed) else None)
    message = _round_trip({"value": node}, arrays, protocol.Limits(kinds=protocol.ARGUMENT_KINDS))
    back = wire_values.decode_value(message.header["value"], message.arrays)
    assert isinstance(back, tuple) and len(back) == len(value)
    assert back[0].dtype == np.float32
    assert isinstance(back[1], np.float32) and back[1] == np.float32(1.5)
    assert back[2:7] == (None, True, 3, 2.5, "causal")
    assert type(back[3]) is bool and type(back[4]) is int
    assert back[7] == [1, (2, 3)]
    np.testing.assert_array_equal(back[8].random(3), np.random.default_rng(7).random(3))


@pytest.mark.parametrize("value", [{"a": 1}, object(), {1, 2}, b"bytes"])
def test_unsendable_values_are_refused_before_sending(value):
    with pytest.raises(TypeError):
        wire_values.encode_value(value, [])


def test_results_are_one_array_or_a_flat_tuple_of_arrays():
    arrays: list[np.ndarray] = []
    node = wire_values.encode_result((np.ones(2), np.zeros(())), arrays)
    back = wire_values.decode_result(node, arrays)
    assert isinstance(back, tuple) and [b.shape for b in back] == [(2,), ()]
    for forged in ({"t": "tuple", "v": [{"t": "tuple", "v": []}]}, 3.0, None, {"t": "rng", "seed": 1}, {"t": "array", "i": 5}):
        with pytest.raises(protocol.ProtocolError):
            wire_values.decode_result(forged, arrays)


@pytest.mark.parametrize(
    "descr, name",
    [("|O", "object"), ("<c16", "complex128"), ("<U3", "<U3"), ("|S2", "|S2"), ("|V8", "V8"), ("<M8[s]", "datetime64")],
)
def test_non_numeric_dtypes_are_rejected_from_the_header(descr, name):
    data = _raw(descr, (2,), b"\0" * 64)
    with pytest.raises(protocol.RejectedArray) as rejected:
        protocol.decode_array(data)
    assert name.strip("<|") in rejected.value.reason


def test_object_arrays_cannot_even_be_encoded():
    with pytest.raises(ValueError):
        protocol.encode_message({}, [np.array([object()])])


def test_a_payload_shorter_or_longer_than_its_header_promises_is_refused():
    good = protocol.encode_array(np.ones(4))
    for data in (good[:-8], good + b"\0" * 8, _raw("<f8", (10**12,)), _raw("<f8", (1,) * 70, b"\0" * 8), good[:3],
                 _raw("f8)", (1,), b"\0" * 8), _raw("<f8; import os", (1,), b"\0" * 8)):
        with pytest.raises(protocol.ProtocolError):
            protocol.decode_array(data)


def test_oversized_arrays_are_refused_before_their_bytes_are_read():
    limits = protocol.Limits(max_array_bytes=1024)
    frame = _frame(b"{}", [b"\0" * 2048])
    requested: list[int] = []
    with pytest.raises(protocol.RejectedArray):
        protocol.read_message(_reader(frame, requested), limits)
    assert max(requested) <= limits.max_array_bytes


def test_a_huge_announced_length_allocates_nothing():
    frame = protocol.MAGIC + struct.pack("!II", 2, 1) + b"{}" + struct.pack("!Q", 2**62)
    requested: list[int] = []
    with pytest.raises(protocol.RejectedArray):
        protocol.read_message(_reader(frame, requested))
    assert max(requested) < protocol.KIB


def test_too_many_arrays_or_too_much_in_total_is_refused():
    with pytest.raises(protocol.RejectedArray):
        protocol.read_message(_reader(_frame(b"{}", [b""] * 3)), protocol.Limits(max_arrays=2))
    payload = protocol.encode_array(np.ones(100))
    with pytest.raises(protocol.RejectedArray):
        protocol.read_message(_reader(_frame(b"{}", [payload] * 3)), protocol.Limits(max_message_bytes=2 * len(payload)))


@pytest.mark.parametrize(
    "frame",
    [
        b"NOPE" + struct.pack("!II", 2, 0) + b"{}",
        protocol.MAGIC + struct.pack("!II", 2 * protocol.MAX_HEADER_BYTES, 0),
        _frame(b"not json", []),
        _frame(b"[1, 2]", []),
        _frame(b"[" * 100_000, []),
        _frame(b"{}", [b"garbage that is not an array"]),
    ],
    ids=["magic", "huge-header", "not-json", "not-an-object", "deep-json", "not-an-array"],
)
def test_malformed_frames_raise_protocol_error(frame):
    with pytest.raises(protocol.ProtocolError):
        protocol.read_message(_reader(frame))


def test_complex_is_an_argument_kind_but_not_a_result_kind():
    frame = protocol.encode_message({}, [np.ones(2) + 1j])
    assert protocol.read_message(_reader(frame), protocol.Limits(kinds=protocol.ARGUMENT_KINDS)).arrays[0].dtype.kind == "c"
    with pytest.raises(protocol.RejectedArray):
        protocol.read_message(_reader(frame))


def test_worker_kinds_name_submission_error_types():
    kinds = {cls.kind for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.SubmissionError)}
    assert set(protocol.WORKER_KINDS) <= kinds


def test_a_generator_travels_as_its_state_and_continues_the_same_stream():
    from autograder.sandbox.wire_values import decode_value, encode_value

    generator = np.random.default_rng(7)
    generator.standard_normal(3)  # not at the start of the stream
    arrays = []
    node = encode_value(generator, arrays)
    rebuilt = decode_value(json.loads(json.dumps(node)), arrays)
    np.testing.assert_array_equal(rebuilt.standard_normal(5), generator.standard_normal(5))


def test_generators_with_array_state_are_refused():
    from autograder.sandbox.wire_values import encode_value

    with pytest.raises(TypeError, match="MT19937"):
        encode_value(np.random.Generator(np.random.MT19937(1)), [])
