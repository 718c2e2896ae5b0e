"""Writing a journal: one file open for appending, write-ahead, locked for each append.

See the package docstring for the format. `Journal` writes the lines of one statement at a time
(`begin` … `close`), each line tagged with the statement's id and its own sequence number
(`journal.ahead` journals a run of writes' intents a chunk at a time ahead of them).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.errors import DynosqlError, classify
from dynosql.journal.schema import snapshot
from dynosql.journal.sequence import header_of, locked, next_sequence
from dynosql.result import counted

if TYPE_CHECKING:
    from dynosql.plan.schema import TableInfo

# a write's (old, new) images, decoded; None: the item absent (before it, or after a delete)
Images = tuple[dict[str, Any] | None, dict[str, Any] | None]
# 2: sequence numbers, end lines, targets, intent images, outcomes; 3: statement ids on every
# line (statements of several processes interleave), the directory's sequence, table schemas,
# what an undo undoes
VERSION = 3


def journal_dir(setting: str = "") -> Path | None:
    """Where journals go: the setting's directory, else $XDG_STATE_HOME/dynosql/journal
    (~/.local/state/…); None when the setting is ``off``."""
    if setting.strip().lower() == "off":
        return None
    if setting.strip():
        return Path(setting).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "dynosql" / "journal"


def new_journal_path(directory: Path, table: str) -> Path:
    """``<directory>/<UTC time>-<table>.jsonl``; the time has microseconds, so two statements
    never share a file, and is read from the clock once. (The name is for people: UNDO LAST
    orders journals by the sequence in their headers, see `journal.sequence`.)"""
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f".{nanoseconds // 1000:06d}Z"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in table)
    return directory / f"{stamp}-{safe}.jsonl"


class JournalError(DynosqlError):
    """The journal could not be written (a full disk, a read-only or vanished file, a file
    that is not a journal): the statement stops before sending another write, since nothing
    may be sent that the journal does not hold first. The message names the file, what it
    holds, and how to undo it."""


class Journal:
    """One journal file, open for appending. Thread-safe; each line carries its statement's id
    and a sequence number (``seq``, from 0 at its statement's header), and `close` ends the
    statement with an end line (the count and a SHA-256 of its lines), so undo can tell a
    journal cut short or edited from a whole one, and the statements of two processes
    appending to one file apart. Each append holds the file's lock (`sequence.locked`).

    `numbered`: the file is a journal directory's own (not a ``--journal`` file): each header
    takes the directory's next sequence number.

    Durability (write-ahead): intent lines reach the disk (fsync) before their write is sent.
    Threads that journal intents at the same time share one fsync (group commit: a thread
    finds its lines already synced by the fsync another thread just made, or makes one that
    covers every line written so far); answer lines are synced with the next intents and at
    the end. The directory is synced once, when the file is created."""

    def __init__(self, path: str | os.PathLike[str], *, sync: bool = True, numbered: bool = False):
        self.path = Path(path)
        _make_directory(self.path.parent)
        self._fd: int | None = None
        created = not self.path.exists()
        self._fd = _open_journal(self.path)
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._sync = sync
        self.numbered = numbered
        self._written = 0  # lines written (this process), and synced
        self._synced = 0
        self.lines = 0  # lines of this file written by this Journal
        self.entries = 0
        self.broken: JournalError | None = None
        self._pending: set[str] = set()  # keys of intents not answered yet
        self._seq = 0  # the next line's sequence number in the current statement
        self._id = ""  # the current statement's id
        self._digest = hashlib.sha256()
        self._open_statement = False
        if created and sync:
            _sync_directory(self.path.parent)

    @property
    def pending(self) -> int:
        """Writes sent (intent lines) whose outcome is not recorded: the file must be kept."""
        return len(self._pending)

    @property
    def statement_id(self) -> str:
        """The id of the statement being journaled ("" before `begin`)."""
        return self._id

    def begin(
        self,
        table: str,
        keys: tuple[str, ...],
        statement: str,
        target: dict[str, str] | None = None,
        *,
        tables: Iterable[TableInfo] = (),
        undoes: dict[str, Any] | None = None,
    ) -> None:
        """The header line of one statement's entries: the table, its keys, the statement as
        written, where its writes go (`target`: endpoint, region; see `same_target`), the
        schema of each table it writes (`tables`), and for an undo what it restores."""
        if self._open_statement:
            self._end()
        with self._lock:
            self._seq = 0
            self._digest = hashlib.sha256()
            self._id = secrets.token_hex(6)
        header: dict[str, Any] = {"journal": VERSION}
        if self.numbered:
            sequence = next_sequence(self.path.parent)
            if sequence is not None:
                header["sequence"] = sequence
        header.update(
            table=table,
            keys=list(keys),
            statement=statement,
            started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        if target:
            header["target"] = target
        schemas = {info.name: snapshot(info) for info in tables}
        if schemas:
            header["tables"] = schemas
        if undoes:
            header["undoes"] = undoes
        self._write([header])
        self._open_statement = True

    def record(
        self,
        table: str,
        key: dict[str, Any],
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
    ) -> None:
        """One item written: decoded key and images (None: absent)."""
        self.record_wire(
            table,
            values.encode_item(key),
            None if old is None else values.encode_item(old),
            None if new is None else values.encode_item(new),
        )

    def record_wire(
        self,
        table: str,
        key: dict[str, Any],
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
    ) -> None:
        """`record` of a key and images already in wire form."""
        self.records_wire(table, [(key, old, new)])

    def records_wire(
        self,
        table: str,
        written: list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]],
    ) -> None:
        """`record_wire` of a batch's (key, old, new) in one write (a BatchWriteItem's puts)."""
        self._write(
            [{"table": table, "key": k, "old": old, "new": new} for k, old, new in written],
            answers=[ident(table, k) for k, _old, _new in written],
        )
        with self._lock:
            self.entries += len(written)

    def intent(
        self,
        table: str,
        key: dict[str, Any],
        images: Images | None = None,
    ) -> None:
        """A write about to be sent, on disk before it is. `images`: the item as read before
        the write and as the write will leave it, when both are known (an UPDATE or DELETE
        whose read returned the whole item, a transaction's action, a COPY FROM batch, an
        undo's restore): if the answer is lost, undo can still tell from the item whether
        the write applied, and restore it."""
        self.intents(table, [key], None if images is None else [images])

    def intents(
        self,
        table: str,
        keys: list[dict[str, Any]],
        images: list[Images | None] | None = None,
    ) -> None:
        """`intent` of a batch's keys (decoded): one write and one fsync before it is sent.
        `images`: each write's (old, new) images where known, None where not."""
        lines, idents = [], []
        for i, key in enumerate(keys):
            wire_key = values.encode_item(key)
            data: dict[str, Any] = {"table": table, "key": wire_key, "intent": True}
            known = None if images is None else images[i]
            if known is not None:
                old, new = known
                data["old"] = None if old is None else values.encode_item(old)
                data["new"] = None if new is None else values.encode_item(new)
            lines.append(data)
            idents.append(ident(table, wire_key))
        self._write(lines, pending=idents)
        self.sync()

    def unchanged(self, table: str, key: dict[str, Any]) -> None:
        """A write that was answered but wrote nothing (its condition failed)."""
        self._outcome(table, [key], {"unchanged": True})

    def refused(self, table: str, key: dict[str, Any], why: str) -> None:
        """A write DynamoDB answered with an error (a ValidationException, …): not applied."""
        self.refused_all(table, [key], why)

    def refused_all(self, table: str, keys: list[dict[str, Any]], why: str) -> None:
        """`refused` of several writes in one append: a batch DynamoDB refused, or the actions
        of a cancelled transaction (`why` names the cancellation)."""
        self._outcome(table, keys, {"refused": why})

    def not_sent(self, table: str, keys: list[dict[str, Any]]) -> None:
        """Writes journaled as intents but never sent (the statement stopped first)."""
        self._outcome(table, keys, {"not_sent": True})

    def _outcome(self, table: str, keys: list[dict[str, Any]], what: dict[str, Any]) -> None:
        wire_keys = [values.encode_item(k) for k in keys]
        self._write(
            [{"table": table, "key": k, **what} for k in wire_keys],
            answers=[ident(table, k) for k in wire_keys],
        )

    def _write(
        self,
        items: list[dict[str, Any]],
        answers: list[str] | None = None,
        pending: list[str] | None = None,
    ) -> None:
        with self._lock:
            if self.broken is not None:
                raise self.broken
            text = []
            for data in items:
                line = _line({"seq": self._seq, "id": self._id, **data}) + "\n"
                self._seq += 1
                text.append(line)
            data_bytes = "".join(text).encode("utf-8")
            try:
                _append(self._fd, data_bytes)
            except OSError as err:
                self.broken = self._error(err)
                raise self.broken from None
            self._digest.update(data_bytes)
            self.lines += len(items)
            self._written += 1
            if answers:
                self._pending.difference_update(answers)
            if pending:
                self._pending.update(pending)

    @contextlib.contextmanager
    def group(self) -> Iterator[None]:
        """Intents journaled inside are synced once, at the end (a transaction's actions)."""
        held, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = held
        self.sync()

    def sync(self) -> None:
        """Everything written so far is on disk when this returns (one fsync for every thread
        waiting here: group commit)."""
        if not self._sync:
            return
        with self._lock:
            wanted = self._written
        with self._sync_lock:
            if self._synced >= wanted:
                return  # another thread's fsync covered these lines
            with self._lock:
                upto = self._written
                fd = self._fd
                if self.broken is not None:
                    raise self.broken
            try:
                if fd is not None:
                    _fsync(fd, data_only=True)
            except OSError as err:
                with self._lock:
                    self.broken = self._error(err)
                raise self.broken from None
            self._synced = upto

    def _error(self, err: OSError) -> JournalError:
        what = f"{counted(self.entries, 'written item')} recorded"
        if self._pending:
            what += f", {counted(len(self._pending), 'write')} sent with no outcome recorded"
        return JournalError(
            f"cannot write the undo journal {self.path}: {err.strerror or err} "
            f"(it holds {counted(self.lines, 'line')}: {what}; no write is sent without its journal "
            f"line; dynosql undo {self.path} puts back what it holds)"
        )

    def _end(self) -> None:
        """The statement's end line: how many lines it has and their SHA-256."""
        with self._lock:
            end = {"end": True, "lines": self._seq, "sha256": self._digest.hexdigest()}
        self._write([end])
        self._open_statement = False

    def finish(self, keep: bool) -> bool:
        """End the statement, close the file and remove it when it holds nothing to undo: no
        write answered and none sent without its answer. `keep`: the user's own file
        (``--journal``) stays. Whether the file is still there."""
        self.close()
        if self.entries or self.pending or keep or self.broken is not None:
            return True
        self.path.unlink(missing_ok=True)
        return False

    def close(self) -> None:
        """End the statement (when the file can still be written), sync and close. Never
        raises for a broken journal: its error was raised where it happened."""
        if self._fd is None:
            return
        try:
            if self._open_statement and self.broken is None:
                self._end()
            self.sync()
        except JournalError:
            pass
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def refusal(err: BaseException) -> str | None:
    """``Code: message`` when `err` (or its cause) is DynamoDB refusing a request outright (a
    ValidationException, a cancelled transaction, …: an answer that says nothing was applied,
    whatever was sent before), else None (a lost answer, a 5xx, exhausted throttling: the
    outcome is unknown)."""
    cause = err.__cause__ if err.__cause__ is not None else err
    failure = classify(cause)
    if failure.kind != "refused" or failure.code == "ConditionalCheckFailedException":
        return None
    return f"{failure.code}: {failure.message}"[:300]


def ident(table: str, wire_key: dict[str, Any]) -> str:
    """One item of one table, as intents and answers are matched (also when read back)."""
    return json.dumps([table, wire_key], sort_keys=True, default=binary_text)


def binary_text(value: Any) -> str:
    """Wire values as JSON (json.dumps' `default`, called for what JSON lacks): binary as
    base64 (``{"B": "…"}``, as DynamoDB JSON writes it)."""
    import base64

    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"not a wire value: {type(value).__name__}")


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=binary_text)


# --- the file itself: the journal's one way to open, write and sync (tests inject faults here)


def _make_directory(directory: Path) -> None:
    """The journal's directory, made (0700) where missing; a clear sentence when something is
    in the way (a file, a symbolic link to nothing)."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:
        raise JournalError(_in_the_way(directory)) from None
    except OSError as err:
        raise JournalError(
            f"cannot create the journal directory {directory}: {err.strerror or err}"
        ) from None


def _in_the_way(directory: Path) -> str:
    for part in (directory, *directory.parents):
        if part.is_symlink() and not part.exists():
            return (
                f"cannot create the journal directory {directory}: {part} is a symbolic link to "
                f"{os.readlink(part)}, which does not exist (create it, or set journal_dir)"
            )
        if part.exists() and not part.is_dir():
            return f"cannot create the journal directory {directory}: {part} is not a directory"
    return f"cannot create the journal directory {directory}"


def _open_journal(path: Path) -> int:
    """The file open for appending (created 0600). An existing file must be a journal: a
    ``--journal`` naming any other file (a text file, a link to one) is refused before the
    first write, never appended to. A line torn by a crash (or a full disk) is ended, so the
    next line stays whole."""
    try:
        fd = _open_file(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError as err:
        raise JournalError(f"cannot write the undo journal {path}: {err.strerror}") from None
    try:
        with locked(fd):
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_size:
                if not header_of(path):
                    linked = f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""
                    raise JournalError(
                        f"{path}{linked} is not a dynosql journal (its first line is no journal "
                        "header): refusing to append to it, nothing was written (name a new "
                        "file, or a journal, with --journal)"
                    )
                os.lseek(fd, info.st_size - 1, os.SEEK_SET)
                if os.read(fd, 1) != b"\n":
                    _write_all(fd, b"\n")
    except BaseException:
        os.close(fd)
        raise
    return fd


_open_file = os.open  # the journal's one way to open its file


def _append(fd: int | None, data: bytes) -> None:
    """`data` at the end of the file, under its lock (another process may append too)."""
    if fd is None:
        raise OSError(errno.EBADF, "the journal is closed")
    with locked(fd):
        _write_all(fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        done = _os_write(fd, view)
        view = view[done:]


_os_write = os.write  # the journal's one way to write (tests inject ENOSPC here)


def _fsync(fd: int, data_only: bool = False) -> None:
    """fsync, or fdatasync (`data_only`) where the system has it: for an append-only file it
    syncs the lines and the size that reads them back, without the times."""
    sync = getattr(os, "fdatasync", os.fsync) if data_only else os.fsync
    try:
        sync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP):  # a pipe or device: nothing to sync
            raise


def _sync_directory(directory: Path) -> None:
    """A new file's name reaches the disk with its directory's fsync."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        _fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
