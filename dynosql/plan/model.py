"""A plan: the DynamoDB requests that answer a statement, and what the client does after."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.plan.schema import IndexInfo, TableInfo
from dynosql.result import plural

if TYPE_CHECKING:
    from dynosql.sql import ast


@dataclass
class Request:
    """One DynamoDB call as boto3 takes it (low-level client, wire-format values).

    ``residual`` is what the client must still check on each item this request returns
    (conditions DynamoDB cannot evaluate, or may not: a Query's filter cannot name keys).
    """

    operation: str  # GetItem, BatchGetItem, Query, Scan
    params: dict[str, Any]
    residual: ast.Condition | None = None
    # stop paginating after this many items (a pushed-down LIMIT: every item read is a row)
    max_items: int | None = None

    def code(self) -> str:
        """The request as Python you can paste: ``client.query(**{...})``."""
        method = {"GetItem": "get_item", "BatchGetItem": "batch_get_item"}.get(
            self.operation, self.operation.lower()
        )
        if self.operation in _WRITE_METHODS:
            method = _WRITE_METHODS[self.operation]
        text = json.dumps(_jsonable(self.params), indent=2)
        text = _LAST_CHARACTERS.sub(_repeated, text).replace(' + ""', "")
        return f"client.{method}(**{text})"


# the greatest character repeated (the last key with a prefix: plan.keys.last_with_prefix), as
# JSON writes it: shown as Python that builds it, not as a thousand escapes
_LAST_CHARACTERS = re.compile(r"(?:\\udbff\\udfff){4,}")


def _repeated(found: re.Match[str]) -> str:
    return f'" + "\\U0010ffff" * {len(found.group()) // 12} + "'


_WRITE_METHODS = {
    "PutItem": "put_item",
    "UpdateItem": "update_item",
    "DeleteItem": "delete_item",
    "BatchWriteItem": "batch_write_item",
    "TransactWriteItems": "transact_write_items",
}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return str(value)
    return value


SIZE_UNKNOWN = "size unknown: DynamoDB refreshes a table's size about every six hours"


@dataclass
class Estimate:
    items: int  # items DynamoDB will read (evaluate), before any filter
    rcu: Decimal
    # False when DescribeTable said 0 items: stale (refreshed ~every 6 h) or empty, unknown
    known: bool = True
    bound: str = ""  # what bounds it, e.g. "LIMIT 5"
    basis: str = ""  # what the figure stands on (plan.observed: a partition read, or a guess)
    paced: str = ""  # how --rate-limit cuts the pages, and what they cost without it

    def text(self) -> str:
        if not self.known:
            return SIZE_UNKNOWN
        return (
            f"~{self.items} {plural(self.items, 'item')}, ~{format(self.rcu.normalize(), 'f')} RCU"
        )


@dataclass(frozen=True)
class SampleSpec:
    """A seeded sample of parallel-Scan segments: read `segments` (k of them) out of
    TotalSegments `total`. Each segment is a slice of the partition-key hash space, so the
    sample holds every item of about k/N of the partition keys and nothing of the rest."""

    percent: Decimal
    seed: int
    total: int  # N, sent as TotalSegments
    segments: tuple[int, ...]  # the k segments read, ascending
    full_scan_rcu: Decimal = Decimal(0)  # what reading every segment would cost
    table_items: int = 0  # DescribeTable's ItemCount (0: unknown), for ratio estimates

    @property
    def k(self) -> int:
        return len(self.segments)

    def document(self) -> dict[str, Any]:
        return {
            "percent": format(self.percent.normalize(), "f"),
            "seed": self.seed,
            "total_segments": self.total,
            "segments": list(self.segments),
            "full_scan_rcu": format(self.full_scan_rcu.normalize(), "f"),
            "table_items": self.table_items,
        }


@dataclass
class Fallback:
    """What a read that fetches each item from the table does when its index key holds many
    items (plan/fallback.py). DescribeTable does not say how many items one index key holds,
    and every item found costs a fetch (0.5 RCU at least), so the index is read first for at
    most ``keys`` + 1 entries: at most ``keys`` are fetched (costing no more than `plan`); more,
    and `plan` (a Scan, or the table's Query) is read instead, the probe's ``probe_rcu`` at most
    spent on top."""

    keys: int
    plan: Plan
    probe_rcu: Decimal

    def text(self, target: str) -> str:
        """The rule, in EXPLAIN's words."""
        return (
            f"reads up to {self.keys:,} keys of {target} (Limit {self.keys + 1:,}); more than "
            f"{self.keys:,} → {self.plan.label}, ~{_rcu_text(self.plan.estimate.rcu)} RCU, the "
            f"probe's ≤ {_rcu_text(self.probe_rcu)} RCU spent on top"
        )

    def document(self) -> dict[str, Any]:
        return {
            "keys": self.keys,
            "probe_rcu": _rcu_text(self.probe_rcu),
            "plan": self.plan.document(),
        }


def _rcu_text(units: Decimal) -> str:
    return format(units.normalize(), "f")


@dataclass
class Plan:
    statement: ast.Select
    table: TableInfo
    access: IndexInfo
    operation: str  # GetItem | BatchGetItem | Query | Scan | Nothing (no item can match)
    requests: list[Request]
    estimate: Estimate
    fetch: Request | None = None  # BatchGetItem template to fetch full items from the base table
    dedupe: bool = False  # several requests may return the same item
    sort: tuple[ast.OrderItem, ...] = ()  # client-side ORDER BY; empty when the read order serves
    count_only: bool = False  # Select=COUNT: only counts come back
    segments: int = 1
    consistent: bool = False
    warnings: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)  # client-side steps, in words
    sample: SampleSpec | None = None  # TABLESAMPLE / SAMPLE: only these segments are read
    # read only when this plan's rows fall short of LIMIT: the items its (sparse) index cannot
    # hold, which sort after every row this plan reads (planner: ORDER BY … NULLS LAST)
    then: Plan | None = None
    # the partition-key value whose whole item collection this plan reads (one Query, no key
    # range, no Limit): what it finds is remembered for later estimates (plan.observed)
    whole_partition: tuple[Any] | None = None
    # how this Scan could be a Query, where an index would serve the WHERE (the planner's
    # advice, in its warning too): --fail-on-scan's refusal keeps it
    scan_hint: str | None = None
    # read instead when the index holds more keys than fetching them is worth (Fallback)
    fallback: Fallback | None = None

    @property
    def may_scan(self) -> bool:
        """Whether the plan Scans, or may switch to a Scan once it has read (a Fallback)."""
        return self.is_scan or (self.fallback is not None and self.fallback.plan.may_scan)

    @property
    def is_scan(self) -> bool:
        return self.operation == "Scan"

    @property
    def reads_every_item_once(self) -> bool:
        """Every item its Query and Scan requests read reaches the caller once, as read: no
        client-side check, no item limit, nothing fetched from the base table, no duplicates,
        no follow-up plan, no sample, no partition to remember. Such a plan's items can be
        counted off the wire form (`count_groups.count_wire`)."""
        return (
            bool(self.requests)
            and self.fetch is None
            and not self.dedupe
            and not self.count_only
            and self.then is None
            and self.fallback is None
            and self.sample is None
            and self.whole_partition is None
            and all(
                r.operation in ("Query", "Scan") and not r.residual and r.max_items is None
                for r in self.requests
            )
        )

    @property
    def target(self) -> str:
        """What the plan reads, as a statement names it: ``table`` or ``table.index``."""
        return (
            self.table.name if self.access.name is None else f"{self.table.name}.{self.access.name}"
        )

    @property
    def label(self) -> str:
        target = self.target
        n = len(self.requests)
        if self.operation == "Nothing":
            return "no request (no item can match)"
        if self.operation == "Scan" and self.sample is not None:
            s = self.sample
            return f"Scan {target} (sample: {s.k} of {s.total} segments, seed {s.seed})"
        if self.operation == "Scan" and self.segments > 1:
            return f"Scan {target} ({self.segments} segments)"
        if self.operation in ("Query", "GetItem") and n > 1:
            return f"{n}× {self.operation} {target}"
        text = f"{self.operation} {target}"
        if self.fetch is not None:
            text += f" + BatchGetItem {self.table.name}"
        return text

    def document(self) -> dict[str, Any]:
        """The plan as JSON data (EXPLAIN --format json)."""
        return {
            "operation": self.operation,
            "table": self.table.name,
            "index": self.access.name,
            "requests": [
                {"operation": r.operation, "params": _jsonable(r.params)} for r in self.requests
            ],
            "fetch": None
            if self.fetch is None
            else {"operation": "BatchGetItem", "params": _jsonable(self.fetch.params)},
            "segments": self.segments,
            **({"sample": self.sample.document()} if self.sample is not None else {}),
            **({"then": self.then.document()} if self.then is not None else {}),
            **({"fallback": self.fallback.document()} if self.fallback is not None else {}),
            "client_steps": list(self.steps),
            "warnings": list(self.warnings),
            "estimate": {
                "items": self.estimate.items,
                "rcu": format(self.estimate.rcu.normalize(), "f"),
                **({} if self.estimate.known else {"size_unknown": True}),
                **({"bound": self.estimate.bound} if self.estimate.bound else {}),
                **({"paced": self.estimate.paced} if self.estimate.paced else {}),
            },
            **({"estimate_basis": self.estimate.basis} if self.estimate.basis else {}),
        }
