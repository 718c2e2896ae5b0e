"""When to look for hints (``dynosql.hints.rules``), and the few reads that feed them.

- Before the read: table-qualified columns are resolved and the catalog-only hints (case of
  key names, double-quoted values, select-list aliases in WHERE) computed: when one applies it
  is shown before anything is read. Otherwise, when the plan is a Scan naming non-key
  attributes (or a qualified name needs telling apart from a map attribute), a sample of the
  table (one Scan page, Limit 100, once per ctx) adds the checks against attribute names
  and types — unless ``--fail-on-scan`` is set, which sends no Scan of any size. EXPLAIN never
  samples.
- After the read: when nothing matched, the sample's checks (if not shown yet) and, for an
  empty ``begins_with`` on a sort key, the prefixes that do exist; for a prefix without a
  separator (``'USER'``), whether it spans entity types. Those listings are priced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dynosql import guards
from dynosql.dynamo.catalog import SAMPLE_ITEMS
from dynosql.hints import rules as H
from dynosql.hints.sort_keys import sort_key_health
from dynosql.plan.model import Plan
from dynosql.plan.planner import plan_select
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context


def prepare(
    ctx: Context, statement: ast.Select, read: bool = True
) -> tuple[ast.Select, Plan, list[str]]:
    """The statement with qualified names resolved, its plan, and the hints to show first."""
    table = ctx.table(statement.table)
    may_sample = read and guards.may_sample(ctx)
    sample = None
    if may_sample and H.has_qualified_paths(statement):
        sample = ctx.sample(statement.table)
    statement = H.unqualify(statement, table, H.sampled_types(sample or []))
    plan = plan_select(statement, table, ctx.options())
    found = H.hints(statement, table)
    if found:
        return statement, plan, found  # a key-name mistake is named before anything is read
    # the sample's checks come first only before a Scan; a keyed read is checked by its rows
    if may_sample and plan.is_scan and H.names_attributes(statement, table):
        sample = ctx.sample(statement.table)
        found = H.hints(statement, table, sample)
    return statement, plan, found


def after_rows(
    ctx: Context, rows: Iterator[dict[str, Any]], plan: Plan, notes: list[str], shown: list[str]
) -> Iterator[dict[str, Any]]:
    """Pass the rows through; at the end, add the hints an empty result calls for (and, for
    a select-list column no row had, the hints about that name)."""
    statement = plan.statement
    empty = True
    sk = _ranged_sort_key(statement, plan)
    sort_keys: list[str] = []
    unfilled = _plain_columns(statement)
    for row in rows:
        if not statement.is_aggregate or any(v not in (0, None) for v in row.values()):
            empty = False
        if sk is not None and isinstance(row.get(sk), str):
            sort_keys.append(row[sk])
        if unfilled:
            unfilled = {name: root for name, root in unfilled.items() if name not in row}
        yield row
    found = list(_prefix_hints(ctx, statement, plan, empty))
    if sort_keys and sk is not None:
        found.extend(sort_key_health(sk, sort_keys))
    checked = empty and H.names_attributes(statement, plan.table)
    only = None if checked else set(unfilled.values()) - set(H.key_roles(plan.table))
    sample = _sample_after(ctx, plan) if checked or only else None
    if sample is not None:
        found[:0] = H.hints(statement, plan.table, sample, only)
    notes.extend(h for h in dict.fromkeys(found) if h not in shown)


def _plain_columns(statement: ast.Select) -> dict[str, str]:
    """Output column → attribute, for the select list's top-level attributes."""
    if statement.items is None or statement.is_aggregate:
        return {}
    return {
        i.name: i.expr.root
        for i in statement.items
        if isinstance(i.expr, ast.Path) and i.expr.is_attribute
    }


def _ranged_sort_key(statement: ast.Select, plan: Plan) -> str | None:
    """The sort key of the path read, when the statement orders by it or ranges over it: then
    an encoding that does not sort as its values do gives a wrong answer, not just an odd one."""
    sk = plan.access.keys.sk
    if sk is None or plan.access.keys.sk_type != "S" or statement.is_aggregate:
        return None

    def is_sk(x: Any) -> bool:
        return isinstance(x, ast.Path) and x.elements == (sk,)

    if any(is_sk(o.expr) for o in statement.order_by):
        return sk
    where = statement.where
    for c in where.items if isinstance(where, ast.And) else (where,):
        if isinstance(c, ast.Compare) and c.op in ("<", "<=", ">", ">="):
            if is_sk(c.left) or is_sk(c.right):
                return sk
        if isinstance(c, ast.Between) and is_sk(c.operand):
            return sk
    return None


def _sample_after(ctx: Context, plan: Plan) -> list[dict[str, Any]] | None:
    """The table's sample; under ``--fail-on-scan``, the items of the partition the Query
    read instead (one Query, Limit 100: no Scan of any size)."""
    if guards.may_sample(ctx):
        return ctx.sample(plan.table.name)
    if plan.operation != "Query" or plan.access.projection != "ALL":
        return None  # an index lacking attributes would make every name look unknown
    from dynosql.result import Stats
    from dynosql.values import decode

    request = plan.requests[0].params
    # the planner writes the partition key's condition first: "#pk = :v0 AND …"
    value = request["KeyConditionExpression"].split(" AND ")[0].split(" = ")[1]
    pk = plan.access.keys.pk
    partition = ast.Select(
        table=plan.table.name,
        index=plan.access.name,
        items=None,
        where=ast.Compare(
            "=",
            ast.Path((pk,), pk),
            ast.Literal(decode(request["ExpressionAttributeValues"][value])),
        ),
        limit=SAMPLE_ITEMS,
    )
    # one Limit-bounded Query through the executor: retried, paced, counted
    return list(ctx.read(prepare(ctx, partition, read=False)[1], Stats()))


def _prefix_hints(ctx: Context, statement: ast.Select, plan: Plan, empty: bool) -> Iterator[str]:
    from dynosql.hints.prefixes import list_prefixes
    from dynosql.result import Stats

    if plan.operation != "Query":
        return
    probe = H.begins_with_probe(statement, plan.table, plan.access.name)
    if probe is None:
        return
    pk, pk_value, sk, prefix = probe
    collision = not any(ch in H.SEPARATORS for ch in prefix)
    if not (empty or collision):
        return
    parent = H.parent_prefix(prefix) if empty else prefix
    executor, stats = ctx.executor(), Stats()
    listing = list_prefixes(
        lambda request: executor.query_page(request, stats),
        plan.table.name,
        plan.access.name,
        (pk, sk),
        pk_value,
        parent,
        ctx.estimating,
    )
    ctx.ledger.charge(rcu=listing.capacity)
    if empty:
        hint = H.empty_prefix_hint(
            pk,
            pk_value,
            sk,
            prefix,
            listing.found,
            listing.complete,
            listing.cost(ctx.estimating),
        )
    else:
        hint = H.collision_hint(sk, prefix, listing.found)
    if hint:
        yield hint
