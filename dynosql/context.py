"""The narrow, typed object every statement kind receives: one session's services.

A kind never sees the `Session` (which dispatches statements to kinds): it gets a `Context`
holding the settings, the catalog, the readers and writers (limits, pacing, sleep and
cancellation already set), the journal factory, the capacity ledger and the front door's
`tell`/`confirm` callbacks. This module imports no statement kind, so the import graph keeps
one direction: session → statements → context.
"""

from __future__ import annotations

import fnmatch
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import guards
from dynosql.dynamo.capabilities import Capabilities, from_response, probe
from dynosql.dynamo.catalog import SAMPLE_ITEMS, Catalog
from dynosql.dynamo.reader import Executor, FirstPage, Limits
from dynosql.dynamo.retry import RetryPolicy, Sleep
from dynosql.entities.catalog import Entities
from dynosql.errors import DynosqlError, GuardError
from dynosql.evaluate import count_groups
from dynosql.evaluate.aggregate import collect_aggregates, count_group, group
from dynosql.evaluate.pipeline import aggregate_rows, select_rows
from dynosql.plan.model import Plan
from dynosql.plan.observed import MAX_SORT_KEYS, Observed, Partition
from dynosql.plan.planner import Options, plan_full_scan
from dynosql.plan.schema import TableInfo
from dynosql.result import ProgressSink, Result, Stats, format_capacity
from dynosql.settings import Settings

if TYPE_CHECKING:
    from dynosql.dynamo.writer import WriteLimits, Writer, WriteStats
    from dynosql.journal import Journal
    from dynosql.sql import ast


_NO_UNITS = Decimal(0)


@dataclass
class Ledger:
    """The session's one capacity ledger: read and write units kept apart.

    Nothing else keeps a total. `settle` adds what a statement's stats consumed since they
    were last settled, so calling it again (a stream finishing after an early settle) never
    counts a unit twice."""

    rcu: Decimal = Decimal(0)
    wcu: Decimal = Decimal(0)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def settle(self, stats: Stats) -> None:
        rcu = stats.capacity
        wcu = getattr(stats, "wcu", _NO_UNITS)  # a write's stats (WriteStats) carry WCU
        with self._lock:
            self.rcu += rcu - stats.settled[0]
            self.wcu += wcu - stats.settled[1]
            stats.settled[:] = [rcu, wcu]

    def charge(self, rcu: Decimal = Decimal(0), wcu: Decimal = Decimal(0)) -> None:
        """Units counted outside a Stats object (COPY FROM's batches and journal reads)."""
        with self._lock:
            self.rcu += rcu
            self.wcu += wcu


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


class Context:
    """One session's services, handed to every statement kind."""

    def __init__(
        self,
        client: Any,
        settings: Settings,
        *,
        capabilities: Capabilities | None = None,
        doors: Doors | None = None,
        sleep: Sleep = time.sleep,
        run: Callable[[ast.Statement], Result] | None = None,
    ):
        self.client = client
        self.settings = settings
        self.doors = doors or Doors()
        self.sleep = sleep  # every retry and pacing wait (tests give a quicker one)
        self._capabilities = capabilities
        self.unprojectable: set[str] = set()  # tables moto failed to project (capabilities.py)
        # moto reports no table sizes: the catalog measures them on a sample, an emulator's
        # workaround that is not added to the ledger
        self.catalog = Catalog(
            client,
            lambda: self.capabilities,
            lambda name: self.sample(name, counted=False),
            self.retry_policy,
            heard=self._heard,
        )
        self._samples: dict[str, list[dict[str, Any]]] = {}
        # the partitions read whole by this session's statements, for EXPLAIN's estimates
        self.observed = Observed()
        self.cancelled = threading.Event()  # set by Session.cancel(): reads and waits stop
        self.ledger = Ledger()
        self.catalog_version = 0  # bumped by refresh(): caches elsewhere (completion) follow
        self.journal_file: str | None = None  # --journal FILE (else one file per statement)
        self.embedded = False  # the in-process server of --local (its port changes per run)
        self.last_write: WriteStats | None = None
        self.transaction: Any = None  # the writes queued since BEGIN (statements.transaction)
        self.exports: dict[str, str] = {}  # table → the export ARN taken this session
        self.entities = Entities()  # CREATE ENTITY: client-side definitions (dynosql.entities)
        self._run = run
        self._aws_clients: dict[str, Any] = {}

    # --- the backend -----------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can be trusted with: asked once, on first need."""
        if self._capabilities is None:
            self._capabilities = probe(self.client, self.retry_policy())
        return self._capabilities

    def _heard(self, response: dict[str, Any]) -> None:
        """An answer from the endpoint (DescribeTable's): its Server header says what the
        backend is, as the probe's would, so a statement that describes a table first sends
        no ListTables probe."""
        if self._capabilities is None:
            self._capabilities = from_response(response)

    @property
    def estimating(self) -> bool:
        """Whether capacity is estimated here (the server's figures are not real)."""
        return self.capabilities.estimating

    def aws_client(self, service: str) -> Any:
        """A client for another AWS service (``s3``, ``athena``) with this session's account,
        region and credentials: the export engines reach AWS only through here."""
        if service not in self._aws_clients:
            from dynosql.dynamo.clients import client_like

            self._aws_clients[service] = client_like(self.client, service)
        return self._aws_clients[service]

    def run_statement(self, statement: ast.Statement) -> Result:
        """Run another statement through the session's registry and guards (COPY's SELECT)."""
        if self._run is None:
            raise DynosqlError("this context cannot run statements")
        return self._run(statement)

    # --- the catalog -----------------------------------------------------------------------

    def options(self) -> Options:
        caps = self.capabilities
        return Options(
            consistent=self.settings.consistent,
            segments=self.settings.segments,
            typed_filters=caps.server_filters,
            projections=caps.projections,
            observed=self.observed,
        )

    def table(self, name: str) -> TableInfo:
        """A table's keys, indexes and sizes (DescribeTable, cached)."""
        return self.catalog.table(name)

    def table_names(self, pattern: str | None = None) -> list[str]:
        """The table names, sorted (ListTables, fresh); `pattern` is a glob such as ``aud*``."""
        self.catalog.refresh()
        names = sorted(self.catalog.table_names())
        return [n for n in names if fnmatch.fnmatchcase(n, pattern)] if pattern else names

    def full_scan_plan(self, table: str, index: str | None = None, keys_only: bool = False) -> Plan:
        """The plan that reads every item of a table or index (SHOW HOT KEYS); `keys_only`:
        their partition key alone."""
        return plan_full_scan(self.table(table), index, self.options(), keys_only)

    def refresh(self) -> None:
        """Forget what is cached about tables (after DDL, or on request)."""
        self.catalog.refresh()
        self._samples.clear()
        self.observed.clear()
        self.catalog_version += 1

    def sample(self, table: str, counted: bool = True) -> list[dict[str, Any]]:
        """Up to `SAMPLE_ITEMS` items of `table`, read once per session: the sizes moto does
        not report, the attribute names completion offers, the names and types hints compare
        against. One Limit-bounded Scan page through the executor (retried, paced, within the
        deadline, in the ledger); nothing is read when Scans are refused."""
        if table not in self._samples:
            if not guards.may_sample(self):
                return []
            stats = Stats()
            try:
                self._samples[table] = self.executor().sample(table, SAMPLE_ITEMS, stats)
            finally:
                if counted:
                    self.ledger.settle(stats)
        return self._samples[table]

    def has_sample(self, table: str) -> bool:
        """Whether this session holds a sample of `table` (the hints have checked against it)."""
        return table in self._samples

    def hint_sample(self, table: str) -> tuple[list[dict[str, Any]] | None, str | None]:
        """The items hints may compare names and types against, and, when they were read for
        the hint now, what that read cost (a line of its own). A sample already read this
        session (the catalog's, where the backend reports no table size) is used as it is;
        a new one is read only for a person at the REPL (`Doors.interactive`), never under
        ``--fail-on-scan``. Scripts and library calls get None: no read nobody asked for."""
        if table in self._samples:
            return self._samples[table], None
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

    def executor(self) -> Executor:
        limits = Limits(
            max_rcu=self.settings.max_rcu,
            rate_limit=self.settings.rate_limit,
            deadline=float(self.settings.deadline),
        )
        return Executor(
            self.client,
            self.estimating,
            limits,
            self.doors.progress,
            self.cancelled,
            unprojectable=self.unprojectable,
            sleep=self.sleep,
            first_page_items=self.capabilities.first_page_items,
        )

    def read(
        self, plan: Plan, stats: Stats, first_page: FirstPage | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every item `plan` reads that passes its client-side checks, its cost settled in the
        ledger once the items are consumed (or abandoned). `first_page`: see `Executor.items`
        (a Scan's first page, whole, for the hints)."""
        try:
            items = self.executor().items(plan, stats, first_page)
            yield from (
                items if plan.whole_partition is None else self._observing(plan, items, stats)
            )
            if plan.then is not None:  # reached only when the rows fell short of LIMIT
                yield from self.executor().items(plan.then, stats)
        finally:
            self.ledger.settle(stats)

    def count(self, plan: Plan, stats: Stats, first_page: FirstPage | None = None) -> int:
        """The item count of a Select=COUNT plan, settled in the ledger."""
        try:
            count = self.executor().count(plan, stats, first_page)
            if plan.whole_partition is not None:
                self._observe(plan, stats, None)
            return count
        finally:
            self.ledger.settle(stats)

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
        assert plan.whole_partition is not None
        size = stats.bytes_read if stats.bytes_exact and stats.items_scanned else None
        found = Partition(
            stats.items_scanned, size, tuple(sort_keys) if sort_keys is not None else None
        )
        self.observed.record(plan.table.name, plan.access.name, plan.whole_partition[0], found)

    def pages(self, plan: Plan, stats: Stats) -> Iterator[tuple[int, int, list[Any]]]:
        """The plan's pages tagged with their segment (sampling), settled in the ledger."""
        try:
            yield from self.executor().tagged_pages(plan, stats)
        finally:
            self.ledger.settle(stats)

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
        try:
            yield from self.executor().wire_pages(plan, stats, reduce, reduce_body)
        finally:
            self.ledger.settle(stats)

    def rows(
        self,
        plan: Plan,
        stats: Stats,
        notes: list[str] | None = None,
        first_page: FirstPage | None = None,
    ) -> Iterator[dict[str, Any]]:
        """A SELECT plan's rows: read, filtered, grouped or sorted client-side as planned."""
        statement = plan.statement
        if plan.count_only:
            count = self.count(plan, stats, first_page)
            yield from aggregate_rows(statement, count_group(statement, count))
        elif statement.is_aggregate:
            budget = self.memory_budget()
            names = None
            if first_page is None and plan.reads_every_item_once:
                aggs = collect_aggregates(statement)
                names = count_groups.counted_names(aggs, statement.group_by)
            source: Iterable[dict[str, Any]] | count_groups.WirePages
            if names is not None:  # counted off the wire form, a page at a time
                pages = self.read_wire_pages(plan, stats, count_groups.count_wire(names))
                source = count_groups.WirePages(pages)
            else:
                source = self.read(plan, stats, first_page)
            groups = group(statement, source, budget, notes)
            yield from aggregate_rows(statement, groups, budget, notes)
        else:
            yield from select_rows(
                statement,
                plan.table,
                self.read(plan, stats, first_page),
                plan.sort,
                notes,
                self.memory_budget(),
            )

    def memory_budget(self) -> int | None:
        """Bytes a statement's client-side sort or grouping may hold before spilling."""
        budget = self.settings.memory_budget
        return None if budget is None else int(budget * 1024 * 1024)

    # --- writing ---------------------------------------------------------------------------

    def writer(self, stats: WriteStats, *, transactional: bool = False, workers: int = 0) -> Writer:
        """A writer with the session's limits (--max-wcu, --rate-limit) and sleep set."""
        from dynosql.dynamo.writer import Writer  # loaded by the statements that write

        kwargs: dict[str, Any] = {"workers": workers} if workers else {}
        return Writer(
            self.client,
            stats,
            estimating=self.estimating,
            limits=self.write_limits(),
            transactional=transactional,
            policy=self.retry_policy(),
            **kwargs,
        )

    def retry_policy(self) -> RetryPolicy:
        """The one retry policy (dynamo.retry) with this session's deadline, Ctrl-C and sleep:
        for every request a statement sends outside the reader (writes, DDL and its waits)."""
        return RetryPolicy.of(self)

    def write_limits(self) -> WriteLimits:
        """--max-wcu and --rate-limit, for every writer of a statement."""
        from dynosql.dynamo.writer import WriteLimits

        return WriteLimits(max_wcu=self.settings.max_wcu, rate_limit=self.settings.rate_limit)

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
        """Where this session's writes go, as the journal's header records it and undo checks
        it: the endpoint (``embedded`` for --local, whose port is new in every process), the
        region, and the table's ARN where DescribeTable gave one (it names the account: the
        same endpoint and region under another profile is another target)."""
        meta = self.client.meta
        endpoint = "embedded" if self.embedded else str(getattr(meta, "endpoint_url", ""))
        target = {"endpoint": endpoint, "region": str(getattr(meta, "region_name", ""))}
        if table is not None and not self.embedded:  # --local: a new account per process
            try:
                arn = self.table(table).raw.get("TableArn")
            except DynosqlError:
                arn = None  # the table is gone: endpoint and region still say where
            if arn:
                target["table_arn"] = str(arn)
        return target

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
