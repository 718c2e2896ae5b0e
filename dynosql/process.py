"""What the command owes the process around it: SIGTERM handled like Ctrl-C, and output that
cannot be written (a full disk, /dev/full, a closed stdout) reported as one line.

Kept apart from cli.py so the front door stays thin and the REPL can share it.
"""

from __future__ import annotations

import atexit
import errno
import gc
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from dynosql.errors import DynosqlError

EXIT_TERMINATED = 143  # 128 + SIGTERM, as shells report it
MAX_SCRIPT_CHARS = 16 * 1024 * 1024  # `-f /dev/zero` must not read forever


class Terminated(KeyboardInterrupt):
    """SIGTERM: everything that cleans up after Ctrl-C (a JSON array closed, the reads
    stopped, what was read reported) does so here too; the exit code is 143."""


class OutputError(DynosqlError):
    """The output could not be written; nothing more is worth sending."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the command runs, SIGTERM raises `Terminated` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(_signum: int, _frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupt_code(err: KeyboardInterrupt) -> int:
    return EXIT_TERMINATED if isinstance(err, Terminated) else 130


def output_error(err: OSError) -> OutputError:
    """`cannot write output: No space left on device` (and the like)."""
    reason = err.strerror or str(err) or type(err).__name__
    return OutputError(f"cannot write output: {reason}")


class GuardedOutput:
    """`out`, whose failed writes (a full disk, /dev/full) raise OutputError: a failure of the
    output, told apart from a connection's OSError. A closed pipe stays BrokenPipeError.

    A text stream over a file goes through its bytes: with unbuffered output (python -u,
    PYTHONUNBUFFERED) Python's text layer hands each write to the file descriptor once and
    drops a short count, so a table written in one piece into a nearly full disk was cut
    without an error (exit 0). Here every byte is written, or the write fails."""

    def __init__(self, out: TextIO):
        self._out = out

    def write(self, text: str) -> int:
        try:
            binary = getattr(self._out, "buffer", None)
            if binary is None:  # not a file (captured in-process)
                return self._out.write(text)
            self._out.flush()  # what the text layer holds goes first
            _write_all(
                binary, text.encode(self._out.encoding or "utf-8", self._out.errors or "strict")
            )
            return len(text)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise output_error(err) from None

    def flush(self) -> None:
        try:
            self._out.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            raise output_error(err) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def _write_all(binary: Any, data: bytes) -> None:
    """Every byte of `data` to a binary stream, buffered (its write takes all or raises) or
    raw (its write may take part: the rest is written again, and a full disk then raises)."""
    view = memoryview(data)
    while view:
        written = binary.write(view)
        if written is None:  # a non-blocking stream that could take nothing now
            raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


class ScriptTooLarge(DynosqlError):
    exit_code = 2


def read_script(stream: Any, label: str) -> str:
    """A script's text, at most MAX_SCRIPT_CHARS (a device or a runaway file is refused)."""
    text = stream.read(MAX_SCRIPT_CHARS + 1)
    if len(text) > MAX_SCRIPT_CHARS:
        raise ScriptTooLarge(
            f"{label} is larger than {MAX_SCRIPT_CHARS // 2**20} MiB: not a script"
        )
    return text


def check_output(stream: TextIO | None) -> None:
    """A stdout closed before we started (``>&-``): fail before any request is sent."""
    if stream is None:
        raise OutputError("cannot write output: standard output is closed")
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # not a file (captured in-process): nothing to check
    try:
        os.fstat(fd)
    except OSError as err:
        raise output_error(err) from None


def discard_output() -> None:
    """After a failed write: point stdout at /dev/null so the data still buffered cannot fail
    again when Python flushes it on the way out (which would print a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


_collecting_less = False


def collect_less_at_start() -> None:
    """For the ``dynosql`` process only (not `cli.main` called in another program): the
    cycle collector off while the command starts (imports, the embedded server and its
    examples) and, from `settled` on, nothing that lived through the start scanned again; at
    exit, no object scanned once more by Python's last collections. Measured on ``dynosql
    --local -q -e`` of a keyed SELECT (idle 2 cores, medians of 7): 1.51 s wall, 0.99 s with
    this. The collections it skips found next to nothing: start-up builds modules, classes
    and example items that live until exit.

    Only the cycle collector: reference counting frees what it always did, and files are
    closed by the code that opened them, never by a collection at exit."""
    global _collecting_less
    _collecting_less = True
    gc.disable()
    atexit.register(gc.freeze)  # registered before any other exit function: runs last


def settled() -> None:
    """The command has started: what exists now lives until exit; collect the rest as usual."""
    if _collecting_less:
        gc.freeze()
        gc.enable()
