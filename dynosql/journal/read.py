"""Reading a journal back: its statements, the items they wrote, and how far it can be trusted.

Lines are put back with their statement by its id (version 3), so the statements of two
processes that appended to one file at once read apart, each checked whole (its sequence
numbers, its end line's count and checksum); a version-2 journal's lines follow their header.
An intent with no answer in its statement is a write whose outcome never reached the journal:
with its images it becomes an `Entry` marked unanswered (undo tells from the item whether it
applied), without them an `Unknown`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dynosql import values
from dynosql.errors import DynosqlError
from dynosql.journal.file import ident
from dynosql.result import counted, plural


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
    statement: int = 0  # its statement: an index into JournalFile.headers


@dataclass
class Unknown:
    """A write that was sent (its intent line) but whose outcome never reached the journal."""

    table: str
    key: dict[str, Any]  # decoded
    line: int
    statement: int = 0


@dataclass
class Unsent:
    """A write the journal says was never applied: ``not sent`` (the statement stopped
    before sending it) or refused by DynamoDB (``why``: its error, a transaction's
    cancellation among them)."""

    table: str
    key: dict[str, Any]  # decoded
    line: int
    why: str | None = None  # None: not sent
    statement: int = 0


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
                f"the journal has no end line for the "
                f"{plural(len(self.unfinished), 'statement')} starting at "
                f"{plural(len(self.unfinished), 'line')} {where}: its "
                "process stopped mid-statement, or the file was cut short; undo trusts the "
                f"{counted(self.lines, 'line')} present and nothing after them"
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

    @property
    def wrote(self) -> bool:
        """Whether any of its writes may have changed an item (answered, or never answered)."""
        return bool(self.entries or self.unknown)


class _Statement:
    """One statement's lines as read back: their count and checksum, checked at its end."""

    def __init__(self, header_line: int, index: int):
        self.header_line = header_line
        self.index = index
        self.next_seq = 0
        self.digest = hashlib.sha256()
        self.ended = False
        self.checked = True


_Pending = dict[tuple[int, str], tuple[dict[str, Any], int]]


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
    pending: _Pending = {}  # unanswered intents, by statement and item
    lines = text.split("\n")
    by_id: dict[str, _Statement] = {}
    statements: list[_Statement] = []
    current: _Statement | None = None  # version 2: the lines that follow belong to it

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
        seq, sid = data.get("seq"), data.get("id")
        if "journal" in data:
            statement = _Statement(n, len(out.headers))
            statements.append(statement)
            out.headers.append(data)
            trust.statements += 1
            if sid is not None:
                if sid in by_id:
                    damaged(n, f"a second statement with the id {sid} (lines copied?)")
                by_id[sid] = statement
            current = statement
            if seq is None:  # version 1: nothing to check against
                trust.checked = statement.checked = False
                continue
        else:
            found = by_id.get(sid) if sid is not None else current
            if found is None:
                damaged(n, "a line of no statement (its header line is missing)")
                continue
            statement = found
        if seq is not None:
            if statement.ended:
                damaged(n, "a line after its statement's end line")
            elif seq != statement.next_seq:
                damaged(
                    n,
                    f"sequence number {seq} where {statement.next_seq} was expected "
                    "(lines missing, moved or added)",
                )
            if data.get("end"):
                if (
                    data.get("lines") != statement.next_seq
                    or data.get("sha256") != statement.digest.hexdigest()
                ):
                    damaged(n, "the statement's lines do not match its end line (edited)")
                statement.ended = True
                continue
            statement.next_seq += 1
            statement.digest.update((line + "\n").encode("utf-8"))
        elif statement.checked and statement.next_seq:
            damaged(n, "a line with no sequence number (added by hand?)")
        if "journal" in data:
            continue
        try:
            _read_line(data, n, statement.index, out, pending)
        except (KeyError, TypeError, ValueError, AttributeError):
            damaged(n, "not a journal line (edited?)")
    if not out.headers:
        if not text.strip():  # created, then its process stopped before the first line
            raise DynosqlError(f"{p} is empty: no write was journaled in it, nothing to undo")
        raise DynosqlError(f"{p} is not a dynosql journal (no header line)")
    trust.unfinished = [s.header_line for s in statements if s.checked and not s.ended]
    for (index, _item), (data, n) in sorted(pending.items(), key=lambda x: x[1][1]):
        wire = _from_wire_json(data)
        key = values.decode_item(wire["key"])
        if "old" in data and "new" in data:  # the images were known: undo can tell
            out.entries.append(_entry(wire, key, n, index, unanswered=True))
        else:
            out.unknown.append(Unknown(wire["table"], key, n, index))
    out.entries.sort(key=lambda e: e.line)
    return out


def _read_line(
    data: dict[str, Any], n: int, statement: int, out: JournalFile, pending: _Pending
) -> None:
    """One item line: an intent (pending until answered), an outcome, or a written item."""
    item = (statement, ident(data["table"], data["key"]))
    if data.get("intent"):
        pending[item] = (data, n)
        return
    pending.pop(item, None)
    if data.get("unchanged"):
        return
    wire = _from_wire_json(data)
    key = values.decode_item(wire["key"])
    if data.get("not_sent") or "refused" in data:
        why = data.get("refused")
        out.unsent.append(Unsent(wire["table"], key, n, why, statement))
        return
    out.entries.append(_entry(wire, key, n, statement))


def _entry(
    wire: dict[str, Any], key: dict[str, Any], n: int, statement: int, unanswered: bool = False
) -> Entry:
    old, new = _image(wire["old"]), _image(wire["new"])
    return Entry(wire["table"], key, old, new, n, unanswered, statement)


def _image(wire: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if wire is None else values.decode_item(wire)


def _from_wire_json(value: Any, code: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _from_wire_json(v, k) for k, v in value.items()}
    if code == "B" and isinstance(value, str):
        return base64.b64decode(value)
    if code == "BS" and isinstance(value, list):
        return [base64.b64decode(v) for v in value]
    if isinstance(value, list):
        return [_from_wire_json(v) for v in value]
    return value
