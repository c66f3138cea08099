"""Reading a submission under a deadline: whatever the grader's parsers make of it costs a bounded time.

Reading parses student bytes in the grader (JSON, Python syntax, zip archives). No student
code runs, but how long a parser takes depends on what the student wrote. The size limits
of :mod:`~autograder.submission.locate` and linear extraction keep every input we know of
under about a second; this module makes the bound hold for inputs nobody thought of. The
reading runs in a child forked from the grader, given ``seconds`` of wall-clock time (a
batch passes ``submission_timeout_s``, so a hostile entry costs at most one submission's
time) and :data:`READ_MEMORY_BYTES` of address space beyond the grader's own. The child
answers in JSON (the grader never unpickles). One that runs out of time is killed and the
submission is "too large or too complex to grade"; one that dies (a parser crashing on
deep nesting) has a result that says so. Either way the grader carries on with the next.

The child is forked only on Linux, where the grader of a class runs: elsewhere (a student's
``check`` on macOS or Windows) it is a spawned interpreter (:mod:`~autograder.submission.spawned`)
given the same deadline and killed past it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
import zipfile
from pathlib import Path
from typing import Callable, NoReturn

from autograder.errors import AmbiguousSubmission, GraderError, LoadFailed
from autograder.i18n import from_wire, msg, to_wire
from autograder.submission.locate import SubmissionSource, could_not_read

#: Whether reading runs in a forked child (Linux), or in the process.
FORKS = sys.platform == "linux" and hasattr(os, "fork")
#: Inputs of at most this many bytes (a plain file, a folder's files, a zip's members) are read in the
#: process: every parser the reading uses is linear on them, so they take milliseconds whatever they
#: hold, and the fork (about 10 ms of a grading process) would cost more than the reading.
IN_PROCESS_BYTES = 64 * 1024
#: Most directory entries looked at to tell whether a folder is that small.
MAX_ENTRIES_LOOKED_AT = 64
#: Address space the reading child may take beyond the grader's (parsing the largest code accepted takes ~150 MiB).
READ_MEMORY_BYTES = 1024 * 1024 * 1024
_CHUNK = 1 << 16


def small_input(path: Path) -> bool:
    """Whether ``path`` is a file of at most :data:`IN_PROCESS_BYTES` (not a zip), or a folder of few files
    that hold no more together and no zip: what may be read without a child."""
    try:
        if path.is_file() and path.suffix == ".zip":
            return _small_zip(path)
        if path.is_file():
            return path.stat().st_size <= IN_PROCESS_BYTES
        total, looked_at = 0, 0
        for folder, _, files in os.walk(path):
            for file in files:
                looked_at += 1
                candidate = Path(folder, file)
                total += candidate.lstat().st_size
                if looked_at > MAX_ENTRIES_LOOKED_AT or total > IN_PROCESS_BYTES or candidate.suffix == ".zip":
                    return False
        return path.is_dir()
    except OSError:
        return False


def _small_zip(path: Path) -> bool:
    """A zip of at most :data:`IN_PROCESS_BYTES` whose members say they unpack to no more together (a member that
    unpacks to more than it says fails its check while it is read: the reading stops there)."""
    if path.stat().st_size > IN_PROCESS_BYTES:
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, NotImplementedError):
        return False
    return len(members) <= MAX_ENTRIES_LOOKED_AT and sum(m.file_size for m in members) <= IN_PROCESS_BYTES


def read_bounded(read: Callable[[], SubmissionSource], seconds: float, name: str, in_process: bool = False) -> SubmissionSource:
    """What ``read()`` returns, computed in a forked child given ``seconds``; what it raises is raised here.

    With ``in_process`` (a :func:`small_input`), ``read()`` runs here. Where there is no fork, a
    :class:`~autograder.submission.spawned.Reading` runs in a spawned child with the same deadline
    (:func:`~autograder.submission.spawned.read_spawned`); any other ``read`` runs here.

    Parameters
    ----------
    read : callable
        Reads the submission (:func:`~autograder.submission.locate.read_submission`, say).
    seconds : float
        Wall-clock time the reading may take.
    name : str
        The submission as the student knows it (a file name made safe), for the messages.

    Raises
    ------
    LoadFailed
        What ``read`` raised; or, when the child ran out of time or died, why.
    AmbiguousSubmission
        When ``read`` raised it.
    GraderError
        When ``read`` failed otherwise (a grader bug), with its error.
    """
    if in_process:
        return read()
    if not FORKS:  # macOS, Windows: a spawned child when the reading can be described to one, else here
        from autograder.submission.spawned import Reading, read_spawned

        return read_spawned(read, seconds, name) if isinstance(read, Reading) else read()
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reading)
        _answer(read, writing, name)
    os.close(writing)
    status = None
    try:
        data = _receive(reading, time.monotonic() + seconds)
        if data is not None:
            status = os.waitpid(pid, 0)[1]  # it closed its end: it is exiting
    finally:
        os.close(reading)
        if status is None:
            _kill(pid)
    if data is None:
        raise too_slow(name, seconds)
    if not data:
        raise reader_stopped(name, _ended(status))
    return answer_result(json.loads(data))


def answer_of(read: Callable[[], SubmissionSource], name: str) -> dict:
    """In the child: what ``read()`` returns or raises, as the JSON answer :func:`answer_result` reads."""
    try:
        return {"source": _source_to_wire(read())}
    except LoadFailed as error:
        return {"load_failed": to_wire(error.student_message)}
    except (MemoryError, RecursionError) as error:  # past the memory given, or too deep for the reader
        return {"load_failed": to_wire(could_not_read(name, error).student_message)}
    except AmbiguousSubmission as error:
        return {"ambiguous": str(error)}
    except Exception as error:  # noqa: BLE001 - a grader bug: said to the grader, not lost
        return {"grader_error": f"{type(error).__name__}: {error}"}


def _answer(read: Callable[[], SubmissionSource], fd: int, name: str) -> NoReturn:
    """In the child: read, write the answer as one JSON document, exit (never returning to the caller's code)."""
    status = 1
    try:
        limit_memory()
        payload = json.dumps(answer_of(read, name)).encode("ascii")
        for start in range(0, len(payload), _CHUNK):
            os.write(fd, payload[start:start + _CHUNK])  # a blocking pipe: each write is written whole
        status = 0
    finally:
        os._exit(status)  # no atexit handler, no flush of the grader's buffers, no return into its code


def limit_memory() -> None:
    """In the child: address space for :data:`READ_MEMORY_BYTES` more than the grader held when it forked."""
    try:
        import resource  # Unix only, as forking here is

        with open("/proc/self/statm", encoding="ascii") as statm:
            held = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = held + READ_MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(hard, held + READ_MEMORY_BYTES)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError, ImportError):
        pass  # no /proc, no resource module, or a limit that cannot be set: the deadline still holds


def _receive(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes its end; None when ``deadline`` comes first."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _kill(pid: int) -> None:
    """Kill the child (still running, or already gone but not reaped) and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def too_slow(name: str, seconds: float) -> LoadFailed:
    """The failure of a reading that ran out of time."""
    return LoadFailed(msg("{file} is too large or too complex to grade: reading it took longer than {seconds} s",
                          file=name, seconds=f"{seconds:g}"))


def reader_stopped(name: str, how: str) -> LoadFailed:
    """The failure of a reading whose child ended without an answer (``how``: ``signal SIGSEGV``, ``exit status 1``)."""
    return LoadFailed(msg("{file} could not be read: the grader's reader stopped ({how})", file=name, how=how))


def _ended(status: int) -> str:
    """How a child that gave no answer ended: ``signal SIGSEGV``, ``exit status 1``."""
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        return f"signal {signal.Signals(-code).name}" if -code in signal.valid_signals() else f"signal {-code}"
    return f"exit status {code}"


def _source_to_wire(source: SubmissionSource) -> dict:
    return {"module_name": source.module_name, "source": source.source, "origin": source.origin, "kind": source.kind,
            "notes": [to_wire(note) for note in source.notes], "real_path": source.real_path}


def answer_result(answer: dict) -> SubmissionSource:
    """The child's answer as what ``read`` returned or raised."""
    if "source" in answer:
        fields = answer["source"]
        return SubmissionSource(**{**fields, "notes": tuple(from_wire(note) for note in fields["notes"])})
    if "load_failed" in answer:
        raise LoadFailed(from_wire(answer["load_failed"]))
    if "ambiguous" in answer:
        raise AmbiguousSubmission(answer["ambiguous"])
    raise GraderError(f"reading the submission failed: {answer['grader_error']}")
