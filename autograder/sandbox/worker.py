"""The sandboxed worker: imports a submission and answers calls into it.

This file runs *inside* the sandbox, never in the grader's process. The launcher starts
it as ``python -I -S -B -u worker.py CONFIG`` with the modules it imports (``protocol``, ``wire_values``, ``returned``,
``confine``, ``forkserver``, ``sweep``) beside it and numpy in ``../site``. ``CONFIG`` is JSON::

    {"in": 3, "out": 4, "rlimits": {"RLIMIT_AS": [soft, hard], ...},
     "uid": 65534, "gid": 65534, "parent_death_signal": false}

Before anything of the student runs, the worker imports numpy once and confines itself
(:func:`confine.confine`: resource limits, ``uid``/``gid``, no sockets). It then greets
the grader and serves ``load``, ``call`` and ``ping`` requests on the inherited pipe fds ``in`` and
``out``; the student's stdout and stderr (fds 1 and 2) are a separate pipe the grader
only captures, so prints can never corrupt the protocol. With ``"zygote": true`` it is the
fork server instead (:mod:`forkserver`), forking one such worker per submission.

Only the standard library and numpy are imported here.
"""

from __future__ import annotations

import __future__
import ast
import json
import linecache
import os
import sys
import traceback
import types

#: One thread for every numerical library: RLIMIT_NPROC counts threads, RLIMIT_AS their stacks.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                  "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_variable] = "1"

_HERE = os.path.dirname(os.path.abspath(__file__))
if not __package__:
    sys.path.append(os.path.join(os.path.dirname(_HERE), "site"))
    sys.path.insert(0, _HERE)

import numpy as np  # noqa: E402
import numpy.random  # noqa: E402,F401  numpy imports it on first use (11 ms): once in the fork server, not in every worker

if __package__:
    from . import confine, forkserver, protocol, standin, wire_values
    from .running import RunningReport
    from .returned import (  # noqa: F401  the worker's names, also imported from here
        MAX_TRACEBACK_CHARS, N_, Failure, _bad_return, as_numeric_array, convert_result, english, input_snapshots,
        modified_inputs, returned_kinds, said, truncate,
    )
else:  # run as a script inside the sandbox: its modules sit beside it, importable only now
    import confine  # noqa: E402
    import forkserver  # noqa: E402
    import protocol  # noqa: E402
    import standin  # noqa: E402
    import wire_values  # noqa: E402
    from running import RunningReport  # noqa: E402
    from returned import (  # noqa: E402,F401
        MAX_TRACEBACK_CHARS, N_, Failure, _bad_return, as_numeric_array, convert_result, english, input_snapshots,
        modified_inputs, returned_kinds, said, truncate,
    )

    sys.path.remove(_HERE)

#: Largest read from the request pipe at once.
READ_CHUNK_BYTES = 1024 * 1024
#: Largest request header (it carries the submission's source text).
MAX_REQUEST_HEADER_BYTES = 16 * protocol.MIB
#: Bounds on requests from the grader (complex inputs allowed).
REQUEST_LIMITS = protocol.Limits(max_header_bytes=MAX_REQUEST_HEADER_BYTES, kinds=protocol.ARGUMENT_KINDS)
#: Exit status when the grader closes the request pipe.
EXIT_OK = 0
#: Most top-level statements reported as skipped (the rest are counted, not listed).
MAX_SKIPPED_REPORTED = 20
#: Longest exception message of a skipped statement sent back.
MAX_SKIPPED_MESSAGE_CHARS = 200


def student_traceback(error: BaseException, filename: str) -> str:
    """The traceback of ``error`` restricted to frames in the student's file."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    lines = traceback.format_exception_only(type(error), error)
    if frames:
        lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames), *lines]
    return truncate("".join(lines).rstrip("\n"))


def raised_in(error: BaseException, filename: str) -> str:
    """The function of the student's file whose own line raised ``error`` ("" when none did)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    return frames[-1].name if frames else ""


def _exit_code(error: SystemExit) -> str:
    return repr(error.code) if error.code is not None else ""


# --- the student's module ----------------------------------------------------------------


def _future_flags(node: ast.stmt) -> int:
    """The compiler flags a ``from __future__ import ...`` statement turns on for what follows."""
    if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
        return 0
    flags = 0
    for alias in node.names:
        feature = getattr(__future__, alias.name, None)
        flags |= getattr(feature, "compiler_flag", 0)
    return flags


def bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement would bind: assignment targets, imports, definitions."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(node.name)
    return names


def skipped_statement(node: ast.stmt, error: Exception, unbound: set[str] = frozenset()) -> dict:
    """What the grader is told about a top-level statement that raised.

    Its line, the exception, the module missing (for a failed import), and whether it only
    failed because an earlier skipped statement did not bind a name it uses (``follows``).
    """
    missing = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    follows = isinstance(error, NameError) and getattr(error, "name", None) in unbound
    return {
        "line": int(node.lineno),
        "error": type(error).__name__,
        "message": truncate(str(error), MAX_SKIPPED_MESSAGE_CHARS),
        "module": str(missing).split(".")[0] if missing else None,
        "follows": bool(follows),
    }


def _run_statements(source: str, filename: str, namespace: dict) -> list[dict]:
    """Execute a module's top-level statements in order; the ones raising an Exception are skipped.

    The whole module is compiled first, so a syntax error anywhere is still a failure of the
    whole module. ``from __future__`` imports apply to the statements after them, as in a module.
    """
    tree = ast.parse(source, filename)
    compile(tree, filename, "exec", dont_inherit=True)  # raises SyntaxError for the whole module
    skipped, flags, unbound = [], 0, set()
    for node in tree.body:
        code = compile(ast.Module(body=[node], type_ignores=[]), filename, "exec", flags=flags, dont_inherit=True)
        flags |= _future_flags(node)
        try:
            exec(code, namespace)
        except Exception as error:  # noqa: BLE001 - the student's statement: skipped and reported
            skipped.append(skipped_statement(node, error, unbound))
            unbound |= bound_names(node) - set(namespace)
    return skipped


class Submission:
    """The student's module, executed from source into a fresh module object."""

    def __init__(self) -> None:
        self.module: types.ModuleType | None = None
        self.filename = "<submission>"

    def load(self, name: str, source: str, filename: str) -> list[dict]:
        """Execute ``source`` as module ``name``, registered in ``sys.modules``, one top-level statement at a time.

        A top-level statement that raises an exception (an import of a module the sandbox
        lacks, plotting code, an experiment) is skipped and reported; the statements after
        it still run, so the functions that do not need it still load.

        Returns
        -------
        list of dict
            The skipped statements (:func:`skipped_statement`).

        Raises
        ------
        Failure
            ``load_failed`` for a module that does not compile, or that calls ``sys.exit``
            (or raises what is not an ``Exception``) at import.
        """
        self.filename = filename
        module = types.ModuleType(name)
        module.__file__ = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        sys.modules[name] = module
        try:
            skipped = _run_statements(source, filename, module.__dict__)
        except SystemExit as error:
            sys.modules.pop(name, None)
            raise Failure(protocol.KIND_LOAD_FAILED, said(N_("the module called sys.exit({code}) while being imported"),
                                                          code=_exit_code(error)), "SystemExit") from None
        except BaseException as error:  # noqa: BLE001 - a failure to compile, or a non-Exception at import
            sys.modules.pop(name, None)
            raise Failure(protocol.KIND_LOAD_FAILED, student_traceback(error, filename), type(error).__name__) from None
        self.module = module
        return skipped

    def function(self, name: str):
        """The callable ``name`` of the module.

        Raises
        ------
        Failure
            ``missing_function`` when it is absent or not callable.
        """
        if self.module is None:
            raise Failure(protocol.KIND_LOAD_FAILED, said(N_("the module is not loaded")))
        try:
            found = getattr(self.module, name)
        except AttributeError:
            raise Failure(protocol.KIND_MISSING_FUNCTION, said(N_("the module does not define {name}()"), name=name)) from None
        if not callable(found):
            raise Failure(protocol.KIND_MISSING_FUNCTION, said(N_("{name} is a {type}, not a function"), name=name,
                                                               type=type(found).__name__))
        return found

    def call(self, name: str, args: tuple, kwargs: dict, standins: tuple[str, ...] = (), ask=None):
        """Call ``name(*args, **kwargs)``, convert the result and say what the call did.

        With ``standins``, those names of the module are bound, for this call only, to
        stand-ins that forward to ``ask(name, args, kwargs)`` (:mod:`standin`).

        Returns
        -------
        (result, observed)
            The converted result, and :func:`observe_call`'s account of the inputs it
            modified and the kind of object it returned.

        Raises
        ------
        Failure
            ``not_implemented``, ``exception``, ``bad_return`` or ``missing_function``.
        """
        function = self.function(name)
        before = input_snapshots(args, kwargs)
        try:
            with standin.bound(self.module.__dict__, standins if ask is not None else (), ask):
                value = function(*args, **kwargs)
        except NotImplementedError as error:
            detail = f": {error}" if str(error) else ""
            raise Failure(protocol.KIND_NOT_IMPLEMENTED, said(N_("{name}() is not implemented yet (NotImplementedError{detail})"),
                                                              name=name, detail=detail), "NotImplementedError",
                          raised_in(error, self.filename)) from None
        except SystemExit as error:
            raise Failure(protocol.KIND_EXCEPTION, said(N_("{name}() called sys.exit({code})"), name=name,
                                                        code=_exit_code(error)), "SystemExit") from None
        except BaseException as error:  # noqa: BLE001 - the student's exception, reported
            raise Failure(protocol.KIND_EXCEPTION, student_traceback(error, self.filename), type(error).__name__) from None
        try:
            return convert_result(value), {"mutated": modified_inputs(before, args, kwargs), "returned": returned_kinds(value)}
        except Failure:
            raise
        except BaseException as error:  # noqa: BLE001 - the returned object's own methods raised
            raise _bad_return(said(N_("the return value could not be converted: {traceback}"),
                                   traceback=student_traceback(error, self.filename))) from None


# --- serving -------------------------------------------------------------------------


class Channel:
    """Blocking frame I/O on the two inherited pipe fds."""

    def __init__(self, in_fd: int, out_fd: int):
        self.in_fd = in_fd
        self.out_fd = out_fd
        self._sending = False  # a frame is being written (the running report must not cut into it)

    def read_exact(self, size: int) -> bytes:
        """Exactly ``size`` bytes from the grader.

        Raises
        ------
        EOFError
            When the grader closed the pipe.
        """
        chunks, missing = [], size
        while missing:
            chunk = os.read(self.in_fd, min(missing, READ_CHUNK_BYTES))
            if not chunk:
                raise EOFError("the grader closed the request pipe")
            chunks.append(chunk)
            missing -= len(chunk)
        return b"".join(chunks)

    def send(self, header: dict, arrays=()) -> None:
        """Write one frame to the grader."""
        self.send_frame(protocol.encode_message(header, list(arrays)))

    def send_frame(self, frame: bytes) -> None:
        """Write an encoded frame to the grader (whole: the running report waits for another time)."""
        self._sending = True
        try:
            view = memoryview(frame)
            while view:
                view = view[os.write(self.out_fd, view):]
        finally:
            self._sending = False

    def sending(self) -> bool:
        """Whether a frame is being written right now."""
        return self._sending


def _failure_header(failure: Failure) -> dict:
    header = {"ok": False, "kind": failure.kind, "type": failure.type_name, "message": failure.message}
    if failure.raised_in:
        header["raised_in"] = failure.raised_in
    return {**header, "said": failure.said} if failure.said is not None else header


class Worker:
    """Answers the grader's requests, one at a time."""

    def __init__(self, channel: Channel):
        self.channel = channel
        self.submission = Submission()
        self.running = RunningReport(channel.send, channel.sending)  # before any student code runs

    def handle(self, message: protocol.Message) -> tuple[dict, list[np.ndarray]]:
        """The response header and arrays for one request."""
        header = message.header
        op = header.get("op")
        if op == protocol.Op.PING:
            return {"ok": True}, []
        if op == protocol.Op.LOAD:
            skipped = self.submission.load(str(header["module"]), str(header["source"]), str(header["filename"]))
            return {"ok": True, "skipped": skipped[:MAX_SKIPPED_REPORTED], "skipped_more": len(skipped) - len(skipped[:MAX_SKIPPED_REPORTED])}, []
        if op == protocol.Op.CALL:
            args = wire_values.decode_value(header["args"], message.arrays)
            kwargs = {str(k): wire_values.decode_value(v, message.arrays) for k, v in header["kwargs"].items()}
            arrays: list[np.ndarray] = []
            standins = tuple(str(name) for name in header.get("standins", ()))
            with self.running.watching(header, self.submission.filename):
                value, observed = self.submission.call(str(header["function"]), tuple(args), kwargs, standins, self.ask)
            return {"ok": True, "result": wire_values.encode_result(value, arrays), "observed": observed}, arrays
        raise protocol.ProtocolError(f"unknown operation {op!r}")

    def ask(self, name: str, args: tuple, kwargs: dict):
        """What the grader answers for the stand-in ``name`` called on ``args`` and ``kwargs``.

        Raises
        ------
        TypeError
            When the arguments cannot be sent (objects, dicts, ...).
        ValueError
            When the grader refuses them (the reference rejects them, or too many calls).
        """
        arrays: list[np.ndarray] = []
        try:
            header = {"op": protocol.Op.REFERENCE, "function": name, "args": wire_values.encode_value(tuple(args), arrays),
                      "kwargs": {str(k): wire_values.encode_value(v, arrays) for k, v in kwargs.items()}}
            frame = protocol.encode_message(header, arrays)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{name}() cannot be given these arguments: {error}") from None
        self.channel.send_frame(frame)
        reply = protocol.read_message(self.channel.read_exact, REQUEST_LIMITS)
        if reply.header.get("ok") is not True:
            raise ValueError(f"{name}(): {reply.header.get('message', 'refused')}")
        return wire_values.decode_value(reply.header.get("result"), reply.arrays)

    def serve(self) -> int:
        """Answer requests until the grader closes the pipe."""
        self.channel.send({"op": protocol.Op.HELLO, "pid": os.getpid(), "uid": os.getuid() if hasattr(os, "getuid") else -1, "numpy": np.__version__})
        while True:
            try:
                message = protocol.read_message(self.channel.read_exact, REQUEST_LIMITS)
            except EOFError:
                return EXIT_OK
            try:
                response, arrays = self.handle(message)
            except Failure as failure:
                response, arrays = _failure_header(failure), []
            response["id"] = message.header.get("id")
            self.channel.send(response, arrays)


def serve_one(in_fd: int, out_fd: int) -> int:
    """Serve one submission on the pipe fds ``in_fd`` and ``out_fd``."""
    return Worker(Channel(in_fd, out_fd)).serve()


def main(argv: list[str]) -> int:
    """Bootstrap from the JSON config in ``argv[1]``, then serve (or fork workers, as a fork server)."""
    config = json.loads(argv[1])
    if config.get("zygote"):
        return forkserver.serve_zygote(config, serve_one)
    confine.confine(config)
    return serve_one(config["in"], config["out"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
