"""The journal directory's monotonic sequence, file locks, and journal headers read cheaply.

Each journal begun in a journal directory takes the next number of that directory's counter
(the file ``sequence`` beside the journals), under an exclusive lock, synced before the journal
is written: two processes never take the same number, and a later journal always has a higher
one whatever the clock says (a clock set back, or ahead, reorders journal *names*, never their
sequence). UNDO LAST takes the journal with the highest sequence.

Locks are `flock` locks (advisory, on the whole file; on Linux NFS mounts they are emulated
with POSIX byte-range locks). Where the system has no `fcntl` (Windows) nothing is locked: two
processes starting a journal in one directory at the same moment may take one number (UNDO
LAST then orders them by name), and two processes appending to one ``--journal`` file rely on
each line being one `write` call (its statement id still keeps their statements apart).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: see the module docstring
    fcntl = None  # type: ignore[assignment]

SEQUENCE_FILE = "sequence"
HEADER_BYTES = 1 << 16  # a header line is read from at most this many first bytes


@contextlib.contextmanager
def locked(fd: int) -> Iterator[None]:
    """An exclusive lock on the open file `fd` while inside (nothing where there is no fcntl)."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def next_sequence(directory: Path) -> int | None:
    """The next number of `directory`'s counter, taken under its lock and synced; None when
    the counter cannot be written (the journal then carries no sequence). A counter that is
    missing, empty or not a number starts again above the highest sequence of the journals
    there, so a deleted counter never makes a new journal look older than an old one."""
    path = directory / SEQUENCE_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        with locked(fd):
            text = os.read(fd, 64).strip()
            last = int(text) if text.isdigit() else highest_sequence(directory)
            data = f"{last + 1}\n".encode("ascii")
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
            return last + 1
    except OSError:
        return None
    finally:
        os.close(fd)


def highest_sequence(directory: Path) -> int:
    """The highest sequence in the headers of the journals in `directory` (0: none)."""
    found = (header_of(p).get("sequence") for p in directory.glob("*.jsonl"))
    return max((n for n in found if isinstance(n, int)), default=0)


def header_of(path: Path) -> dict[str, Any]:
    """The header (first line) of a journal, or {} when the file has none that reads."""
    try:
        with path.open("rb") as f:
            first = f.readline(HEADER_BYTES)
        data = json.loads(first)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and "journal" in data else {}
