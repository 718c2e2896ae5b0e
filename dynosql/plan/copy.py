"""The plan of COPY t FROM 'file': the calls a load sends, priced. Pure: no I/O (the caller
measures the file: `FileMeasure`), never imports boto3.

A load sends BatchWriteItem, 25 puts a call. With the undo journal on (the default, as for
UPSERT), one consistent Scan of one item first says whether the table is empty; if not, each
batch's keys are read first by one strongly consistent BatchGetItem: the old images, priced as
consistent reads (a key that matches nothing still costs one unit; an existing item by its
size, taken as the table's average). Into an empty table only keys repeated in the file are
read; the estimate takes DescribeTable's item count (refreshed about every six hours) to tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql.plan.model import Request, _jsonable
from dynosql.plan.schema import TableInfo
from dynosql.plan.write import BATCH_WRITE_ITEMS, WriteEstimate
from dynosql.sql import ast
from dynosql.values import read_units


@dataclass(frozen=True)
class FileMeasure:
    """What reading (part of) the file found: the items, their WCU, and whether it was all."""

    items: int  # items read
    wcu: Decimal  # their write units (1 KB units each, rounded up per item)
    whole: bool  # the whole file was read
    scale: float = 1.0  # the file holds about `scale` times the items read


@dataclass
class CopyFromPlan:
    statement: ast.CopyFrom
    table: TableInfo
    journal: bool
    estimate: WriteEstimate
    requests: list[Request] = field(default_factory=list)  # templates: a read, then the write

    def lines(self) -> list[str]:
        s = self.statement
        out = [
            f"COPY {self.table.name} FROM '{s.path}' (FORMAT {s.format}): BatchWriteItem "
            f"{self.table.name}, {BATCH_WRITE_ITEMS} items a call",
            f"estimate: {self.estimate.text()}",
        ]
        for request in self.requests:
            if request.operation == "Scan":
                out.append(
                    "first (is the table empty? then only keys repeated in the file are read):"
                )
            elif request.operation == "BatchGetItem":
                out.append(
                    "before each batch (the old images for the undo journal; "
                    "SET journal_dir = off skips it):"
                )
            else:
                out.append("write (each batch, UnprocessedItems sent again with backoff):")
            out.extend("  " + line for line in request.code().splitlines())
        if not self.journal:
            out.append("no undo journal (journal_dir is off): nothing is read")
        return out

    def document(self) -> dict[str, Any]:
        return {
            "statement": "COPY FROM",
            "table": self.table.name,
            "file": self.statement.path,
            "format": self.statement.format,
            "journal": self.journal,
            "requests": [
                {"operation": r.operation, "params": _jsonable(r.params)} for r in self.requests
            ],
            "estimate": {
                "items": self.estimate.items,
                "exact": self.estimate.exact,
                "rcu": format(self.estimate.rcu.normalize(), "f"),
                "wcu": format(self.estimate.wcu.normalize(), "f"),
            },
        }


def plan_copy_from(
    statement: ast.CopyFrom, table: TableInfo, measure: FileMeasure, journal: bool
) -> CopyFromPlan:
    """The calls of a load and their price, from what reading the file measured."""
    items = round(measure.items * measure.scale)
    wcu = (
        (measure.wcu * Decimal(measure.scale)).quantize(Decimal(1))
        if measure.scale != 1
        else measure.wcu
    )
    rcu = Decimal(0)
    if journal:
        rcu = read_units(1, consistent=True)  # the Scan that tells an empty table
        if table.item_count:
            rcu += read_units(table.average_item_size, consistent=True) * items
    estimate = WriteEstimate(items, rcu, wcu, exact=measure.whole)
    keys = {n: "…" for n in table.keys.names}
    requests = []
    if journal:
        scan = {"TableName": table.name, "Limit": 1, "ConsistentRead": True}
        requests.append(Request("Scan", {**scan, "ReturnConsumedCapacity": "TOTAL"}))
        spec = {"Keys": [keys, "… the batch's keys"], "ConsistentRead": True}
        params = {"RequestItems": {table.name: spec}, "ReturnConsumedCapacity": "TOTAL"}
        requests.append(Request("BatchGetItem", params))
    put = {"PutRequest": {"Item": "…"}}
    write = {"RequestItems": {table.name: [put, f"… up to {BATCH_WRITE_ITEMS}"]}}
    requests.append(Request("BatchWriteItem", {**write, "ReturnConsumedCapacity": "TOTAL"}))
    return CopyFromPlan(statement, table, journal, estimate, requests)


def key_types(info: TableInfo) -> dict[str, str]:
    """Every key attribute of the table and its indexes, with its declared type."""
    return info.key_types
