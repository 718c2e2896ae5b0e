"""The undo journal: an append-only JSONL file of what each write changed, and undo.

Format (one JSON object a line, DynamoDB JSON for every value, so every type is exact):

- a header line per statement: ``{"journal": 1, "table": "t", "keys": ["pk", "sk"],
  "statement": "UPDATE …", "started": "2026-12-01T04:16:00Z"}``;
- before each write is sent, an intent line: ``{"table": "t", "key": {…}, "intent": true}``,
  with ``"old"`` and ``"new"`` when the write's images are known before it is sent (an UPDATE or
  DELETE whose read returned the whole item, a transaction's action: the item as read and as
  the write leaves it; an undo's restore);
- once it is answered, one line per item written: ``{"table": "t", "key": {…}, "old": {…} | null,
  "new": {…} | null}`` (``old`` null: the item did not exist; ``new`` null: the write deleted
  it), or ``{"table": "t", "key": {…}, "unchanged": true}`` when it was not written (its
  condition failed, a transaction was cancelled).

Write-ahead: every line is flushed before the statement goes on, the intent before its request
is sent. After Ctrl-C, a crash, a kill or exhausted retries the journal lists exactly what was
written, and an intent with no answer line after it is a write whose answer was never recorded
(a lost answer, a process killed in flight). Undo restores such a write from its intent's images
only where the item is now exactly as the write would leave it (else it did not apply, or the
item changed since: left alone); an intent without images (nothing was read: a write by key, an
INSERT) is listed as unknown, never guessed at. The file is created 0600: old images can hold
anything.

Undo (``dynosql undo FILE``, ``UNDO 'file'``) restores each recorded item, newest first, with a
conditional write that succeeds only while the item is still as the statement left it (every
attribute of the new image equal, every attribute it removed still absent); an item changed
since is listed, never overwritten. Undo journals itself like any write.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Generic, TypeVar

from dynosql import values
from dynosql.errors import DynosqlError, classify
from dynosql.plan.expressions import MAX_EXPRESSION_BYTES, Placeholders

T = TypeVar("T")
# a write's (old, new) images, decoded; None: the item absent (before it, or after a delete)
Images = tuple[dict[str, Any] | None, dict[str, Any] | None]
VERSION = 2  # 2: sequence numbers, end lines, targets, intent images, outcomes


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
    never share a file, and is read from the clock once: UNDO LAST takes the name that sorts
    last (seconds and microseconds read apart put a journal begun as a second turned before
    the one begun just earlier)."""
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f".{nanoseconds // 1000:06d}Z"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in table)
    return directory / f"{stamp}-{safe}.jsonl"


class JournalError(DynosqlError):
    """The journal could not be written (a full disk, a read-only or vanished file): the
    statement stops before sending another write, since nothing may be sent that the journal
    does not hold first. The message names the file, what it holds, and how to undo it."""


class Journal:
    """One journal file, open for appending. Thread-safe; each line carries a sequence number
    (``seq``, from 0 at its statement's header) and `close` ends the statement with an end line
    (the count and a SHA-256 of its lines), so undo can tell a journal cut short or edited from
    a whole one.

    Durability (write-ahead): intent lines reach the disk (fsync) before their write is sent.
    Threads that journal intents at the same time share one fsync (group commit: a thread
    finds its lines already synced by the fsync another thread just made, or makes one that
    covers every line written so far); answer lines are synced with the next intents and at
    the end. The directory is synced once, when the file is created."""

    def __init__(self, path: str | os.PathLike[str], *, sync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        created = not self.path.exists()
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if not created and not _ends_a_line(self.path):
            _write_all(self._fd, b"\n")  # a line torn by a crash (or a full disk) stays alone
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._sync = sync
        self._written = 0  # lines written (this process), and synced
        self._synced = 0
        self.lines = 0  # lines of this file written by this Journal
        self.entries = 0
        self.broken: JournalError | None = None
        self._pending: set[str] = set()  # keys of intents not answered yet
        self._seq = 0  # the next line's sequence number in the current statement
        self._digest = hashlib.sha256()
        self._open_statement = False
        if created and sync:
            _sync_directory(self.path.parent)

    @property
    def pending(self) -> int:
        """Writes sent (intent lines) whose outcome is not recorded: the file must be kept."""
        return len(self._pending)

    def begin(
        self,
        table: str,
        keys: tuple[str, ...],
        statement: str,
        target: dict[str, str] | None = None,
    ) -> None:
        """The header line of one statement's entries: the table, its keys, the statement as
        written, and where its writes go (`target`: endpoint, region; see `same_target`)."""
        if self._open_statement:
            self._end()
        with self._lock:
            self._seq = 0
            self._digest = hashlib.sha256()
        header: dict[str, Any] = {
            "journal": VERSION,
            "table": table,
            "keys": list(keys),
            "statement": statement,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if target:
            header["target"] = target
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
            answers=[_ident(table, k) for k, _old, _new in written],
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
        whose read returned the whole item, a transaction's action, an undo's restore): if the
        answer is lost, undo can still tell from the item whether the write applied, and
        restore it."""
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
            idents.append(_ident(table, wire_key))
        self._write(lines, pending=idents)
        self.sync()

    def unchanged(self, table: str, key: dict[str, Any]) -> None:
        """A write that was answered but wrote nothing (its condition failed)."""
        self._outcome(table, key, {"unchanged": True})

    def refused(self, table: str, key: dict[str, Any], why: str) -> None:
        """A write DynamoDB answered with an error (a ValidationException, …): not applied."""
        self._outcome(table, key, {"refused": why})

    def not_sent(self, table: str, keys: list[dict[str, Any]]) -> None:
        """Writes journaled as intents but never sent (the statement stopped first)."""
        wire_keys = [values.encode_item(k) for k in keys]
        self._write(
            [{"table": table, "key": k, "not_sent": True} for k in wire_keys],
            answers=[_ident(table, k) for k in wire_keys],
        )

    def _outcome(self, table: str, key: dict[str, Any], what: dict[str, Any]) -> None:
        wire_key = values.encode_item(key)
        self._write([{"table": table, "key": wire_key, **what}], answers=[_ident(table, wire_key)])

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
                line = _line({"seq": self._seq, **data}) + "\n"
                self._seq += 1
                text.append(line)
            data_bytes = "".join(text).encode("utf-8")
            try:
                _write_all(self._fd, data_bytes)
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
        what = f"{self.entries:,} written item(s) recorded"
        if self._pending:
            what += f", {len(self._pending):,} write(s) sent with no outcome recorded"
        return JournalError(
            f"cannot write the undo journal {self.path}: {err.strerror or err} "
            f"(it holds {self.lines:,} line(s): {what}; no write is sent without its journal "
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


# intents journaled (one write, one fsync) ahead of the writes they announce: 128 writes take
# longer to send (8 in flight) than one fdatasync, so the sync of the next chunk stays hidden
# (32 left the writers waiting on it: 1.27x boto3's UPDATE time, 314 syncs for 10,000 writes)
AHEAD = 128


class WriteAhead(Generic[T]):
    """Intents journaled a chunk at a time ahead of the writes: `__call__` wraps the targets
    of a `Writer.run`, and before yielding a chunk of them it has journaled their intents in
    one write and one fsync (the group commit of a batch: a write is sent only once its intent is
    on disk, and a statement of 10,000 writes makes about 10,000 / AHEAD fsyncs, not one per
    write). `start` is called as each write starts; `close`, after the run, journals the
    intents of writes never started (the statement stopped first: Ctrl-C, --max-wcu, an
    error) as not sent, so undo never takes them for writes whose outcome is unknown."""

    def __init__(
        self,
        journal: Journal,
        table: str,
        key_of: Callable[[T], dict[str, Any]],
        images_of: Callable[[T], Images | None] | None = None,
        chunk: int = AHEAD,
    ):
        self.journal = journal
        self.table = table
        self.key_of = key_of
        self.images_of = images_of
        self.chunk = chunk
        self._announced: dict[str, dict[str, Any]] = {}  # journaled, not started: by item
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[list[T]] | None = None

    def __call__(self, targets: Iterable[T]) -> Iterator[T]:
        """The targets, each chunk's intents on disk before its first target is yielded. The
        next chunk is announced (written, synced) in a helper thread while this one is being
        sent, so the sync's wait hides behind the network's."""
        it = iter(targets)
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-ahead")
        self._pool = pool
        try:
            chunk = list(itertools.islice(it, self.chunk))
            self._future = pool.submit(self._announce, chunk) if chunk else None
            while self._future is not None:
                current = self._future.result()  # on disk
                chunk = list(itertools.islice(it, self.chunk))
                self._future = pool.submit(self._announce, chunk) if chunk else None
                yield from current
        finally:
            pool.shutdown(wait=True)

    def _announce(self, chunk: list[T]) -> list[T]:
        keys = [self.key_of(t) for t in chunk]
        images = None if self.images_of is None else [self.images_of(t) for t in chunk]
        self.journal.intents(self.table, keys, images)  # written and fsynced
        with self._lock:
            for key in keys:
                self._announced[_ident(self.table, values.encode_item(key))] = key
        return chunk

    def start(self, target: T) -> None:
        """The write of `target` is about to be sent (its intent is on disk)."""
        ident = _ident(self.table, values.encode_item(self.key_of(target)))
        with self._lock:
            self._announced.pop(ident, None)

    def close(self) -> None:
        """Journal the announced writes that never started as not sent (nothing when the
        journal itself failed: its error is the statement's)."""
        if self._pool is not None:  # a chunk being announced is on disk (or failed) first
            self._pool.shutdown(wait=True)
        with self._lock:
            unsent, self._announced = list(self._announced.values()), {}
        if unsent and self.journal.broken is None:
            try:
                self.journal.not_sent(self.table, unsent)
            except JournalError:
                pass


def refusal(err: BaseException) -> str | None:
    """``Code: message`` when `err` (or its cause) is DynamoDB refusing a request outright (a
    ValidationException, …: an answer that says nothing was applied, whatever was sent
    before), else None (a lost answer, a 5xx, exhausted throttling: the outcome is unknown)."""
    cause = err.__cause__ if err.__cause__ is not None else err
    failure = classify(cause)
    if failure.kind != "refused" or failure.code == "ConditionalCheckFailedException":
        return None
    return f"{failure.code}: {failure.message}"[:300]


def _ends_a_line(path: Path) -> bool:
    """Whether the file is empty or its last byte ends a line."""
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() == 0:
            return True
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def _write_all(fd: int | None, data: bytes) -> None:
    if fd is None:
        raise OSError(errno.EBADF, "the journal is closed")
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


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_binary_text)


def _ident(table: str, wire_key: dict[str, Any]) -> str:
    """One item of one table, as intents and answers are matched (also when read back)."""
    return json.dumps([table, wire_key], sort_keys=True, default=_binary_text)


def _binary_text(value: Any) -> str:
    """Wire values as JSON (json.dumps' `default`, called for what JSON lacks): binary as
    base64 (``{"B": "…"}``, as DynamoDB JSON writes it)."""
    import base64

    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"not a wire value: {type(value).__name__}")


def _from_wire_json(value: Any, code: str | None = None) -> Any:
    import base64

    if isinstance(value, dict):
        return {k: _from_wire_json(v, k) for k, v in value.items()}
    if code == "B" and isinstance(value, str):
        return base64.b64decode(value)
    if code == "BS" and isinstance(value, list):
        return [base64.b64decode(v) for v in value]
    if isinstance(value, list):
        return [_from_wire_json(v) for v in value]
    return value


@dataclass
class Entry:
    table: str
    key: dict[str, Any]  # decoded
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    line: int
    # from an unanswered intent that carried the images: the write may or may not have
    # applied; undo restores it only where the item is exactly as the write would leave it
    unanswered: bool = False


@dataclass
class Unknown:
    """A write that was sent (its intent line) but whose outcome never reached the journal."""

    table: str
    key: dict[str, Any]  # decoded
    line: int


@dataclass
class Unsent:
    """A write the journal says was never applied: ``not sent`` (the statement stopped
    before sending it) or refused by DynamoDB (``why``: its error)."""

    table: str
    key: dict[str, Any]  # decoded
    line: int
    why: str | None = None  # None: not sent


@dataclass
class Trust:
    """How much of a journal can be trusted: every line up to `lines` (the last line read);
    `unfinished`: header lines of statements with no end line (the process stopped, or the
    file was cut); `damage`: why the file is not as written (lines missing, reordered or
    edited), with the line where it shows. A journal without sequence numbers (version 1)
    cannot be checked: `checked` False."""

    lines: int = 0
    statements: int = 0
    unfinished: list[int] = field(default_factory=list)
    damage: str | None = None
    checked: bool = True

    def warning(self) -> str | None:
        """A loud sentence when the journal is not known whole, else None."""
        if self.damage is not None:
            return f"the journal is damaged: {self.damage}"
        if self.unfinished:
            where = ", ".join(str(n) for n in self.unfinished)
            return (
                f"the journal has no end line for the statement(s) starting at line {where}: "
                "its process stopped mid-statement, or the file was cut short; undo trusts "
                f"the {self.lines:,} line(s) present and nothing after them"
            )
        if not self.checked:
            return "the journal has no sequence numbers (an older dynosql): it cannot be checked"
        return None


@dataclass
class JournalFile:
    path: Path
    headers: list[dict[str, Any]] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)
    unsent: list[Unsent] = field(default_factory=list)
    trust: Trust = field(default_factory=Trust)


class _Segment:
    """One statement's lines as read back: their count and checksum, checked at its end."""

    def __init__(self, header_line: int):
        self.header_line = header_line
        self.next_seq = 0
        self.digest = hashlib.sha256()
        self.ended = False


def read_journal(path: str | os.PathLike[str]) -> JournalFile:
    """Every statement header and item entry of a journal (a torn last line is ignored), and
    how far it can be trusted (`JournalFile.trust`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise DynosqlError(f"cannot read journal {p}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise DynosqlError(f"{p} is not a dynosql journal (not UTF-8 text)") from None
    out = JournalFile(p)
    trust = out.trust
    pending: dict[str, tuple[dict[str, Any], int]] = {}  # unanswered intents, by item
    lines = text.split("\n")
    segment: _Segment | None = None

    def damaged(n: int, why: str) -> None:
        if trust.damage is None:
            trust.damage = f"line {n}: {why}"

    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError
        except ValueError:
            if n >= len(lines) - 1:
                break  # the last line, torn by a crash mid-write
            damaged(n, "not a journal line (torn by a crash, or edited)")
            continue
        trust.lines = n
        seq = data.get("seq")
        if "journal" in data:
            if segment is not None and not segment.ended and segment.next_seq:
                trust.unfinished.append(segment.header_line)
            segment = _Segment(n)
            out.headers.append(data)
            trust.statements += 1
            if seq is None:
                trust.checked = False
                continue
        if seq is not None and segment is not None:
            if segment.ended:
                damaged(n, "a line after its statement's end line")
            elif seq != segment.next_seq:
                damaged(
                    n,
                    f"sequence number {seq} where {segment.next_seq} was expected "
                    "(lines missing, moved or added)",
                )
            if data.get("end"):
                if (
                    data.get("lines") != segment.next_seq
                    or data.get("sha256") != segment.digest.hexdigest()
                ):
                    damaged(n, "the statement's lines do not match its end line (edited)")
                segment.ended = True
                continue
            segment.next_seq += 1
            segment.digest.update((line + "\n").encode("utf-8"))
        elif segment is not None and segment.next_seq and trust.checked:
            damaged(n, "a line with no sequence number (added by hand?)")
        if "journal" in data:
            continue
        try:
            _read_line(data, n, out, pending)
        except (KeyError, TypeError, ValueError, AttributeError):
            damaged(n, "not a journal line (edited?)")
    if not out.headers:
        raise DynosqlError(f"{p} is not a dynosql journal (no header line)")
    if segment is not None and not segment.ended and trust.checked and segment.next_seq:
        trust.unfinished.append(segment.header_line)
    for data, n in sorted(pending.values(), key=lambda x: x[1]):
        wire = _from_wire_json(data)
        key = values.decode_item(wire["key"])
        if "old" in data and "new" in data:  # the images were known: undo can tell
            out.entries.append(
                Entry(wire["table"], key, _image(wire["old"]), _image(wire["new"]), n, True)
            )
        else:
            out.unknown.append(Unknown(wire["table"], key, n))
    out.entries.sort(key=lambda e: e.line)
    return out


def _image(wire: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if wire is None else values.decode_item(wire)


def _read_line(
    data: dict[str, Any], n: int, out: JournalFile, pending: dict[str, tuple[dict[str, Any], int]]
) -> None:
    """One item line: an intent (pending until answered), an outcome, or a written item."""
    ident = _ident(data["table"], data["key"])
    if data.get("intent"):
        pending[ident] = (data, n)
        return
    pending.pop(ident, None)
    if data.get("unchanged"):
        return
    wire = _from_wire_json(data)
    if data.get("not_sent") or "refused" in data:
        why = data.get("refused")
        out.unsent.append(Unsent(wire["table"], values.decode_item(wire["key"]), n, why))
        return
    out.entries.append(
        Entry(
            wire["table"],
            values.decode_item(wire["key"]),
            _image(wire["old"]),
            _image(wire["new"]),
            n,
        )
    )


@dataclass
class Restore:
    """The write that puts one entry's item back, guarded by "still as the statement left it"."""

    entry: Entry
    operation: str  # PutItem or DeleteItem
    params: dict[str, Any]


def restores(journal: JournalFile, key_names: dict[str, tuple[str, ...]]) -> Iterator[Restore]:
    """The undo writes, newest entry first (an item written twice is restored to its first old
    image). `key_names`: each table's key attributes."""
    for entry in reversed(journal.entries):
        if entry.old == entry.new:
            continue  # nothing changed
        ph = Placeholders()
        pk = key_names[entry.table][0]
        condition = _still_as_left(entry, pk, ph)
        params: dict[str, Any] = {"TableName": entry.table}
        if entry.old is None:
            operation = "DeleteItem"
            params["Key"] = values.encode_item(entry.key)
        else:
            operation = "PutItem"
            params["Item"] = values.encode_item(entry.old)
        params["ConditionExpression"] = condition
        params["ReturnValues"] = "ALL_OLD"
        params["ReturnConsumedCapacity"] = "TOTAL"
        ph.into(params)
        yield Restore(entry, operation, params)


def _still_as_left(entry: Entry, pk: str, ph: Placeholders) -> str:
    if entry.new is None:
        return f"attribute_not_exists({ph.name(pk)})"
    full = _equal_all(entry, ph, list(entry.new))
    if len(full.encode("utf-8")) <= MAX_EXPRESSION_BYTES:
        return full
    # a large item: check the attributes the statement changed (and the keys)
    ph.names.clear()
    ph.values.clear()
    ph._by_name.clear()
    old = entry.old or {}
    changed = [
        n for n in entry.new if n not in old or not values.values_equal(old[n], entry.new[n])
    ]
    text = _equal_all(entry, ph, [*entry.key, *changed])
    if len(text.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        raise DynosqlError(f"the item {entry.key} is too large to check before restoring it")
    return text


def _equal_all(entry: Entry, ph: Placeholders, names: list[str]) -> str:
    assert entry.new is not None
    parts = [equal_text(ph.name(n), entry.new[n], ph) for n in dict.fromkeys(names)]
    for name in entry.old or {}:
        if name not in entry.new:
            parts.append(f"attribute_not_exists({ph.name(name)})")
    return " AND ".join(parts)


def equal_text(path: str, value: Any, ph: Placeholders) -> str:
    """``path`` holds exactly `value`. A list or map is compared element by element (its type,
    its size, each element): some DynamoDB implementations do not compare whole documents."""
    code = values.type_of(value)
    if code not in ("L", "M"):
        return f"{path} = {ph.value(value)}"
    parts = [
        f"attribute_type({path}, {ph.value(code)})",
        f"size({path}) = {ph.value(Decimal(len(value)))}",
    ]
    if code == "L":
        parts.extend(equal_text(f"{path}[{i}]", v, ph) for i, v in enumerate(value))
    else:
        parts.extend(equal_text(f"{path}.{ph.name(k)}", v, ph) for k, v in value.items())
    return " AND ".join(parts)
