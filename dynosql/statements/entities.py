"""SHOW ENTITIES FROM t [SAMPLE n] [AS CREATE]: the design of a table nobody explained, read
from its items (the inference is ``dynosql.entities.discover``; AS CREATE's statements are
``dynosql.entities.propose``).

Per entity type the report gives its key templates (and its index keys' where its items
carry them), the item count and share, the average size, the attributes with the types seen
(``?`` where only some items have one) and the indexes that hold it (sparse membership: an
index holds the items that have its key attributes). Notes say where the types came from (an
entity-type attribute), which keys do not follow their type's template, and the sort-key
health checks (encodings that do not sort as their values do, with a pair that sorts wrongly).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.entities.discover import (
    HELD_ITEMS,
    Discovery,
    FoundEntity,
    condition_text,
    discover,
)
from dynosql.entities.keyshape import template_text
from dynosql.errors import SqlError
from dynosql.guards import READS
from dynosql.hints.sort_keys import sort_key_health
from dynosql.plan.model import Plan
from dynosql.plan.planner import plan_full_scan
from dynosql.plan.schema import TableInfo
from dynosql.position import NOWHERE, Pos
from dynosql.result import Result, Stats
from dynosql.sql import ast
from dynosql.sql.keywords import Starter, show_refused
from dynosql.sql.split import IDENT, Chunk, unquote
from dynosql.statements.kind import Kind, Planned, ScanCheck, named
from dynosql.values import read_units

if TYPE_CHECKING:
    from dynosql.context import Context

MAX_ATTRIBUTES = 12
MAX_PATH_PREFIXES = 5
COLUMNS = ["entity", "pk", "sk", "items", "share", "avg bytes", "attributes", "indexes"]


@dataclass(frozen=True)
class ShowEntities(ast.Statement, table_only=True):
    """``SHOW ENTITIES FROM t [SAMPLE n] [AS CREATE]``: the entity types behind a table's keys
    (AS CREATE: written as CREATE ENTITY statements). SHOW ENTITIES alone (the entities the
    session declared) is the entity definitions' (``ast.ShowDeclaredEntities``)."""

    table: str
    sample: int | None = None
    pos: Pos = field(default=NOWHERE, compare=False)
    as_create: bool = False


_SHOW_ENTITIES = re.compile(
    rf"\s*SHOW\s+ENTITIES\s+FROM\s+({IDENT})(?:\s+SAMPLE\s+(\d+))?(\s+AS\s+CREATE)?\s*$", re.I
)


def parse_show_entities(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ShowEntities:
    """``SHOW ENTITIES FROM t [SAMPLE n] [AS CREATE]``."""
    m = _SHOW_ENTITIES.match(code)
    if m is None:
        raise show_refused(code, position)
    sample_size = int(m.group(2)) if m.group(2) else None
    if sample_size is not None and not 1 <= sample_size <= ast.MAX_LIMIT:
        at = position(m.start(2))
        raise SqlError("SAMPLE takes a whole number from 1", at.line, at.col)
    return ShowEntities(unquote(m.group(1)), sample_size, position(m.start(1)), bool(m.group(3)))


def _plan(ctx: Context, statement: ShowEntities) -> tuple[TableInfo, Plan, str]:
    """The whole table's Scan, or one Scan page of `n` items for SAMPLE n; and what it reads."""
    table = ctx.table(statement.table)
    plan = plan_full_scan(table, None, ctx.options())
    target = table.name
    what = "SHOW ENTITIES … AS CREATE" if statement.as_create else "SHOW ENTITIES"
    if statement.sample is None:
        return table, plan, f"{what} reads every item of {target} ({plan.estimate.text()})"
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
        f"{what} reads a sample of {n} items of {target} (one Scan, Limit {n})",
    )


def show_entities(ctx: Context, planned: Planned[ShowEntities]) -> Result:
    statement = planned.statement
    table, plan, warning = planned.plan
    stats = Stats(expected_items=plan.estimate.items or None)
    if statement.as_create:
        result = Result(["plan"], iter(()), stats, warnings=[warning], kind="text")
        result.rows = _create_lines(ctx, table, plan, statement.sample, result)
        return result
    result = Result(COLUMNS, iter(()), stats, warnings=[warning])
    result.rows = _rows(ctx, table, plan, statement.sample, result)
    return result


def _discovered(
    ctx: Context, table: TableInfo, plan: Plan, stats: Stats, sample: int | None
) -> Discovery:
    items: Iterable[dict[str, Any]] = ctx.read(plan, stats)
    if sample is not None:
        items = _first(items, sample)
    return discover(table, items)


def _rows(
    ctx: Context, table: TableInfo, plan: Plan, sample: int | None, result: Result
) -> Iterator[dict[str, Any]]:
    found = _discovered(ctx, table, plan, result.stats, sample)
    result.notes.extend(_notes(table, found, sample))
    keys = table.keys.names
    for e in found.entities:
        yield {
            "entity": e.name,
            "pk": template_text(e.templates.get(keys[0], ())),
            "sk": template_text(e.templates.get(keys[1], ())) if len(keys) > 1 else "",
            "items": Decimal(e.items),
            "share": (Decimal(e.items) / Decimal(found.total or 1)).quantize(Decimal("0.0001")),
            "avg bytes": Decimal(e.size // max(1, e.items)),
            "attributes": _attributes(e, keys),
            "indexes": _indexes(e, table),
        }


def _create_lines(
    ctx: Context, table: TableInfo, plan: Plan, sample: int | None, result: Result
) -> Iterator[dict[str, Any]]:
    from dynosql.entities.propose import propose

    found = _discovered(ctx, table, plan, result.stats, sample)
    result.notes.extend(_notes(table, found, sample))
    statements = propose(table, found, sample)
    result.document = {"table": table.name, "statements": statements[1:]}
    for i, text in enumerate(statements):
        if i:
            yield {"plan": ""}
        for line in text.splitlines():
            yield {"plan": line}


def _notes(table: TableInfo, found: Discovery, sample: int | None) -> list[str]:
    notes = []
    if sample is not None:
        notes.append(
            f"sampled: {found.total} items of about {table.item_count}; counts and shares are "
            "of the sample, and rarer entity types may be missing"
        )
    if found.type_attribute:
        notes.append(
            f"entity types from the attribute {found.type_attribute} "
            f"({sum(1 for e in found.entities if e.type_value is not None)} values)"
        )
    for e in found.entities:
        if e.odd:
            notes.append(
                f"{e.name}: {len(e.odd)} of its keys have another shape than its template "
                "(" + "; ".join(e.odd) + ")"
            )
        if e.name == "other" and not e.templates:
            notes.append(
                f"other: {e.items} items after the first {HELD_ITEMS} fit none of the entity "
                "types found in those"
            )
        if e.paths:
            tops = sorted(e.paths.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_PATH_PREFIXES]
            notes.append(
                f"{e.name}: top-level prefixes "
                + ", ".join(f"{p} ({n})" for p, n in tops)
                + " — read a subtree with begins_with"
            )
        if table.keys.sk:
            notes.extend(sort_key_health(f"{table.keys.sk} of {e.name}", e.sk_values))
    return notes


def _attributes(e: FoundEntity, keys: tuple[str, ...]) -> str:
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


def _indexes(e: FoundEntity, table: TableInfo) -> str:
    """Each index that holds items of the entity, with its keys' templates when they differ
    from the table's attributes."""
    parts = []
    for ix in table.indexes:
        n = e.indexes.get(ix.name or "", 0)
        if not n:
            continue
        keys = " / ".join(template_text(e.templates.get(a, ())) for a in ix.keys.names)
        condition = e.holds.get(ix.name or "")
        where = f"where {condition_text(condition)}" if condition else "sparse"
        sparse = "" if n == e.items else f" ({n} of {e.items}: {where})"
        parts.append(f"{ix.name} {keys}{sparse}" if keys.strip(" /") else f"{ix.name}{sparse}")
    return ", ".join(parts) or "none"


def _first(items: Iterable[dict[str, Any]], n: int) -> Iterator[dict[str, Any]]:
    for i, item in enumerate(items):
        if i >= n:
            return
        yield item


def _planned(ctx: Context, statement: ShowEntities, _explaining: bool) -> Planned[ShowEntities]:
    """A Scan either way: SAMPLE n reads n items (its estimate is theirs), but --fail-on-scan
    sends no Scan of any size."""
    found = _plan(ctx, statement)
    return Planned(statement, found, (ScanCheck(found[1], [], "SHOW ENTITIES"),))


STARTERS = (
    Starter(
        "SHOW ENTITIES FROM",
        "SHOW ENTITIES FROM",
        parser=parse_show_entities,
        usage="SHOW ENTITIES [FROM table]",
    ),
)
KINDS = {
    ShowEntities: Kind(
        named("SHOW ENTITIES"),
        show_entities,
        lambda _s: READS,
        plan=_planned,
        example=("SHOW ENTITIES FROM {t}",),
    )
}
