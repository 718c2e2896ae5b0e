"""When to look for hints (``dynosql.hints.rules``), and the few reads that feed them.

Rule: outside the REPL a hint reads nothing the statement did not read: a Scan's names are
checked on its own first page (`first_page`: the page comes back whole, same items, same
bill), and said before the rest is read. In the REPL (a person,
``Doors.interactive``) a bounded sample may be read, once per table and session, and what it
cost is a note of its own; a sample already read this session (the catalog's, where the
backend reports no table size) is used anywhere. ``--fail-on-scan`` sends no Scan of any size
for a hint, and EXPLAIN never reads for one.

- Before the read: the catalog-only hints (case of key names, double-quoted values,
  select-list aliases in WHERE), computed when the statement was planned: when one applies it
  is shown before anything is read. Otherwise, when the plan is a Scan naming non-key
  attributes, the sample (if there may be one) adds the checks against attribute names and
  types.
- After the read: when nothing matched, the sample's checks (if not shown yet). For an empty ``begins_with`` on a sort key the prefixes that do exist (REPL only: they are
  read), and for a prefix without a separator (``'USER'``) whether it spans entity types.
  Always, from what the statement read: ``p IS NULL`` finding nothing (``IS MISSING``?), and
  a string upper bound that is a strict prefix of the values read (``BETWEEN … AND
  '2026-05-05'`` on timestamps).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from dynosql import guards
from dynosql.hints import rules as H
from dynosql.hints.bounds import prefix_bound_hints, upper_bounds
from dynosql.hints.presence import is_null_hints, is_null_paths
from dynosql.hints.sort_keys import sort_key_health
from dynosql.plan.model import Plan
from dynosql.plan.planner import plan_select
from dynosql.plan.port import SAMPLE_ITEMS
from dynosql.result import Stats, counted
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context


def before_read(
    ctx: Context, statement: ast.Select, plan: Plan, shown: tuple[str, ...], spent: list[str]
) -> list[str]:
    """The hints to show before the read: `shown` (what the table alone says, found when the
    statement was planned); else, before a Scan naming attributes that are no keys, the
    sample's checks, if there may be a sample (`Context.hint_sample`). Hints read the plan; they
    never produce one. `spent` gets a line for each read made for them (the REPL's sample)."""
    if shown:
        return list(shown)  # a key-name mistake is named before anything is read
    table = plan.table
    if plan.is_scan and H.names_attributes(statement, table):
        sample = _sample(ctx, statement.table, spent)
        if sample is not None:
            return H.hints(statement, table, sample)
    return []


def first_page(
    ctx: Context, statement: ast.Select, plan: Plan, shown: list[str], notes: list[str]
) -> Callable[[list[dict[str, Any]]], None] | None:
    """The check of a Scan's attribute names on its own first page, where no sample was
    checked before the read (a script, a library call): nothing is read for it (the page
    comes back whole, at the same cost: `Executor.items`), and what it finds is said before
    the next page is asked for (`Context.tell`: a script's stderr), else kept as a note.
    None where it has nothing to do: not a Scan, no attribute in the WHERE beyond the keys, an
    index lacking attributes."""
    table = plan.table
    if not plan.is_scan or plan.fetch is not None or plan.sample is not None:
        return None
    if plan.access.projection != "ALL" or ctx.port.has_sample(table.name):
        return None
    if not H.names_attributes(statement, table, where_only=True):
        return None  # no condition to check: select-list names alone show blank columns

    def check(items: list[dict[str, Any]]) -> None:
        if not items:
            return
        seen_in = f"the Scan's first page ({len(items)} items)"
        for hint in H.hints(statement, table, items, seen_in=seen_in, where_only=True):
            if hint in shown or hint in notes:
                continue
            if ctx.doors.notice is not None:
                ctx.tell(hint)  # now, while the rest is read
                shown.append(hint)
            else:
                notes.append(hint)

    return check


def _sample(ctx: Context, table: str, spent: list[str] | None) -> list[dict[str, Any]] | None:
    items, cost = ctx.hint_sample(table)
    if cost is not None and spent is not None:
        spent.append(cost)
    return items


def after_rows(
    ctx: Context,
    rows: Iterator[dict[str, Any]],
    plan: Plan,
    notes: list[str],
    shown: list[str],
    stats: Stats | None = None,
    spent: list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Pass the rows through; at the end, add the hints an empty result calls for (and, for
    a select-list column no row had, the hints about that name). `stats`: the statement's
    read (how many items it evaluated); `spent`: lines for reads made for the hints."""
    statement = plan.statement
    spent = spent if spent is not None else []
    empty = True
    sk = _ranged_sort_key(statement, plan)
    sort_keys: list[str] = []
    unfilled = _plain_columns(statement)
    bounded: dict[str, list[str]] = {
        str(p.root): [] for p, _op, _b in upper_bounds(statement.where)
    }
    own_keys: list[str] = []  # the sort keys read (a begins_with's entity types)
    key = plan.access.keys.sk
    for row in rows:
        if not statement.is_aggregate or any(v not in (0, None) for v in row.values()):
            empty = False
        if sk is not None and isinstance(row.get(sk), str):
            sort_keys.append(row[sk])
        if unfilled:
            unfilled = {name: root for name, root in unfilled.items() if name not in row}
        for name, seen in bounded.items():
            if isinstance(row.get(name), str) and len(seen) < SAMPLE_ITEMS:
                seen.append(row[name])
        if key is not None and isinstance(row.get(key), str) and len(own_keys) < 1000:
            own_keys.append(row[key])
        yield row
    found = list(_prefix_hints(ctx, statement, plan, empty, own_keys))
    if sort_keys and sk is not None:
        found.extend(sort_key_health(sk, sort_keys))
    found.extend(prefix_bound_hints(statement, bounded))
    checked = empty and H.names_attributes(statement, plan.table)
    only = None if checked else set(unfilled.values()) - set(H.key_roles(plan.table))
    sample = None
    if checked or only or (empty and any(is_null_paths(statement.where))):
        sample = _sample_after(ctx, plan, spent)
    if sample is not None and (checked or only):
        found[:0] = H.hints(statement, plan.table, sample, only)
    if empty:
        scanned = stats.items_scanned if stats is not None else 0
        found.extend(is_null_hints(statement, scanned, sample))
    notes.extend(h for h in dict.fromkeys([*spent, *found]) if h not in shown and h not in notes)


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


def _sample_after(ctx: Context, plan: Plan, spent: list[str]) -> list[dict[str, Any]] | None:
    """The table's sample (see `Context.hint_sample`); in the REPL under ``--fail-on-scan``,
    the items of the partition the Query read instead (one Query, Limit 100: no Scan)."""
    if guards.may_sample(ctx):
        return _sample(ctx, plan.table.name, spent)
    if not ctx.doors.interactive:
        return None  # a script: no read nobody asked for
    if plan.operation != "Query" or plan.access.projection != "ALL":
        return None  # an index lacking attributes would make every name look unknown
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
    # one Limit-bounded Query through the port: retried, paced, counted, and shown
    stats = Stats()
    items = list(ctx.read(plan_select(partition, plan.table, ctx.options()), stats))
    spent.append(
        f"read for the hints: {counted(len(items), 'item')} of the partition read "
        f"(one Query, {stats.capacity_text()})"
    )
    return items


def _prefix_hints(
    ctx: Context, statement: ast.Select, plan: Plan, empty: bool, own_keys: list[str]
) -> Iterator[str]:
    """An empty ``begins_with``: the prefixes that exist (read: REPL only). A prefix without
    a separator: the entity types it spans, from the sort keys the statement read itself
    (`own_keys`) outside the REPL, from a listing in it."""
    if plan.operation != "Query":
        return
    probe = H.begins_with_probe(statement, plan.table, plan.access.name)
    if probe is None:
        return
    pk, pk_value, sk, prefix = probe
    collision = not any(ch in H.SEPARATORS for ch in prefix)
    if not (empty or collision):
        return
    if not ctx.doors.interactive:  # a script: no read nobody asked for
        if collision and own_keys:
            children = sorted({H.child_prefix(k, prefix) for k in own_keys if k.startswith(prefix)})
            hint = H.collision_hint(sk, prefix, children)
            if hint:
                yield hint
        return
    from dynosql.hints.prefixes import list_prefixes  # the REPL's listing only

    parent = H.parent_prefix(prefix) if empty else prefix
    stats = Stats()
    listing = list_prefixes(
        lambda request: ctx.port.query_page(request, stats),
        plan.table.name,
        plan.access.name,
        (pk, sk),
        pk_value,
        parent,
        ctx.estimating,
    )
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
