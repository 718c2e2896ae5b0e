"""The narrow, typed object every statement kind receives: one session's services.

A kind never sees the `Session` (which dispatches statements to kinds): it gets a `Context`
holding the settings, the backend port (`dynosql.plan.port`: every AWS request, the catalog,
reads, writes, DDL, exports, with retries, limits, cancellation and the capacity ledger inside
it), the journal factory and the front door's `tell`/`confirm` callbacks. This module imports
no statement kind, so the import graph keeps one direction: session → statements → context.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import guards
from dynosql.entities.catalog import Entities
from dynosql.errors import DynosqlError, GuardError
from dynosql.evaluate import reads
from dynosql.evaluate.reads import FirstPage
from dynosql.plan.model import Plan
from dynosql.plan.observed import MAX_SORT_KEYS, Found, Observed, Partition
from dynosql.plan.planner import Options, plan_full_scan
from dynosql.plan.port import Capabilities, Ledger, MoreKeys, Port
from dynosql.plan.schema import TableInfo
from dynosql.result import Changes, ProgressSink, Stats, format_capacity
from dynosql.settings import Settings

if TYPE_CHECKING:
    from dynosql.journal import Journal


@dataclass
class Doors:
    """What the front door lets statements do with the person (or script) in front of it.

    `confirm`: a question in, yes/no out; None where nobody can be asked (a script: refused
    unless `assume_yes`, i.e. --yes). `notice`: say something before the statement ends."""

    confirm: Callable[[str], bool] | None = None
    assume_yes: bool = False
    notice: Callable[[str], None] | None = None
    progress: ProgressSink | None = None
    # a person at the REPL: a hint may read a bounded sample (its cost on a line of its own);
    # elsewhere (scripts, library calls) hints read nothing the statement did not read
    interactive: bool = False


@dataclass(frozen=True)
class Context:
    """One statement's view of its session, handed to its kind: data, read-only. Every AWS
    request goes through `port` (its catalog and ledger are the port's own). What a statement
    changes in the session (a transaction opened or queued into, a setting, entities declared
    or dropped, an export taken, a partition read whole, a write begun) it adds to its stats
    (`Stats.change`): it comes back in its `Result.changes`, or in the error that stopped it
    (`dynosql.result.carried`), and the Session applies it. No kind writes to the Context
    (tests/test_architecture.py), but for the cancellation token: COPY stopped by Ctrl-C sets
    it, so that its batch writer's thread stops at its next wait."""

    port: Port
    settings: Settings
    doors: Doors = field(default_factory=Doors)
    # the partitions read whole by this session's statements, for EXPLAIN's estimates (read
    # here; what a statement reads whole comes back in its `Changes.observed`)
    observed: Observed = field(default_factory=Observed)
    # set by Session.cancel(): reads and waits stop (the port's own event)
    cancelled: threading.Event = field(default_factory=threading.Event)
    transaction: Any = None  # the writes queued since BEGIN (statements.transaction)
    journal_file: str | None = None  # --journal FILE (else one file per statement)
    # table → the export ARN taken this session (a new one: `Changes.export`)
    exports: Mapping[str, str] = field(default_factory=dict)
    entities: Entities = field(default_factory=Entities)  # CREATE ENTITY's definitions

    # --- the backend -----------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        return self.port.capabilities

    @property
    def estimating(self) -> bool:
        """Whether capacity is estimated here (the server's figures are not real)."""
        return self.port.estimating

    @property
    def ledger(self) -> Ledger:
        return self.port.ledger

    # --- the catalog -----------------------------------------------------------------------

    def options(self) -> Options:
        caps = self.capabilities
        return Options(
            consistent=self.settings.consistent,
            segments=self.settings.segments,
            typed_filters=caps.server_filters,
            projections=caps.projections,
            observed=self.observed,
            rate_limit=self.settings.rate_limit,
            scan_instead=not self.settings.fail_on_scan,
        )

    def table(self, name: str, fresh: bool = False) -> TableInfo:
        """A table's keys, indexes and sizes (DescribeTable, cached; `fresh`: sent now, for
        a statement that must see the table as it is, changed elsewhere or not: a read). After
        a change this session sends, the port describes the table anew by itself."""
        return self.port.table(name, fresh)

    def table_names(self, pattern: str | None = None) -> list[str]:
        """The table names, sorted (ListTables, fresh); `pattern` is a glob such as ``aud*``."""
        names = sorted(self.port.table_names(fresh=True))
        return [n for n in names if fnmatch.fnmatchcase(n, pattern)] if pattern else names

    def full_scan_plan(self, table: str, index: str | None = None, keys_only: bool = False) -> Plan:
        """The plan that reads every item of a table or index (SHOW HOT KEYS); `keys_only`:
        their partition key alone."""
        return plan_full_scan(self.table(table), index, self.options(), keys_only)

    def sample(self, table: str) -> list[dict[str, Any]]:
        """Up to `SAMPLE_ITEMS` items of `table`, read once per session (`Port.sample`)."""
        return self.port.sample(table)

    def hint_sample(self, table: str) -> tuple[list[dict[str, Any]] | None, str | None]:
        """The items hints may compare names and types against, and, when they were read for
        the hint now, what that read cost (a line of its own). A sample already read this
        session (the catalog's, where the backend reports no table size) is used as it is;
        a new one is read only for a person at the REPL (`Doors.interactive`), never under
        ``--fail-on-scan``. Scripts and library calls get None: no read nobody asked for."""
        if self.port.has_sample(table):
            return self.port.sample(table), None
        if not self.doors.interactive or not guards.may_sample(self):
            return None, None
        before = self.ledger.rcu
        items = self.sample(table)
        spent = self.ledger.rcu - before
        cost = (
            f"~{format_capacity(spent)} RCU est."
            if self.estimating
            else f"{format_capacity(spent)} RCU"
        )
        return (
            items,
            f"read for the hints: a {len(items)}-item sample of {table} (one Scan page, {cost})",
        )

    # --- reading ---------------------------------------------------------------------------

    def read(
        self, plan: Plan, stats: Stats, first_page: FirstPage | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every item `plan` reads that passes its client-side checks (`evaluate.reads`).
        `first_page`: sees a Scan's first page, read whole for the hints (`Port.pages`)."""
        try:
            pages = self.port.pages(plan, stats, whole_first=first_page is not None)
        except MoreKeys:
            yield from self._instead(plan, stats, first_page)
            return
        items = reads.rows(pages, plan.statement.where, _once_by(plan), first_page)
        yield from (items if plan.whole_partition is None else self._observing(plan, items, stats))
        if plan.then is not None:  # reached only when the rows fell short of LIMIT
            then = self.port.pages(plan.then, stats)
            yield from reads.rows(then, plan.then.statement.where, _once_by(plan.then))

    def _instead(
        self, plan: Plan, stats: Stats, first_page: FirstPage | None
    ) -> Iterator[dict[str, Any]]:
        """The read a plan's Fallback switches to, its index holding more keys than fetching
        them is worth: a Scan passes stage 3 of the guards as it becomes one (--max-rcu on its
        estimate; --fail-on-scan plans no Scan to switch to)."""
        assert plan.fallback is not None
        rule = plan.fallback
        stats.operations[-1] = f"Query {plan.target} (more than {rule.keys:,} keys)"
        guards.scan(self, rule.plan)
        yield from self.read(rule.plan, stats, first_page)

    def count(self, plan: Plan, stats: Stats, first_page: FirstPage | None = None) -> int:
        """The item count of a Select=COUNT plan."""
        pages = self.port.count_pages(plan, stats, whole_first=first_page is not None)
        count = reads.count(pages, plan.statement.where, first_page)
        if plan.whole_partition is not None:
            self._observe(plan, stats, None)
        return count

    def _observing(
        self, plan: Plan, items: Iterator[dict[str, Any]], stats: Stats
    ) -> Iterator[dict[str, Any]]:
        """`items`, and once they have all been read, the partition remembered (a consumer that
        stops early, LIMIT, leaves it partly read: nothing is remembered)."""
        sk = plan.access.keys.sk
        sort_keys: list[Any] | None = [] if sk is not None else None
        returned = 0
        for item in items:
            returned += 1
            if sort_keys is not None:
                if sk in item and len(sort_keys) < MAX_SORT_KEYS:
                    sort_keys.append(item[sk])
                else:
                    sort_keys = None
            yield item
        if returned != stats.items_scanned:  # a filter dropped some: their sort keys unseen
            sort_keys = None
        self._observe(plan, stats, sort_keys)

    def _observe(self, plan: Plan, stats: Stats, sort_keys: list[Any] | None) -> None:
        """The partition read whole, for the session to remember (`Changes.observed`)."""
        assert plan.whole_partition is not None
        size = stats.bytes_read if stats.bytes_exact and stats.items_scanned else None
        partition = Partition(
            stats.items_scanned, size, tuple(sort_keys) if sort_keys is not None else None
        )
        found = Found(plan.table.name, plan.access.name, plan.whole_partition[0], partition)
        stats.change(Changes(observed=(found,)))

    def pages(self, plan: Plan, stats: Stats) -> Iterator[tuple[int, int, list[dict[str, Any]]]]:
        """The plan's pages tagged with their segment (sampling)."""
        yield from reads.sampled(self.port.segment_pages(plan, stats))

    def read_wire_pages(
        self,
        plan: Plan,
        stats: Stats,
        reduce: Callable[[list[dict[str, Any]], list[int] | None], Any],
        reduce_body: Callable[[bytes | str], Any] | None = None,
    ) -> Iterator[Any]:
        """`read` for a plan whose items stay in the wire form: `reduce` of each page's items
        and sizes (or `reduce_body` of its bytes), computed where the page was read (SHOW HOT
        KEYS; a GROUP BY counted by its keys)."""
        yield from self.port.wire_pages(plan, stats, reduce, reduce_body)

    def memory_budget(self) -> int | None:
        """Bytes a statement's client-side sort or grouping may hold before spilling."""
        budget = self.settings.memory_budget
        return None if budget is None else int(budget * 1024 * 1024)

    # --- writing ---------------------------------------------------------------------------

    def journal_target(self) -> Path | None:
        """The journal file the next statement appends to (--journal FILE), or the directory a
        new one goes in; None when journaling is off."""
        from dynosql.journal import journal_dir  # loaded by the statements that write

        if self.journal_file:
            return Path(self.journal_file)
        return journal_dir(self.settings.journal_dir)

    def open_journal(self, table: str) -> Journal | None:
        target = self.journal_target()
        if target is None:
            return None
        from dynosql.journal import Journal, new_journal_path

        path = target if self.journal_file else new_journal_path(target, table)
        try:  # a journal directory's own file takes the directory's next sequence number
            return Journal(path, numbered=not self.journal_file)
        except OSError as err:
            raise DynosqlError(f"cannot write the undo journal {path}: {err.strerror}") from None

    def write_target(self, table: str | None = None) -> dict[str, str]:
        """Where this session's writes go, as the journal's header records it (`Port.target`)."""
        return self.port.target(table)

    def keep_journal(self) -> bool:
        """Whether a journal with nothing to undo is kept (--journal FILE is the user's)."""
        return bool(self.journal_file)

    # --- the front door --------------------------------------------------------------------

    @property
    def can_confirm(self) -> bool:
        """Whether a question can get a yes: --yes, or a front door that can ask."""
        return self.doors.assume_yes or self.doors.confirm is not None

    def confirmed(self, question: str, refusal: str) -> bool:
        """Ask `question` through the front door: yes with --yes; GuardError (exit 3) with
        `refusal` where nobody can be asked."""
        if self.doors.assume_yes:
            return True
        if self.doors.confirm is None:
            raise GuardError(refusal)
        return bool(self.doors.confirm(question))

    def tell(self, text: str) -> None:
        """Say `text` now, through the front door (stderr, the REPL's screen)."""
        if self.doors.notice is not None:
            self.doors.notice(text)


def _once_by(plan: Plan) -> tuple[str, ...] | None:
    """The key names by which an item two of the plan's requests read is kept once."""
    return plan.table.keys.names if plan.dedupe else None
