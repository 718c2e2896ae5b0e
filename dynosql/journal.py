"""The undo journal: an append-only JSONL file of what each write changed, and undo.

Format (one JSON object a line, DynamoDB JSON for every value, so every type is exact):

- a header line per statement: ``{"journal": 1, "table": "t", "keys": ["pk", "sk"],
  "statement": "UPDATE …", "started": "2026-12-01T04:16:00Z"}``;
- before each write is sent, an intent line: ``{"table": "t", "key": {…}, "intent": true}``;
- once it is answered, one line per item written: ``{"table": "t", "key": {…}, "old": {…} | null,
  "new": {…} | null}`` (``old`` null: the item did not exist; ``new`` null: the write deleted
  it), or ``{"table": "t", "key": {…}, "unchanged": true}`` when it was not written (its
  condition failed, a transaction was cancelled).

Write-ahead: every line is flushed before the statement goes on, the intent before its request
is sent. After Ctrl-C, a crash, a kill or exhausted retries the journal lists exactly what was
written, and an intent with no answer line after it is a write whose outcome is unknown (sent,
answer never recorded): undo lists those keys instead of guessing. The file is created 0600:
old images can hold anything.

Undo (``dynosql undo FILE``, ``UNDO 'file'``) restores each recorded item, newest first, with a
conditional write that succeeds only while the item is still as the statement left it (every
attribute of the new image equal, every attribute it removed still absent); an item changed
since is listed, never overwritten. Undo journals itself like any write.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from dynosql import values
from dynosql.errors import DynosqlError
from dynosql.plan.expressions import MAX_EXPRESSION_BYTES, Placeholders

VERSION = 1


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
    never share a file."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"{time.time() % 1:.6f}"[1:] + "Z"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in table)
    return directory / f"{stamp}-{safe}.jsonl"


class Journal:
    """One journal file, open for appending; `record` is thread-safe and flushes each line."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8")
        self._lock = threading.Lock()
        self.entries = 0
        self._pending: set[str] = set()  # keys of intents not answered yet

    @property
    def pending(self) -> int:
        """Writes sent (intent lines) whose outcome is not recorded: the file must be kept."""
        return len(self._pending)

    def begin(self, table: str, keys: tuple[str, ...], statement: str) -> None:
        """The header line of one statement's entries."""
        self._write(
            {
                "journal": VERSION,
                "table": table,
                "keys": list(keys),
                "statement": statement,
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
        )

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
        """`record` of a key and images already in wire form (a BatchWriteItem's puts)."""
        self._write(
            {"table": table, "key": key, "old": old, "new": new}, answers=_ident(table, key)
        )
        self.entries += 1

    def intent(self, table: str, key: dict[str, Any]) -> None:
        """A write about to be sent (flushed before it is)."""
        self.intents(table, [key])

    def intents(self, table: str, keys: list[dict[str, Any]]) -> None:
        """`intent` of a batch's keys (decoded), in one flush before the batch is sent."""
        lines, idents = [], []
        for key in keys:
            wire_key = values.encode_item(key)
            data = {"table": table, "key": wire_key, "intent": True}
            lines.append(_line(data))
            idents.append(_ident(table, wire_key))
        with self._lock:
            self._file.write("".join(line + "\n" for line in lines))
            self._file.flush()
            self._pending.update(idents)

    def unchanged(self, table: str, key: dict[str, Any]) -> None:
        """A write that was answered but wrote nothing (its condition failed)."""
        wire_key = values.encode_item(key)
        self._write(
            {"table": table, "key": wire_key, "unchanged": True}, answers=_ident(table, wire_key)
        )

    def _write(self, data: dict[str, Any], answers: str | None = None) -> None:
        line = _line(data)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()
            if answers is not None:
                self._pending.discard(answers)

    def finish(self, keep: bool) -> bool:
        """Close the file and remove it when it holds nothing to undo: no write answered and
        none sent without its answer. `keep`: the user's own file (``--journal``) stays.
        Whether the file is still there."""
        self.close()
        if self.entries or self.pending or keep:
            return True
        self.path.unlink(missing_ok=True)
        return False

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


@dataclass
class Unknown:
    """A write that was sent (its intent line) but whose outcome never reached the journal."""

    table: str
    key: dict[str, Any]  # decoded
    line: int


@dataclass
class JournalFile:
    path: Path
    headers: list[dict[str, Any]] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)


def read_journal(path: str | os.PathLike[str]) -> JournalFile:
    """Every statement header and item entry of a journal (a torn last line is ignored)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise DynosqlError(f"cannot read journal {p}: {err.strerror}") from None
    out = JournalFile(p)
    pending: dict[str, Unknown] = {}  # intents not answered yet, by table and key
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if n >= len(lines) - 1:
                break  # the last line, torn by a crash mid-write
            raise DynosqlError(f"{p}, line {n}: not a dynosql journal line") from None
        if "journal" in data:
            out.headers.append(data)
            continue
        try:
            wire = _from_wire_json(data)
            ident = _ident(data["table"], data["key"])
            if data.get("intent"):
                pending[ident] = Unknown(wire["table"], values.decode_item(wire["key"]), n)
                continue
            pending.pop(ident, None)
            if data.get("unchanged"):
                continue
            out.entries.append(
                Entry(
                    wire["table"],
                    values.decode_item(wire["key"]),
                    None if wire["old"] is None else values.decode_item(wire["old"]),
                    None if wire["new"] is None else values.decode_item(wire["new"]),
                    n,
                )
            )
        except (KeyError, TypeError, ValueError):
            raise DynosqlError(f"{p}, line {n}: not a dynosql journal line") from None
    if not out.headers:
        raise DynosqlError(f"{p} is not a dynosql journal (no header line)")
    out.unknown = sorted(pending.values(), key=lambda u: u.line)
    return out


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
