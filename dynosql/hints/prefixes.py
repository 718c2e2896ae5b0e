"""Which sort-key prefixes exist under one partition key: a skip-scan of keys-only Queries
(``Limit 1`` each, jumping past every prefix found), for the hints after an empty
``begins_with`` and for prefix collisions. Each Query costs the minimum read (0.5 RCU)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.hints.rules import child_prefix
from dynosql.plan.keys import successor

MAX_PREFIXES = 8


@dataclass
class Prefixes:
    found: list[str] = field(default_factory=list)
    complete: bool = True  # False when MAX_PREFIXES stopped the listing
    requests: int = 0
    capacity: Decimal = Decimal(0)

    def cost(self, estimated: bool) -> str:
        rcu = values.format_number(self.capacity.normalize()) if self.capacity else "0"
        unit = f"~{rcu} RCU est." if estimated else f"{rcu} RCU"
        return f"from {self.requests} keys-only Queries with Limit 1, {unit}"


def list_prefixes(
    query: Callable[[dict[str, Any]], dict[str, Any]],
    table: str,
    index: str | None,
    keys: tuple[str, str],
    pk_value: Any,
    parent: str,
    estimated: bool,
) -> Prefixes:
    """The distinct next-level prefixes of the sort key under ``parent`` (sorted); `query`
    sends one Query request (the executor's, so retries and the deadline apply)."""
    pk, sk = keys
    out = Prefixes()
    low: str | None = None
    past = False  # low itself is excluded (the item whose key is the parent prefix itself)
    while True:
        request: dict[str, Any] = {
            "TableName": table,
            "ExpressionAttributeNames": {"#p": pk, "#s": sk},
            "ProjectionExpression": "#p, #s",
            "Limit": 1,
            "ReturnConsumedCapacity": "TOTAL",
        }
        vals = {":p": values.encode(pk_value)}
        if low is not None:
            condition = f"#p = :p AND #s {'>' if past else '>='} :s"
            vals[":s"] = values.encode(low)
        elif parent:
            condition = "#p = :p AND begins_with(#s, :s)"
            vals[":s"] = values.encode(parent)
        else:
            condition = "#p = :p"
        request["KeyConditionExpression"] = condition
        request["ExpressionAttributeValues"] = vals
        if index:
            request["IndexName"] = index
        page = query(request)
        out.requests += 1
        items = [values.decode_item(i) for i in page.get("Items", [])]
        reported = (page.get("ConsumedCapacity") or {}).get("CapacityUnits", 0)
        out.capacity += Decimal("0.5") if estimated else Decimal(str(reported))
        key = items[0].get(sk) if items else None
        if not isinstance(key, str) or not key.startswith(parent):
            return out
        if len(out.found) == MAX_PREFIXES:
            out.complete = False
            return out
        if key == parent:
            low, past = key, True
            continue
        child = child_prefix(key, parent)
        out.found.append(child)
        low, past = successor(child), False
        if low is None:
            return out
