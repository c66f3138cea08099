"""Plain ``pytest`` in a release folder, bounded: the student's functions run in a child process with a call limit.

Copied into each release as ``_call_child.py`` (with :mod:`autograder.check.pipes` as
``_pipes.py``); the release's ``conftest.py`` calls the student's functions through
:class:`CallChild`, so that an endless function fails its test after the call limit (the
child is killed, and started again for the next call) instead of hanging ``pytest`` with no
output. Standard library and numpy only, on Linux, macOS and Windows.

The child is this file run as a script. Frames on its stdin and stdout: a 4-byte length, a
JSON header, then each array as an 8-byte length and ``.npy`` bytes (read with
``allow_pickle=False``). Arguments are JSON values, arrays, tuples, lists and random
generators (sent as their PCG64 state); a result is one array or a tuple of arrays. The
student's prints go to the child's stderr, shown with the test that made them.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import time
import traceback

import numpy as np

try:  # in a release folder
    import _pipes as pipes
except ImportError:  # in the autograder package
    from autograder.check import pipes

#: Seconds a new child may take to start (Python, numpy) before it says hello; loading the module gets the call limit.
START_TIMEOUT_S = 60.0
#: Largest header and array read from the child.
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_ARRAY_BYTES = 256 * 1024 * 1024
_HEADER = struct.Struct("!I")
_ARRAY = struct.Struct("!Q")


class CallFailed(Exception):
    """A call did not return a result: the message says why (what the test shows)."""


# --- frames (both sides) ---------------------------------------------------------------


def encode_frame(header: dict, arrays=()) -> bytes:
    """One frame: the header as JSON, then each array as ``.npy`` bytes."""
    parts = [json.dumps({**header, "arrays": len(arrays)}).encode("utf-8")]
    parts[0] = _HEADER.pack(len(parts[0])) + parts[0]
    for array in arrays:
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(array), allow_pickle=False)
        parts.append(_ARRAY.pack(len(buffer.getvalue())) + buffer.getvalue())
    return b"".join(parts)


def read_frame(read_exact) -> tuple[dict, list]:
    """The header and arrays of one frame, reading with ``read_exact(size)``.

    Raises
    ------
    ValueError
        When a length passes its bound.
    """
    (size,) = _HEADER.unpack(read_exact(_HEADER.size))
    if size > MAX_HEADER_BYTES:
        raise ValueError(f"a header of {size} bytes")
    header = json.loads(read_exact(size))
    arrays = []
    for _ in range(int(header.get("arrays", 0))):
        (length,) = _ARRAY.unpack(read_exact(_ARRAY.size))
        if length > MAX_ARRAY_BYTES:
            raise ValueError(f"an array of {length} bytes")
        arrays.append(np.load(io.BytesIO(read_exact(length)), allow_pickle=False))
    return header, arrays


def encode_value(value, arrays: list):
    """The JSON form of an argument (arrays appended to ``arrays``).

    Raises
    ------
    TypeError
        For a value that cannot be sent (a dict, an object).
    """
    if isinstance(value, np.random.Generator):
        return {"rng": value.bit_generator.state}
    if isinstance(value, (np.ndarray, np.generic)):
        arrays.append(np.asarray(value))
        return {"a": len(arrays) - 1, "scalar": isinstance(value, np.generic)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [encode_value(v, arrays) for v in value]}
    raise TypeError(f"cannot send a {type(value).__name__} to the child")


def decode_value(node, arrays: list):
    """Inverse of :func:`encode_value`."""
    if not isinstance(node, dict):
        return node
    if "rng" in node:
        generator = getattr(np.random, node["rng"]["bit_generator"])()
        generator.state = node["rng"]
        return np.random.Generator(generator)
    if "a" in node:
        return arrays[node["a"]][()] if node.get("scalar") else arrays[node["a"]]
    items = [decode_value(v, arrays) for v in node.get("tuple", node.get("list", []))]
    return tuple(items) if "tuple" in node else items


# --- the parent (the release's conftest) -----------------------------------------------


class CallChild:
    """The student's module loaded in a child; each call bounded by ``timeout_s``.

    Parameters
    ----------
    path : str
        The module or notebook to load.
    module_file : str
        The module's file name (``scaled_attention.py``), what the messages call it.
    functions : tuple of str
        The graded functions (what a notebook's code keeps).
    timeout_s : float
        Wall-clock seconds one call may take.
    """

    def __init__(self, path: str, module_file: str, functions: tuple, timeout_s: float):
        self.load = {"op": "load", "path": str(path), "module_file": module_file, "functions": list(functions)}
        self.module_file = module_file
        self.timeout_s = timeout_s
        self.timed_out: set[str] = set()
        self.load_error: str | None = None
        self._child = None
        self._output: list[bytes] = []

    def _start(self) -> None:
        """A new child, the module loaded in it (within the start timeout and the call limit)."""
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.path.basename(__file__))
        self._child = pipes.ChildPipes([sys.executable, "-u", script], cwd=os.getcwd(), output=self._output.append)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            read_frame(lambda size: self._child.read_exact(size, deadline))  # its hello: Python and numpy are up
        except (pipes.Expired, pipes.Gone, ValueError, struct.error):
            self.close()
            raise CallFailed(f"the process that runs {self.module_file} did not start") from None
        try:
            header, _ = self._exchange(self.load, [], self.timeout_s, f"importing {self.module_file}")
        except CallFailed as failure:
            self.load_error = str(failure)
            raise
        if not header.get("ok"):
            self.close()
            self.load_error = f"{self.module_file} could not be loaded:\n{header['error']}"
            raise CallFailed(self.load_error)

    def _exchange(self, header: dict, arrays: list, seconds: float, what: str) -> tuple[dict, list]:
        deadline = time.monotonic() + seconds
        try:
            self._child.send(encode_frame(header, arrays), deadline)
            return read_frame(lambda size: self._child.read_exact(size, deadline))
        except pipes.Expired:
            self.close()
            raise CallFailed(f"{what} did not finish within {seconds:g} s (an endless loop?); it was stopped") from None
        except (pipes.Gone, ValueError, struct.error) as error:
            self.close()
            raise CallFailed(f"the process running {self.module_file} stopped ({type(error).__name__})") from None

    def call(self, function: str, args: tuple, kwargs: dict):
        """``function(*args, **kwargs)`` in the child: its result as an array or a tuple of arrays.

        Raises
        ------
        CallFailed
            When it raised, did not finish in time, returned something that is not arrays, or
            the module does not load; NotImplementedError when the student's did.
        """
        return self.call_observed(function, args, kwargs)[0]

    def call_observed(self, function: str, args: tuple, kwargs: dict) -> tuple:
        """:meth:`call`'s result and the labels of the array arguments the call changed in place
        (``"0"``, ``"1.0"`` for the first array of a tuple argument, ``"mask"``), as grading reports them.

        Raises
        ------
        CallFailed
            As :meth:`call`.
        """
        if function in self.timed_out:
            raise CallFailed(f"{function}() was not run again: it ran out of time on an earlier test")
        if self.load_error is not None:
            raise CallFailed(self.load_error)
        try:
            if self._child is None or not self._child.alive():
                self._start()
            arrays: list = []
            request = {"op": "call", "function": function, "args": encode_value(tuple(args), arrays),
                       "kwargs": {name: encode_value(value, arrays) for name, value in kwargs.items()}}
            try:
                header, results = self._exchange(request, arrays, self.timeout_s, f"{function}()")
            except CallFailed:
                self.timed_out.add(function)
                raise
        finally:
            self._show_output()
        return _answer(header, results, function, self.module_file), tuple(header.get("mutated", ()))

    def _show_output(self) -> None:
        """What the student printed so far, on this test's stdout (pytest shows it with the test)."""
        chunks, self._output[:] = list(self._output), []
        if chunks:
            sys.stdout.write(b"".join(chunks).decode("utf-8", errors="replace"))

    def close(self) -> None:
        """Kill the child (the next call starts another)."""
        if self._child is not None:
            self._child.kill()
            self._child.close()
            self._child = None


def _answer(header: dict, results: list, function: str, module_file: str):
    """The result of a call, or the exception its header reports."""
    if "not_implemented" in header:
        raise NotImplementedError(header["not_implemented"])
    if "missing" in header:
        raise CallFailed(f"{module_file} defines no function {function!r}")
    if "error" in header:
        raise CallFailed(header["error"])
    if "bad" in header:
        raise CallFailed(f"{function}() returned {header['bad']}, which is not a numeric array")
    return decode_value(header["result"], results)


# --- the child ------------------------------------------------------------------------


def _load(path: str, module_file: str, functions: list):
    """The student's module (a notebook's gradable code), as the conftest loaded it."""
    import types

    with open(path, encoding="utf-8") as file:
        source = file.read()
    if path.endswith(".ipynb"):
        try:  # in a release folder
            from _notebook_code import notebook_to_module
        except ImportError:  # in the autograder package
            from autograder.submission.notebook_code import notebook_to_module

        source = notebook_to_module(source, tuple(functions))
    module = types.ModuleType(module_file[: -len(".py")])
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _result(value) -> tuple[dict, list]:
    """A return value as the reply's header and arrays (a tuple stays a tuple of arrays)."""
    parts = value if isinstance(value, tuple) else (value,)
    try:
        arrays = [np.asarray(part) for part in parts]
    except Exception:  # noqa: BLE001 - a student object may raise anything
        arrays = None
    if arrays is None or any(a.dtype.hasobject for a in arrays):
        return {"bad": f"a {type(value).__name__}"}, []
    nodes = [{"a": i} for i in range(len(arrays))]
    return {"result": {"tuple": nodes} if isinstance(value, tuple) else nodes[0]}, arrays


def _arrays_in(label: str, value) -> list:
    """(label, array) of every array in an argument, one level into tuples and lists."""
    if isinstance(value, np.ndarray):
        return [(label, value)]
    if isinstance(value, (tuple, list)):
        return [(f"{label}.{i}", v) for i, v in enumerate(value) if isinstance(v, np.ndarray)]
    return []


def _changed(before: list) -> list:
    """The labels of the arrays that differ from their copies in ``before``."""
    return [label for label, array, copy in before
            if array.shape != copy.shape or not np.array_equal(array, copy, equal_nan=array.dtype.kind in "fc")]


def _handle(module, header: dict, arrays: list) -> tuple[dict, list]:
    """The reply to one call (with the labels of the arguments it changed in place)."""
    implementation = getattr(module, header["function"], None)
    if implementation is None:
        return {"missing": True}, []
    args = decode_value(header["args"], arrays)
    kwargs = {name: decode_value(value, arrays) for name, value in header["kwargs"].items()}
    named = [*(item for i, a in enumerate(args) for item in _arrays_in(str(i), a)),
             *(item for k, v in kwargs.items() for item in _arrays_in(k, v))]
    before = [(label, array, array.copy()) for label, array in named]
    try:
        value = implementation(*args, **kwargs)
    except NotImplementedError as error:
        return {"not_implemented": str(error)}, []
    except BaseException as error:  # noqa: BLE001 - the student's exception, shown with its traceback
        return {"error": "".join(traceback.format_exception(type(error), error, error.__traceback__.tb_next)).rstrip()}, []
    reply, results = _result(value)
    reply["mutated"] = _changed(before)
    return reply, results


def die_with_parent(poll_s: float = 0.5) -> None:
    """Exit as soon as the caller is gone, even inside an endless student function (a daemon thread).

    A check killed from outside (Ctrl-C twice, a restarted notebook kernel, a closed terminal) cannot stop its
    child itself: without this, an endless function would spin on the student's machine. The portable worker
    (:mod:`autograder.check.portable_worker`) uses it too; here it also runs from a release folder, on its own.
    """
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        if os.name == "nt":
            import ctypes

            handle = ctypes.windll.kernel32.OpenProcess(0x00100000, False, parent)  # SYNCHRONIZE
            if handle:
                ctypes.windll.kernel32.WaitForSingleObject(handle, 0xFFFFFFFF)
                os._exit(1)
            return
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main() -> int:
    """Serve calls on stdin and stdout until the caller closes the pipe; prints go to stderr; ``input()`` reads nothing."""
    die_with_parent()
    requests, responses = os.dup(0), os.dup(1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    os.dup2(2, 1)
    if os.name == "nt":
        import msvcrt

        for fd in (requests, responses):
            msvcrt.setmode(fd, os.O_BINARY)
    reader, writer = os.fdopen(requests, "rb", buffering=0), os.fdopen(responses, "wb", buffering=0)

    def read_exact(size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = reader.read(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    writer.write(encode_frame({"op": "hello"}))
    module = None
    while True:
        try:
            header, arrays = read_frame(read_exact)
        except EOFError:
            return 0
        if header["op"] == "load":
            try:
                module = _load(header["path"], header["module_file"], header["functions"])
                reply = ({"ok": True}, [])
            except BaseException as error:  # noqa: BLE001 - the module's own failure, reported
                reply = ({"ok": False, "error": "".join(traceback.format_exception_only(type(error), error)).rstrip()}, [])
        else:
            reply = _handle(module, header, arrays)
        writer.write(encode_frame(*reply))


if __name__ == "__main__":
    sys.exit(main())
