"""A child process spoken to over its stdin and stdout, where every wait has a deadline, on any OS.

Linux, macOS and Windows all give a child three pipes (``subprocess``), but only POSIX can
wait on a pipe with a timeout (``select`` does not take pipes on Windows). So threads do the
waiting: one reads the child's stdout into a bounded queue, one drains its stderr into a
sink, one writes what is sent; the caller waits on them with a deadline and, when it
passes, kills the child. No ``os.fork``, no ``SIGALRM``, no ``resource``.

Standard library only: this file is also copied into each student release (``_pipes.py``),
where ``pytest`` uses it without the kit.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time

#: Largest single read from a pipe.
CHUNK_BYTES = 1 << 20
#: Chunks read ahead from the child's stdout before the reader waits for the caller (bounds memory).
MAX_QUEUED_CHUNKS = 32
#: Seconds to wait for a killed child to be reaped, and for its stderr to be read to the end.
REAP_TIMEOUT_S = 5.0
OUTPUT_SETTLE_S = 0.5
#: How often a reader blocked on a full queue looks whether the child was closed.
POLL_S = 0.05
#: No console window for the child of a program that has none (Windows; 0 elsewhere).
NO_WINDOW = getattr(subprocess, "CREATE_NO_WINDOW", 0)


class Expired(Exception):
    """The deadline passed before the child answered (or took what was sent)."""


class Gone(Exception):
    """The child closed its end of a pipe: it exited, was killed, or closed the pipe itself."""


def _pump(read, put, stopped: threading.Event) -> None:
    """Read chunks with ``read`` until end of file (or an error), handing each to ``put``, then ``b""``."""
    while not stopped.is_set():
        try:
            chunk = read(CHUNK_BYTES)
        except (OSError, ValueError):
            chunk = b""
        put(chunk or b"")
        if not chunk:
            return


class ChildPipes:
    """A started child and the threads that read and write its pipes.

    Parameters
    ----------
    argv : list of str
        The command.
    cwd : str
        Its working folder.
    env : dict, optional
        Its environment (default: this process's).
    output : callable, optional
        Given every chunk of the child's stderr (its fd 2); default: dropped.
    """

    def __init__(self, argv: list[str], cwd: str, env: dict | None = None, output=None):
        self.output = output or (lambda chunk: None)
        self._popen = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, start_new_session=os.name == "posix", creationflags=NO_WINDOW,
        )
        self._stopped = threading.Event()
        self._chunks: queue.Queue = queue.Queue(MAX_QUEUED_CHUNKS)
        self._buffer = bytearray()
        self._gone = False
        self._sends: queue.SimpleQueue = queue.SimpleQueue()
        self._output_done = threading.Event()
        self._threads = [
            threading.Thread(target=_pump, args=(self._popen.stdout.read, self._queue_chunk, self._stopped), daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
            threading.Thread(target=self._write_sends, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self._popen.pid

    def alive(self) -> bool:
        """Whether the child is still running."""
        return self._popen.poll() is None

    # --- the threads ----------------------------------------------------------------------

    def _queue_chunk(self, chunk: bytes) -> None:
        """Queue a chunk of stdout, waiting for room (but not once the child is closed)."""
        while not self._stopped.is_set():
            try:
                self._chunks.put(chunk, timeout=POLL_S)
                return
            except queue.Full:
                continue

    def _drain_stderr(self) -> None:
        def feed(chunk: bytes) -> None:
            if chunk:
                self.output(chunk)

        try:
            _pump(self._popen.stderr.read, feed, threading.Event())
        finally:
            self._output_done.set()

    def _write_sends(self) -> None:
        """Write each queued frame whole, then say it is written (or why it could not be)."""
        while True:
            item = self._sends.get()
            if item is None:
                return
            data, done, failed = item
            try:
                view = memoryview(data)
                while view:
                    view = view[self._popen.stdin.write(view):]
            except (OSError, ValueError) as error:
                failed.append(error)
            done.set()

    # --- what the caller does -------------------------------------------------------------

    def send(self, data: bytes, deadline: float) -> None:
        """Hand all of ``data`` to the child's stdin before ``deadline`` (monotonic seconds).

        Raises
        ------
        Expired
            When the child has not taken it in time (the caller should kill it).
        Gone
            When its stdin is closed.
        """
        done, failed = threading.Event(), []
        self._sends.put((data, done, failed))
        if not done.wait(max(deadline - time.monotonic(), 0)):
            raise Expired
        if failed:
            raise Gone

    def read_exact(self, size: int, deadline: float) -> bytes:
        """Exactly ``size`` bytes of the child's stdout, before ``deadline``.

        Raises
        ------
        Expired
            When they have not all come in time.
        Gone
            When the child closed its stdout first.
        """
        while len(self._buffer) < size:
            if self._gone:
                raise Gone
            try:
                chunk = self._chunks.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                raise Expired from None
            if not chunk:
                self._gone = True
                raise Gone
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def kill(self) -> None:
        """Kill the child (its whole session on POSIX, where it leads one) and reap it."""
        if self._popen.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self._popen.pid, signal.SIGKILL)
                else:
                    self._popen.kill()
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self._popen.wait(timeout=REAP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass

    def exit_status(self, timeout: float) -> int | None:
        """The child's exit status once it ended within ``timeout`` seconds, else None."""
        try:
            return self._popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def settle_output(self) -> None:
        """Once the child has ended, wait (briefly) until its stderr has been read to the end."""
        if self._popen.poll() is not None:
            self._output_done.wait(OUTPUT_SETTLE_S)

    def close(self) -> None:
        """Stop the threads and close the pipes (after :meth:`kill`, or once the child ended).

        A pipe whose reader has not reached its end (a process the child left behind holds it
        open) is left open rather than closed under the reading thread.
        """
        self._stopped.set()
        self._sends.put(None)
        reader, errors, writer = self._threads
        deadline = time.monotonic() + OUTPUT_SETTLE_S
        for thread, stream in ((writer, self._popen.stdin), (reader, self._popen.stdout), (errors, self._popen.stderr)):
            thread.join(max(deadline - time.monotonic(), 0))
            if not thread.is_alive():
                try:
                    stream.close()
                except OSError:
                    pass
