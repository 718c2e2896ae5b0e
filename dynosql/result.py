"""What a statement gives back: rows (streamed), and what it cost.

Renderers and front doors see only this module's types, never DynamoDB requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from dynosql.entity_model import Entity

Row = dict[str, Any]  # column name -> decoded DynamoDB value; a missing attribute is absent


@dataclass(frozen=True)
class Changes:
    """What a statement changed in its session, applied by the Session (a kind never writes to
    the session; it adds these to its stats, `Stats.change`): `transaction`, the open
    transaction as it now stands (BEGIN opened it, a write was queued into it; None: as it
    was); `setting`, a setting's new value (SET, checked); `declared` and `dropped`, entities
    (CREATE ENTITY, DROP ENTITY, IMPORT MODEL's facets); `export`, a table's export taken
    (table, ARN: the next statement reuses it); `observed`, item collections read whole
    (`dynosql.plan.observed.Found`: later estimates stand on them); `wrote`, the write under
    way or done (its journal: what the front door names after Ctrl-C, what UNDO LAST undoes).

    A statement stopped midway (Ctrl-C, an error after some requests) has still changed what
    it changed: the error carries it (`carried`), and the Session applies it before the error
    goes on."""

    transaction: Any = None
    setting: tuple[str, Any] | None = None
    declared: tuple[Entity, ...] = ()
    dropped: tuple[str, ...] = ()
    export: tuple[str, str] | None = None
    observed: tuple[Any, ...] = ()  # dynosql.plan.observed.Found, in the order found
    wrote: WriteStats | None = None

    def __add__(self, later: Changes) -> Changes:
        """These changes, then `later`'s (a value set by both: `later`'s)."""

        def last(name: str) -> Any:
            value = getattr(later, name)
            return value if value is not None else getattr(self, name)

        return Changes(
            last("transaction"),
            last("setting"),
            self.declared + later.declared,
            self.dropped + later.dropped,
            last("export"),
            self.observed + later.observed,
            last("wrote"),
        )


NO_CHANGES = Changes()
_CHANGING = threading.Lock()  # a statement's workers may add to its changes side by side
_CARRIED = "dynosql_changes"  # the attribute an error carries its statement's changes in


@contextmanager
def carried(stats: Stats) -> Iterator[None]:
    """An error raised in the block (Ctrl-C included) carries what the statement changed in
    its session so far (`stats`' changes, handed over): the Session applies it before the
    error goes on, so an export taken, a partition read or a write begun is not lost."""
    try:
        yield
    except BaseException as err:
        setattr(err, _CARRIED, stats.take_changes() + getattr(err, _CARRIED, NO_CHANGES))
        raise


def carried_by(err: BaseException) -> Changes:
    """The changes `err` carries, then those of the errors it was raised from or during (a
    kind that re-raises a new error keeps what the first one carried; an error deeper in the
    chain left an inner block, whose changes came later)."""
    changes, seen = NO_CHANGES, set()
    link: BaseException | None = err
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        changes = changes + getattr(link, _CARRIED, NO_CHANGES)  # a cause's: made later
        link = link.__cause__ or link.__context__
    return changes


@dataclass
class Stats:
    """Filled in while the rows stream; complete once they are consumed."""

    operations: list[str] = field(
        default_factory=list
    )  # e.g. "Query audit", "Scan drive (4 segments)"
    requests: int = 0
    items_scanned: int = 0
    rows: int = 0
    capacity: Decimal = Decimal(0)
    capacity_estimated: bool = False
    expected_items: int | None = None  # the plan's estimate, for a progress line
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    # the summed DynamoDB size of the items read (what the RCU pay for), exact only while every
    # item evaluated came back whole: a ProjectionExpression, a FilterExpression or
    # Select=COUNT hides part of what was read, and the bytes are then not shown
    bytes_read: int = 0
    bytes_exact: bool = True
    # what the statement has changed in its session so far and the Session has not yet applied
    # (a partition read whole, an export taken, a write begun): `Result.changes`
    changes: Changes = field(default_factory=lambda: NO_CHANGES, repr=False, compare=False)

    def change(self, changes: Changes) -> None:
        """Add to what the statement changed in its session (the Session applies it: when
        the statement returns, once its rows are read, or from the error that stopped it)."""
        with _CHANGING:
            self.changes = self.changes + changes

    def take_changes(self) -> Changes:
        """What is left to apply, handed over once (the Session's)."""
        with _CHANGING:
            changes, self.changes = self.changes, NO_CHANGES
        return changes

    def finish(self) -> None:
        if self.finished is None:
            self.finished = time.monotonic()

    @property
    def elapsed(self) -> float:
        end = self.finished if self.finished is not None else time.monotonic()
        return end - self.started

    def capacity_text(self) -> str:
        value = format_capacity(self.capacity)
        return f"~{value} RCU est." if self.capacity_estimated else f"{value} RCU"

    def bytes_text(self) -> str | None:
        """The bytes read, exact (for EXPLAIN ANALYZE): ``16,794 bytes (16.4 KB)``; None when
        they are not known (see `bytes_exact`)."""
        if not self.bytes_exact:
            return None
        return f"{self.bytes_read:,} bytes ({format_bytes(self.bytes_read)})"

    def footer(self, rows: bool = True) -> str:
        parts = [f"{self.rows} {plural(self.rows, 'row')}"] if rows else []
        if self.operations:
            parts.append(", ".join(self.operations))
        if self.requests:
            parts.append(f"{self.items_scanned} {plural(self.items_scanned, 'item')} scanned")
            if self.bytes_exact:
                parts.append(format_bytes(self.bytes_read))
            parts.append(self.capacity_text())
        parts.append(f"{self.elapsed:.3f}s")
        return " · ".join(parts)


def all_columns(columns: list[str], rows: Iterable[Row]) -> list[str]:
    """The result's columns plus any attribute the rows have beyond them (first seen first):
    the header of a ``SELECT *`` (csv, the DB-API's description). A column named twice
    (``SELECT data, data``: one value, sql/convert.py) stays twice."""
    out, seen = list(columns), set(columns)
    for row in rows:
        for name in row:
            if name not in seen:
                seen.add(name)
                out.append(name)
    return out


def interrupted_text(result: Result | None) -> str:
    """What to say after Ctrl-C: what the statement read and cost before it stopped."""
    if result is not None:
        s = result.stats
        return (
            f"interrupted: read {s.items_scanned} {plural(s.items_scanned, 'item')} in "
            f"{s.requests} {plural(s.requests, 'request')} "
            f"({s.capacity_text()}) before stopping"
        )
    return "interrupted"


class ProgressSink(Protocol):
    """Where long reads report as pages arrive (a self-overwriting line on a terminal)."""

    def __call__(self, stats: Stats) -> None: ...

    def clear(self) -> None: ...


def plural(n: int | Decimal, word: str, many: str | None = None) -> str:
    """`word` for one, else its plural (`many`, or `word` + s): ``1 item``, ``0 items``."""
    return word if n == 1 else many or f"{word}s"


def counted(n: int, word: str, many: str | None = None) -> str:
    """A count and its noun: ``1 entity``, ``1,234 entities``."""
    return f"{n:,} {plural(n, word, many)}"


def format_bytes(size: int) -> str:
    """A size as ``812 bytes``, ``11.2 KB``, ``3.4 MB`` … (units of 1024: a read unit is 4 KB)."""
    if size < 1024:
        return f"{size} {plural(size, 'byte')}"
    value = size / 1024
    units = ["KB", "MB", "GB", "TB"]
    while value >= 1024 and len(units) > 1:
        value /= 1024
        units.pop(0)
    return f"{value:.1f} {units[0]}"


def format_capacity(value: Decimal) -> str:
    text = format(value.normalize(), "f") if value else "0"
    return text


FIGURE_DIGITS = 3  # an estimate's durations and rates: its inputs are rarely truer than that


def format_figure(value: Decimal | float) -> str:
    """A duration or a rate as estimates and EXPLAIN print it: three significant digits, all
    of a whole number's, no trailing zeros (``1.33``, ``0.0417``, ``12.5``, ``2048``), where
    exact division printed ``1.333333333333333333333333333``."""
    number = value if isinstance(value, Decimal) else Decimal(repr(value))
    if not number or not number.is_finite():
        return str(number) if number else "0"
    places = max(0, FIGURE_DIGITS - number.adjusted() - 1)
    return format(number.quantize(Decimal(1).scaleb(-places)).normalize(), "f")


def format_duration(seconds: Decimal | float) -> str:
    """Seconds as ``1.33 s``, ``2.5 min`` or ``3.2 h`` (`format_figure`'s digits)."""
    if seconds < 120:
        return f"{format_figure(seconds)} s"
    if seconds < 2 * 3600:
        return f"{format_figure(seconds / 60)} min"
    return f"{format_figure(seconds / 3600)} h"


@dataclass
class Result:
    """A statement's answer. ``rows`` may be a one-shot generator: iterate it once."""

    columns: list[str]
    rows: Iterable[Row]
    stats: Stats = field(default_factory=Stats)
    warnings: list[str] = field(default_factory=list)
    # "rows" for data, "status" for a statement with nothing to show (SET), "plan" for EXPLAIN,
    # "text" for SQL to save (SHOW ENTITIES … AS CREATE): shown as lines, after what it read
    kind: str = "rows"
    title: str | None = None  # a line shown above a table (DESCRIBE, hot keys)
    notes: list[str] = field(default_factory=list)  # shown after the rows (stderr for scripts)
    # SELECT *: `columns` holds the keys only; rows may carry any other attributes
    open_columns: bool = False
    document: Any = None  # EXPLAIN's plan as JSON data, for --format json
    human_only: tuple[str, ...] = ()  # columns the machine formats leave out (text bars)
    # columns computed inexactly (AVG, division: 38 digits) and the significant digits the
    # formats for people show of them (SET numeric_digits); machine formats stay exact
    inexact: tuple[str, ...] = ()
    digits: int | None = None
    show_footer: bool = True  # a help screen needs no row count
    # done with work left (an undo's items it did not restore): a script stops after it, exit 3
    incomplete: str | None = None

    @classmethod
    def status(cls, title: str, stats: Stats | None = None, warnings: Iterable[str] = ()) -> Result:
        """The answer of a statement with nothing to show but what it did (SET, BEGIN, DDL,
        a write without RETURNING): its `title` is the footer."""
        return cls([], iter(()), stats or Stats(), list(warnings), kind="status", title=title)

    @classmethod
    def plan(cls, lines: Iterable[str], document: Any = None, stats: Stats | None = None) -> Result:
        """EXPLAIN's answer: one row per line, and the plan as JSON data for --format json."""
        result = cls(["plan"], iter([{"plan": line} for line in lines]), kind="plan")
        result.document = document
        if stats is not None:
            result.stats = stats
        return result

    @property
    def changes(self) -> Changes:
        """What the statement changed in its session, not yet applied (its stats')."""
        return self.stats.changes

    def change(self, changes: Changes) -> None:
        """Add to what the statement changed in its session (`Stats.change`)."""
        self.stats.change(changes)

    def footer(self) -> str:
        """The line shown after the result: rows, operations, capacity, time."""
        if self.kind == "status":
            return self.title or "ok"
        if self.kind == "text":
            return self.stats.footer(rows=False)
        if self.kind == "plan":
            if not self.stats.requests:
                return "plan only: no request was sent"
            return "analyzed · " + self.stats.footer(rows=False)
        return self.stats.footer()

    def __iter__(self) -> Iterator[Row]:
        for row in self.rows:
            self.stats.rows += 1
            yield row
        self.stats.finish()

    def all(self) -> list[Row]:
        """Consume every row (tests, table renderers)."""
        return list(self)


@dataclass
class WriteStats(Stats):
    """A write statement's counts, filled in as it runs."""

    verb: str = ""
    table: str = ""
    matched: int = 0  # items the read found (or keys/rows given)
    changed: int = 0  # writes that succeeded
    skipped: int = 0  # condition failed: changed by someone else, or (INSERT) the key exists
    uncertain: int = 0  # written, but by an attempt whose answer was lost: old image unknown
    # the writes' old images were read whole before them (their intent lines hold them): undo
    # restores an uncertain write from there instead of listing it
    images_read: bool = False
    wcu: Decimal = Decimal(0)
    wcu_estimated: bool = False
    dry_run: bool = False
    journal: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def capacity_text(self) -> str:
        """``RCU read + WCU written``, each labelled ``est.`` when estimated."""
        value = format_capacity(self.wcu)
        wcu = f"~{value} WCU est." if self.wcu_estimated else f"{value} WCU"
        return f"{super().capacity_text()} + {wcu}"

    def counts(self) -> str:
        if self.dry_run:
            return f"dry run: {counted(self.matched, 'item')} would be written, nothing was written"
        skipped = "already existed" if self.verb == "INSERT" else "skipped (changed since read)"
        text = f"{self.matched:,} matched, {self.changed:,} written, {self.skipped:,} {skipped}"
        if self.uncertain:
            what = (
                "old image as read before it, in the journal"
                if self.images_read
                else "old image unknown, listed by undo"
            )
            text += (
                f" ({self.uncertain:,} written by a retried request whose first answer was lost: "
                f"{what})"
            )
        return text

    def footer(self, rows: bool = True) -> str:
        parts = [f"{self.rows} {plural(self.rows, 'row')}"] if rows else []
        parts.append(f"{self.verb} {self.table}: {self.counts()}")
        if self.operations:
            parts.append(", ".join(self.operations))
        parts.append(self.capacity_text())
        parts.append(f"{self.elapsed:.3f}s")
        if self.journal:
            parts.append(f"journal {self.journal}")
        return " · ".join(parts)
