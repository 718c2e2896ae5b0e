"""The backend port: every request a statement makes of AWS, as one interface.

Statement kinds (and the engines and hints they call) ask a `Port` to read a plan's items,
pages or count, to write (conditional puts, updates and deletes, batches, transactions), to
change a table and wait for it, to describe and list tables, and to reach table exports in S3
and Athena. They never hold a boto3 client. The boto3 adapter is `dynosql.dynamo.backend`; it
keeps, inside the port, what every request shares: the one retry policy (`dynosql.dynamo.retry`),
the deadline, the cancellation event, the pacing and caps of ``--rate-limit``, ``--max-rcu`` and
``--max-wcu``, and the session's capacity `Ledger`, to which the port adds what each answer
consumed as it arrives (nobody settles it by hand).

Pure: types and data only (the adapter implements this; the kinds are typed against it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from dynosql import values
from dynosql.errors import ExecutionError

if TYPE_CHECKING:
    from dynosql.plan.ddl import Call
    from dynosql.plan.model import Plan
    from dynosql.plan.schema import TableInfo
    from dynosql.result import Stats, WriteStats
    from dynosql.sql import ast

T = TypeVar("T")
SAMPLE_ITEMS = 100  # the items of a table's sample (`Port.sample`): one Scan page
Item = dict[str, Any]


@dataclass(frozen=True)
class Capabilities:
    """What the backend can be trusted with, decided once per session (by the adapter, from
    the first answer's ``Server`` header: `dynosql.dynamo.capabilities`).

    DynamoDB itself (and dynalite, which follows it closely) reports consumed capacity, takes
    every valid ProjectionExpression and FilterExpression, and keeps table sizes. moto does
    not; the embedded ``--local`` server (moto, metered) reports capacity and sizes computed
    by DynamoDB's rules."""

    backend: str  # "dynamodb" (AWS or a faithful emulator such as dynalite) or "moto"
    reports_capacity: bool = True  # ConsumedCapacity is real; else dynosql estimates it
    reports_table_size: bool = True  # DescribeTable's sizes (however stale) are real
    projections: bool = True  # a ProjectionExpression may be sent
    server_filters: bool = True  # every condition may go into a FilterExpression
    # the whole items of a Scan's first page the hints may ask for (None: the page as it is,
    # up to 1 MB); a moto server of its own answers at about a millisecond an item (its
    # response serializer), so there the first page is cut at this many items, and the Scan
    # goes on from its end (the embedded server answers item reads without that serializer)
    first_page_items: int | None = None

    @property
    def estimating(self) -> bool:
        """Whether statement capacity is computed by dynosql (and labelled ``est.``)."""
        return not self.reports_capacity

    def notes(self) -> list[str]:
        """What EXPLAIN says about requests shaped by this backend."""
        if self.backend != "moto":
            return []
        if self.server_filters:  # the embedded server: moto answers conditions as DynamoDB
            return [
                "this endpoint is moto, which fails on some valid projections: a table whose "
                "items moto cannot project is read whole (the request is sent again without "
                "its ProjectionExpression, at the same cost)"
            ]
        return [
            "this endpoint is moto, which fails on some valid requests: conditions are checked "
            "client-side (an index's entries are then fetched from the table before they are "
            "checked, which can cost more than on DynamoDB), and a table whose items moto "
            "cannot project is read whole (the request is sent again without its "
            "ProjectionExpression); against DynamoDB the requests carry the full FilterExpression"
        ]


DYNAMODB = Capabilities("dynamodb")
MOTO = Capabilities(
    "moto",
    reports_capacity=False,
    reports_table_size=False,
    server_filters=False,
    first_page_items=100,
)
# the embedded server: moto, with ConsumedCapacity computed by DynamoDB's rules and table sizes
# measured from the items (metering.py), conditions evaluated as DynamoDB evaluates them
# (moto_conditions.py: so every condition goes into the FilterExpression, and --local plans and
# costs as DynamoDB does), and item reads answered without moto's serializer (moto_answers.py:
# a 1,300-item Scan page in about 0.15 s), so its first Scan page is whole
EMBEDDED = replace(
    MOTO,
    reports_capacity=True,
    reports_table_size=True,
    server_filters=True,
    first_page_items=None,
)


@dataclass
class Ledger:
    """The session's one capacity ledger: read and write units kept apart. The port adds
    what each request consumed as its answer arrives; nothing else keeps a total."""

    rcu: Decimal = Decimal(0)
    wcu: Decimal = Decimal(0)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def charge(self, rcu: Decimal = Decimal(0), wcu: Decimal = Decimal(0)) -> None:
        with self._lock:
            self.rcu += rcu
            self.wcu += wcu


@dataclass
class Page:
    """What one read request gave back, as the port hands it on: its items (decoded, fetched
    whole from the base table where the plan says) and what the client must still check on
    them (`residual`: the conditions DynamoDB did not evaluate for that request). The port
    checks nothing: `dynosql.evaluate.reads` does, over these.

    `whole`: a Scan's first page sent without its filter and projection (for the hints); its
    items are every item it evaluated, and the statement's whole WHERE is theirs to pass.
    `count`: a Select=COUNT page's Count. `segment` and `scanned`: a sampled Scan's segment
    (its index in the sample) and the items it evaluated."""

    items: list[Item]
    residual: ast.Condition | None = None
    whole: bool = False
    count: int = 0
    segment: int = 0
    scanned: int = 0


class MoreKeys(Exception):
    """A plan with a `Fallback` found more than its ``keys`` index entries before any page
    was handed on: its fallback's plan is the read to run instead (the probe was paid for)."""


@dataclass
class ConditionFailure:
    """A ConditionalCheckFailed answer: the item as it is (when the request asked for it with
    ReturnValuesOnConditionCheckFailure and the backend gave it), and whether the request had
    been sent before (a retry, by botocore or the port: an earlier attempt may have applied)."""

    item: Item | None
    retried: bool


class TransactionCancelled(ExecutionError):
    """DynamoDB cancelled a transaction (nothing was written), for a reason other than a
    conflict, or after the port's rounds of conflicts: `codes` are its CancellationReasons'
    codes, one per action (``None`` / ``"None"`` for an action that was fine)."""

    def __init__(self, codes: list[str | None], message: str):
        super().__init__(f"transaction cancelled, nothing was written: {message}")
        self.codes = codes
        self.reason = message


def put_requests(items: Iterable[Item]) -> Iterator[dict[str, Any]]:
    """Decoded items as BatchWriteItem PutRequests (what `Port.write_batches` takes)."""
    for item in items:
        yield {"PutRequest": {"Item": values.encode_item(item)}}


class Writes(Protocol):
    """One statement's writes (`Port.writer`): each request retried, paced (--rate-limit),
    capped (--max-wcu) and counted in the statement's `WriteStats` and the ledger."""

    workers: int

    def send(
        self,
        operation: str,
        params: dict[str, Any],
        table: TableInfo,
        image: Callable[[Item | None], Item | None],
    ) -> tuple[dict[str, Any] | None, ConditionFailure | None, bool]:
        """One PutItem, UpdateItem or DeleteItem (DynamoDB's operation name): the answer (None
        when its condition failed), the failure, and whether it was sent more than once. The
        port settles its capacity: reported, or estimated from the item before (the answer's
        ALL_OLD attributes) and `image` of it, the item after."""
        ...

    def read_item(self, table: str, key: dict[str, Any]) -> Item | None:
        """The item under `key` (wire form) now: one strongly consistent GetItem, decoded."""
        ...

    def transact(
        self, params: dict[str, Any], images: Iterable[tuple[Item | None, Item | None, TableInfo]]
    ) -> dict[str, Any]:
        """One TransactWriteItems (a conflict is sent again with a new token); `images`, each
        action's item before and after and its table, estimate it where nothing is reported."""
        ...

    def run(
        self,
        targets: Iterable[T],
        write_one: Callable[[T], Any],
        done: Callable[[Any], None],
    ) -> None:
        """`write_one` for every target, `workers` at a time; `done` for each outcome."""
        ...


class Port(Protocol):
    """Every AWS request a statement makes (see the module's docstring)."""

    ledger: Ledger
    # whether a change may be sent now: the Session closes it as each statement starts and
    # the pipeline opens it when it says go; a change request while closed is refused
    changes_allowed: bool

    # --- what the backend is ----------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def estimating(self) -> bool:
        """Whether capacity is estimated here (the server's figures are not real)."""
        ...

    @property
    def region(self) -> str: ...

    def target(self, table: str | None = None) -> dict[str, str]:
        """Where writes go, as a journal records it: endpoint, region, the table's ARN."""
        ...

    def pause(self, seconds: float) -> None:
        """Wait, cancellably (``--rate-limit``'s pace, ``\\watch``'s interval)."""
        ...

    # --- tables -----------------------------------------------------------------------------

    def table(self, name: str, fresh: bool = False) -> TableInfo:
        """A table's keys, indexes and sizes (DescribeTable, cached; `fresh`: sent now, for a
        statement that must see the table as it is, changed elsewhere or not). The port
        forgets its entry itself when it sends the table a change (`change_table`)."""
        ...

    def table_names(self, fresh: bool = False) -> list[str]:
        """ListTables (cached; `fresh`: the names asked for again)."""
        ...

    def refresh(self) -> None:
        """Forget everything cached about tables (`catalog_version` moves on): the session's,
        on the user's request (``\\refresh``); statements never need it."""
        ...

    # moves on when a table change is sent, or on `refresh`: what was learned of the tables
    # before (partitions observed, completion's names) is stale
    catalog_version: int

    def sample(self, table: str, counted: bool = True) -> list[Item]:
        """A few items of `table` (one Limit-bounded Scan page), read once per session: what
        completion, the hints and moto's missing table sizes learn a table from; nothing is
        read where Scans are refused. `counted` False: not in the ledger (the catalog's)."""
        ...

    def has_sample(self, table: str) -> bool:
        """Whether this session holds a sample of `table`."""
        ...

    def change_table(self, call: Call) -> dict[str, Any]:
        """One CreateTable/UpdateTable/DeleteTable/UpdateTimeToLive; a retried one that finds
        its work done by an earlier try is done. What was cached of the table (its
        description, its sample, the table names) is forgotten once it is sent."""
        ...

    def watch_table(
        self, table: str, timeout: float
    ) -> Iterator[tuple[float, dict[str, Any] | None]]:
        """(seconds waited, DescribeTable now or None when gone), polled quickly at first,
        each wait cancellable, until the caller stops or `timeout` passes. The catalog keeps
        the newest answer: the statement after a change reads the table as the wait left it."""
        ...

    def ttl_attribute(self, table: str) -> str | None:
        """The TTL attribute when TTL is enabled (or being enabled), else None."""
        ...

    def point_in_time_recovery(self, table: str) -> bool:
        """Whether PITR is ENABLED (DescribeContinuousBackups)."""
        ...

    def set_point_in_time_recovery(self, table: str, enabled: bool) -> str:
        """UpdateContinuousBackups; the status it reports."""
        ...

    # --- reads ------------------------------------------------------------------------------

    def pages(
        self, plan: Plan, stats: Stats, whole_first: bool = False, progress: bool = True
    ) -> Iterator[Page]:
        """The pages of every request `plan` sends, as they arrive (`whole_first`: a Scan's
        first page comes back whole, for the hints; `progress` False: no progress line).
        A plan with a `Fallback` reads its index first, for at most ``keys`` + 1 entries, and
        raises `MoreKeys` (before any page) when it finds more."""
        ...

    def count_pages(self, plan: Plan, stats: Stats, whole_first: bool = False) -> Iterator[Page]:
        """A Select=COUNT plan's pages, each with its Count (`whole_first`: as for `pages`)."""
        ...

    def segment_pages(self, plan: Plan, stats: Stats) -> Iterator[Page]:
        """A sampled Scan's pages, each with its segment and items scanned."""
        ...

    def wire_pages(
        self,
        plan: Plan,
        stats: Stats,
        reduce: Callable[[list[dict[str, Any]], list[int] | None], T],
        reduce_body: Callable[[bytes | str], Any] | None = None,
    ) -> Iterator[T]:
        """`reduce` of each page's items left in the wire form, with their sizes."""
        ...

    def query_page(self, params: dict[str, Any], stats: Stats) -> dict[str, Any]:
        """One Query as given, for callers that walk keys themselves."""
        ...

    # --- writes -----------------------------------------------------------------------------

    def writer(
        self, stats: WriteStats, *, transactional: bool = False, workers: int = 0
    ) -> Writes: ...

    def write_batches(
        self,
        table: str,
        requests: Iterable[dict[str, Any]],
        stats: WriteStats,
        *,
        workers: int = 4,
        paced: bool = True,
        on_written: Callable[[list[dict[str, Any]]], Decimal | None] | None = None,
        on_sending: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> WriteStats:
        """BatchWriteItem, 25 requests a call, UnprocessedItems sent again with backoff.
        `on_written` may return estimated WCU the puts' own sizes do not count."""
        ...

    # --- exports (S3) and Athena --------------------------------------------------------------

    def export_table(self, table: str, bucket: str, prefix: str) -> str:
        """ExportTableToPointInTime of `table` (DynamoDB JSON); the export's ARN."""
        ...

    def watch_export(self, arn: str) -> Iterator[dict[str, Any]]:
        """DescribeExport's ExportDescription, polled (each wait cancellable) until the
        caller stops."""
        ...

    def s3_keys(self, bucket: str, prefix: str) -> list[str]:
        """Every object key under `prefix`."""
        ...

    def s3_get(self, bucket: str, key: str) -> bytes: ...

    def athena_start(self, sql: str, database: str, workgroup: str, output: str | None) -> str:
        """StartQueryExecution; the query's id."""
        ...

    def watch_athena(self, query_id: str) -> Iterator[dict[str, Any]]:
        """GetQueryExecution's QueryExecution, polled until the caller stops."""
        ...

    def athena_rows(self, query_id: str) -> Iterator[list[str | None]]:
        """Every result row as text (the header row dropped), page by page."""
        ...
