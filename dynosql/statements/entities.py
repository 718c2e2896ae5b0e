"""SHOW ENTITIES FROM t [SAMPLE n]: the design of a table nobody explained, read from its keys.

Single-table designs overload their keys with type prefixes (``TENANT#acme``,
``INVOICE#000123``) or paths (``root/photos/2026/a.jpg``). Each key is turned into a template:

- split on ``#``; an upper-case segment (``TENANT``, ``EVT``) is a type tag and stays literal;
- every other segment becomes a placeholder by its shape: ``{timestamp}``, ``{date}``,
  ``{email}``, ``{6 digits}`` (fixed length) or ``{number}``, ``dev-{4 digits}``, else ``{id}``;
- a key with ``/`` and no ``#`` is a path: ``{path}/`` (a folder) or ``{path}/{file}``.

Items whose (pk template, sk template) agree are one entity type; for each the report gives the
item count and share, the average size, the attributes with the types seen (``?`` where only
some items have one) and the indexes that hold it (sparse membership: an index holds the items
that have its key attributes). Notes add the sort-key health checks (encodings that do not sort
as their values do, with a pair that sorts wrongly).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.guards import READS
from dynosql.hints.sort_keys import TIMESTAMP as _TIMESTAMP
from dynosql.hints.sort_keys import sort_key_health
from dynosql.plan.cost import read_units
from dynosql.plan.model import Plan
from dynosql.plan.planner import plan_full_scan
from dynosql.plan.schema import TableInfo
from dynosql.result import Result, Stats
from dynosql.sql import ast
from dynosql.statements.kind import Kind, ScanCheck, named

if TYPE_CHECKING:
    from dynosql.context import Context

_TAG = re.compile(r"^[A-Z][A-Z0-9_]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DIGITS = re.compile(r"^\d+$")
_PREFIXED = re.compile(r"^([A-Za-z]+[-_])(\d+)$")
MAX_ATTRIBUTES = 12
MAX_PATH_PREFIXES = 5


def segment_shape(segment: str) -> str:
    """A placeholder for one variable key segment."""
    if _TIMESTAMP.match(segment):
        return "{timestamp}"
    if _DATE.match(segment):
        return "{date}"
    if _EMAIL.match(segment):
        return "{email}"
    if _DIGITS.match(segment):
        return f"{{{len(segment)} digits}}"
    m = _PREFIXED.match(segment)
    if m:
        return f"{m.group(1)}{{{len(m.group(2))} digits}}"
    return "{id}"


def template(key: Any) -> str:
    """The key's template: ``TENANT#{id}``, ``INVOICE#{6 digits}``, ``{path}/{file}``."""
    if key is values.MISSING or key is None:
        return ""
    if not isinstance(key, str):
        return "{" + {"N": "number", "B": "binary"}.get(values.type_of(key) or "", "value") + "}"
    if "/" in key and "#" not in key:
        return "{path}/" if key.endswith("/") else "{path}/{file}"
    return "#".join(s if _TAG.match(s) else segment_shape(s) for s in key.split("#"))


def _merge_digits(templates: Iterable[str]) -> dict[str, str]:
    """``{5 digits}`` and ``{6 digits}`` in otherwise equal templates become ``{number}``
    (numbers of mixed lengths: not zero-padded)."""
    merged: dict[str, str] = {}
    for t in templates:
        merged[t] = re.sub(r"\{\d+ digits\}", "{number}", t)
    groups: dict[str, set[str]] = {}
    for t, m in merged.items():
        groups.setdefault(m, set()).add(t)
    return {t: (m if len(groups[m]) > 1 else t) for t, m in merged.items()}


@dataclasses.dataclass
class _Entity:
    pk: str
    sk: str
    items: int = 0
    size: int = 0
    attributes: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    indexes: dict[str, int] = dataclasses.field(default_factory=dict)
    sk_values: list[str] = dataclasses.field(default_factory=list)
    paths: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def name(self) -> str:
        """The sort key's type tag, else the partition key's; a path is a folder or a file."""
        if self.sk.startswith("{path}/"):
            return "folder" if self.sk == "{path}/" else "file"
        for t in (self.sk, self.pk):
            head = t.split("#", 1)[0]
            if _TAG.match(head):
                return head
        return "item"


def entities(table: TableInfo, items: Iterable[dict[str, Any]]) -> tuple[list[_Entity], int]:
    """Group items into entity types; returns them (most items first) and the item count."""
    keys = table.keys
    groups: dict[tuple[str, str], _Entity] = {}
    total = 0
    for item in items:
        total += 1
        pk_t = template(item.get(keys.pk, values.MISSING))
        sk_value = item.get(keys.sk, values.MISSING) if keys.sk else values.MISSING
        sk_t = template(sk_value)
        e = groups.get((pk_t, sk_t))
        if e is None:
            e = groups[(pk_t, sk_t)] = _Entity(pk_t, sk_t)
        e.items += 1
        e.size += values.item_size(item)
        for name, value in item.items():
            seen = e.attributes.setdefault(name, {})
            code = values.type_of(value) or ""
            seen[code] = seen.get(code, 0) + 1
        for ix in table.indexes:
            if all(k in item for k in ix.keys.names):
                e.indexes[ix.name or ""] = e.indexes.get(ix.name or "", 0) + 1
        if isinstance(sk_value, str):
            e.sk_values.append(sk_value)
            if sk_t.startswith("{path}"):
                parts = sk_value.split("/")
                if len(parts) > 2:
                    top = "/".join(parts[:2]) + "/"
                    e.paths[top] = e.paths.get(top, 0) + 1
    # numbers of mixed lengths in one position: one entity type with a {number}
    renamed = _merge_digits(t for pair in groups for t in pair)
    merged: dict[tuple[str, str], _Entity] = {}
    for (pk_t, sk_t), e in groups.items():
        key = (renamed[pk_t], renamed[sk_t])
        into = merged.get(key)
        if into is None:
            merged[key] = dataclasses.replace(e, pk=key[0], sk=key[1])
            continue
        into.items += e.items
        into.size += e.size
        into.sk_values += e.sk_values
        for name, seen in e.attributes.items():
            target = into.attributes.setdefault(name, {})
            for code, n in seen.items():
                target[code] = target.get(code, 0) + n
        for name, n in e.indexes.items():
            into.indexes[name] = into.indexes.get(name, 0) + n
        for name, n in e.paths.items():
            into.paths[name] = into.paths.get(name, 0) + n
    ranked = sorted(merged.values(), key=lambda e: (-e.items, e.pk, e.sk))
    return ranked, total


def _attributes(e: _Entity, keys: tuple[str, ...]) -> str:
    parts = []
    names = sorted(e.attributes, key=lambda n: (n not in keys, n))
    for name in names[:MAX_ATTRIBUTES]:
        seen = e.attributes[name]
        types = "|".join(sorted(seen))
        optional = "?" if sum(seen.values()) < e.items else ""
        parts.append(f"{name}:{types}{optional}")
    if len(names) > MAX_ATTRIBUTES:
        parts.append(f"… {len(names) - MAX_ATTRIBUTES} more")
    return ", ".join(parts)


def _indexes(e: _Entity, table: TableInfo) -> str:
    parts = []
    for ix in table.indexes:
        n = e.indexes.get(ix.name or "", 0)
        if n == e.items:
            parts.append(f"{ix.name}")
        elif n:
            parts.append(f"{ix.name} ({n} of {e.items}: sparse)")
    return ", ".join(parts) or "none"


# --- the statement -------------------------------------------------------------------------------


def _plan(ctx: Context, statement: ast.ShowEntities) -> tuple[TableInfo, Plan, str]:
    """The whole table's Scan, or one Scan page of `n` items for SAMPLE n; and what it reads."""
    table = ctx.table(statement.table)
    plan = plan_full_scan(table, None, ctx.options())
    target = table.name
    if statement.sample is None:
        return table, plan, f"SHOW ENTITIES reads every item of {target} ({plan.estimate.text()})"
    n = statement.sample
    request = dataclasses.replace(
        plan.requests[0], params={**plan.requests[0].params, "Limit": min(n, 1000)}, max_items=n
    )
    items = min(n, plan.estimate.items) if plan.estimate.known else n
    rcu = read_units(items * table.average_item_size, plan.consistent)
    estimate = dataclasses.replace(plan.estimate, items=items, rcu=rcu, known=True)
    plan = dataclasses.replace(plan, requests=[request], segments=1, estimate=estimate)
    return (
        table,
        plan,
        f"SHOW ENTITIES reads a sample of {n} items of {target} (one Scan, Limit {n})",
    )


def show_entities(ctx: Context, statement: ast.ShowEntities) -> Result:
    table, plan, warning = _plan(ctx, statement)
    stats = Stats(expected_items=plan.estimate.items or None)
    columns = ["entity", "pk", "sk", "items", "share", "avg bytes", "attributes", "indexes"]
    result = Result(columns, iter(()), stats, warnings=[warning])
    result.rows = _rows(ctx, table, plan, stats, statement.sample, result.notes)
    return result


def _rows(
    ctx: Context, table: TableInfo, plan: Any, stats: Stats, sample: int | None, notes: list[str]
) -> Iterator[dict[str, Any]]:
    try:
        items = ctx.read(plan, stats)
        if sample is not None:
            items = _first(items, sample)
        found, total = entities(table, items)
    finally:
        ctx.ledger.settle(stats)
    if sample is not None:
        notes.append(
            f"sampled: {total} items of about {table.item_count}; counts and shares are of the "
            "sample, and rarer entity types may be missing"
        )
    for e in found:
        if e.paths:
            tops = sorted(e.paths.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_PATH_PREFIXES]
            notes.append(
                f"{e.name}: top-level prefixes "
                + ", ".join(f"{p} ({n})" for p, n in tops)
                + " — read a subtree with begins_with"
            )
        if table.keys.sk:
            notes.extend(sort_key_health(f"{table.keys.sk} of {e.name}", e.sk_values))
    keys = table.keys.names
    for e in found:
        yield {
            "entity": e.name,
            "pk": e.pk,
            "sk": e.sk,
            "items": Decimal(e.items),
            "share": (Decimal(e.items) / Decimal(total or 1)).quantize(Decimal("0.0001")),
            "avg bytes": Decimal(e.size // max(1, e.items)),
            "attributes": _attributes(e, keys),
            "indexes": _indexes(e, table),
        }


def _first(items: Iterable[dict[str, Any]], n: int) -> Iterator[dict[str, Any]]:
    for i, item in enumerate(items):
        if i >= n:
            return
        yield item


def _scan_plan(ctx: Context, statement: ast.ShowEntities) -> ScanCheck:
    """A Scan either way: SAMPLE n reads n items (its estimate is theirs), but --fail-on-scan
    sends no Scan of any size."""
    return ScanCheck(_plan(ctx, statement)[1], [], "SHOW ENTITIES")


KINDS = {
    ast.ShowEntities: Kind(
        named("SHOW ENTITIES"), show_entities, lambda _s: READS, None, _scan_plan
    )
}
