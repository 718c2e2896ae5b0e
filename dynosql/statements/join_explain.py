"""EXPLAIN of a join: each source's rewrite, the first read (one source, or an item collection
and how its sort key range was chosen) with its requests, each lookup's strategy, one request
as it is sent for a key (its values named after the rows they come from), the estimate for as
many keys as rows before it, what the client does, and the whole join's estimate."""

from __future__ import annotations

import re
from typing import Any

from dynosql.plan.join import JoinPlan, Lookup, Read, Side
from dynosql.plan.model import Estimate
from dynosql.result import plural
from dynosql.sql.text import sql_text
from dynosql.statements.read_explain import explain_lines as plan_lines

# the greatest characters a key can hold (plan.keys.last_with_prefix): shown as one mark
_LAST = re.compile("\U0010ffff+[\x7f\u07ff\uffff]?")


def shown(text: str) -> str:
    """SQL text with the run of greatest characters that ends a prefix's last key as ``…``."""
    return _LAST.sub("…", text)


def explain_lines(join: JoinPlan) -> list[str]:
    lines = [_title(join)]
    for side in join.first.sides:
        lines.extend(f"  {line}" for line in _side_lines(side))
    if join.first.collection:
        lines.append(f"  the collection: {_collection_text(join.first)}")
    for hint in join.hints:
        lines.append(f"hint: {hint}")
    lines.extend(plan_lines(join.first.plan))
    if join.first.collection:
        lines.append("then, in the client:")
        split = "; ".join(
            f"{s.alias} where {shown(sql_text(s.predicate)) if s.predicate else 'every item'}"
            for s in join.first.sides
        )
        lines.append(f"  - split the items by member: {split}")
        for side, match in zip(join.first.sides[1:], join.first.matches, strict=True):
            lines.append(f"  - join {side.alias} on {match.text()}{_kept(match.left, join, side)}")
    for lookup in join.lookups:
        lines.extend(_lookup_lines(lookup, join))
    lines.extend(_after_lines(join))
    estimate = join.estimate
    lines.append(
        f"estimate (the whole join): ~{join.requests} {plural(join.requests, 'request')}, "
        f"{_cost(estimate)}"
        + (" (the lookups' for a key per row before them)" if join.lookups else "")
    )
    return lines


def _title(join: JoinPlan) -> str:
    names = ", ".join(f"{s.alias} ({s.what})" for s in join.sources)
    if join.first.collection:
        members = " and ".join(s.alias for s in join.first.sides)
        how = f"{members} read together as one item collection"
    else:
        how = f"{join.first.sides[0].alias} read first"
    lookups = "".join(f", then {x.side.alias} by key" for x in join.lookups)
    return f"join of {names}: {how}{lookups}"


def _side_lines(side: Side) -> list[str]:
    if side.read is not None:
        return [
            f"{side.alias}: {shown(line.strip())}" if i == 0 else f"  {shown(line.strip())}"
            for i, line in enumerate(side.read.lines())
        ]
    where = side.physical.where
    return [
        f"{side.alias}: table {side.source.name}" + (f" WHERE {sql_text(where)}" if where else "")
    ]


def _collection_text(read: Read) -> str:
    assert read.keys is not None
    partition = f"their partition keys coincide on {read.keys.label}: {read.keys.pk.text()}"
    return f"{partition}; {shown(read.cover) or 'no partition key fixed: one Scan'}"


def _kept(left: bool, join: JoinPlan, side: Side) -> str:
    if not left:
        return ""
    before = [s.alias for s in join.sources[: join.sources.index(side.source)]]
    return f" (LEFT JOIN: every row of {', '.join(before)} is kept)"


def _lookup_lines(lookup: Lookup, join: JoinPlan) -> list[str]:
    side = lookup.side
    lines = [
        f"lookup {side.alias} by {lookup.keys.label}, for the distinct keys of the rows before it: {lookup.strategy}"
    ]
    lines.extend(f"  {line}" for line in _side_lines(side))
    lines.append(f"  keys: {lookup.match.text()}")
    lines.append(
        f"  estimate: up to ~{lookup.expected_keys} {plural(lookup.expected_keys, 'key')} (a row "
        f"before it each): ~{lookup.requests} {plural(lookup.requests, 'request')}, "
        f"{_cost(lookup.estimate)}"
    )
    lines.append("  one key's read (its values come from the rows, in braces):")
    lines.extend(f"    {line}" for line in plan_lines(lookup.sample)[2:])
    lines.append(
        f"  then join {side.alias} on {lookup.match.text()}{_kept(lookup.match.left, join, side)}"
    )
    return lines


def _after_lines(join: JoinPlan) -> list[str]:
    statement = join.statement
    steps = []
    if join.where is not None:
        steps.append(f"WHERE {sql_text(join.where)}")
    if statement.is_aggregate:
        by = ", ".join(getattr(g, "text", "") for g in statement.group_by)
        steps.append("aggregate" + (f" by {by}" if by else ""))
        if statement.having is not None:
            steps.append("HAVING")
    if statement.distinct:
        steps.append("DISTINCT")
    if statement.order_by:
        keys = ", ".join(o.expr.text + (" DESC" if o.desc else "") for o in statement.order_by)
        steps.append(f"sort by {keys}")
    if statement.limit is not None:
        steps.append(f"stop after {statement.limit} {plural(statement.limit, 'row')}")
    if not steps:
        return []
    return ["on the joined rows:", *(f"  - {step}" for step in steps)]


def _cost(estimate: Estimate) -> str:
    if not estimate.known:
        return "size unknown"
    return f"~{format(estimate.rcu.normalize(), 'f')} RCU"


def explain_document(join: JoinPlan) -> dict[str, Any]:
    """EXPLAIN --format json of a join: the first read's plan document (its operation, table
    and requests, as a SELECT's), the join's own account, and the whole join's estimate."""
    first = join.first
    estimate = join.estimate
    return {
        **first.plan.document(),
        "join": {
            "sources": [
                {
                    "alias": s.alias,
                    "entity" if s.entity is not None else "table": s.name,
                    "table": s.table.name,
                    "left": s.left,
                }
                for s in join.sources
            ],
            "first": {
                "strategy": "item collection" if first.collection else "one source",
                "members": [s.alias for s in first.sides],
                "predicates": {
                    s.alias: None if s.predicate is None else sql_text(s.predicate)
                    for s in first.sides
                },
                "matches": [m.text() for m in first.matches],
                "plan": first.plan.document(),
            },
            "lookups": [
                {
                    "source": x.side.alias,
                    "table": x.side.source.table.name,
                    "strategy": "BatchGetItem" if x.full else "Query per key",
                    "index": x.keys.index,
                    "keys": x.match.text(),
                    "expected_keys": x.expected_keys,
                    "requests": x.requests,
                    "rcu": format(x.estimate.rcu.normalize(), "f"),
                    "one_key": x.sample.document(),
                }
                for x in join.lookups
            ],
            "where": None if join.where is None else sql_text(join.where),
        },
        "estimate": {
            "items": estimate.items,
            "rcu": format(estimate.rcu.normalize(), "f"),
            "requests": join.requests,
        },
    }
