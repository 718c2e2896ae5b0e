"""Items → rows for a SELECT: sort, DISTINCT, aggregates, LIMIT and the select list.

Lazy wherever the statement allows: without ORDER BY or aggregates the rows stream, and a
LIMIT stops the reads underneath.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dynosql import values
from dynosql.evaluate.aggregate import Group
from dynosql.evaluate.order import row_key, sort_rows
from dynosql.evaluate.predicate import matches, operand_value, resolve
from dynosql.sql import ast
from dynosql.values import MISSING


def columns_of(statement: ast.Select, keys: tuple[str, ...]) -> list[str]:
    """The output columns: the select list's names, or the key attributes (`keys`, the
    table's) first for *."""
    if statement.items is None:
        return list(keys)
    return [item.name for item in statement.items]


def inexact_columns(statement: ast.Select | ast.SelectValues) -> tuple[str, ...]:
    """The output columns computed to 38 significant digits rather than exactly: an AVG or
    a division anywhere in their expression (the formats for people may shorten them)."""

    def inexact(node: Any) -> bool:
        if isinstance(node, ast.Aggregate):
            return node.func == "AVG"
        if isinstance(node, ast.Scalar):
            return node.func == "/" or any(inexact(a) for a in node.args)
        if isinstance(node, ast.Case):
            return any(inexact(v) for _c, v in node.whens) or inexact(node.default)
        return False

    return tuple(i.name for i in statement.items or () if inexact(i.expr))


def whole_item_row(item: dict[str, Any], key_names: tuple[str, ...]) -> dict[str, Any]:
    """SELECT *: key attributes first, then the others by name (DynamoDB keeps no order)."""
    row = {k: item[k] for k in key_names if k in item}
    for name in sorted(item):
        if name not in row:
            row[name] = item[name]
    return row


def project(
    statement: ast.Select, item: dict[str, Any], key_names: tuple[str, ...]
) -> dict[str, Any]:
    if statement.items is None:
        return whole_item_row(item, key_names)
    row: dict[str, Any] = {}
    for select_item in statement.items:
        if isinstance(select_item.expr, ast.AllColumns):  # o.*: a joined row's source, whole
            source = item.get(select_item.expr.alias)
            if isinstance(source, dict):
                prefix, omit = select_item.expr.prefix, select_item.expr.omit
                row.update((prefix + n, v) for n, v in source.items() if n not in omit)
            continue
        v = operand_value(select_item.expr, item)  # no aggregates here
        if v is not MISSING:
            row[select_item.name] = v
    return row


SORT_WARNING_ROWS = 10_000


def select_rows(
    statement: ast.Select,
    keys: tuple[str, ...],
    items: Iterable[dict[str, Any]],
    sort: tuple[ast.OrderItem, ...],
    notes: list[str] | None = None,
    budget: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Rows of a non-aggregate SELECT from the items the plan read. A client-side sort of
    many rows adds a note (the caller shows notes after the rows); past `budget` bytes it
    spills to disk. `keys`: the table's key names (first in a ``SELECT *`` row)."""
    limit = statement.limit
    if sort:
        key = row_key([(_resolver(o.expr), o.desc, o.nulls) for o in sort])
        items = sort_rows(
            _counted(items, notes, sort),
            key,
            None if statement.distinct else limit,
            budget,
            notes,
        )
    if statement.order_by and notes is not None:
        items = _missing_lead(items, statement.order_by[0], notes)
    rows: Iterable[dict[str, Any]] = (project(statement, i, keys) for i in items)
    if statement.distinct:
        rows = _distinct(rows)
    if limit is not None:
        rows = itertools.islice(rows, limit)
    return iter(rows)


def _resolver(expr: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda item: operand_value(expr, item)


def _group_getter(expr: Any) -> Callable[[Group], Any]:
    return lambda g: g.value(expr)


def _missing_lead(
    items: Iterable[dict[str, Any]], order: ast.OrderItem, notes: list[str]
) -> Iterator[dict[str, Any]]:
    """Pass the rows through, saying in a note how many lack the DESC ORDER BY attribute
    (they lead the result: a missing value sorts first descending)."""
    if not order.desc or order.nulls or not isinstance(order.expr, ast.Path):  # an attribute
        yield from items
        return
    n = missing = 0
    at = None
    for item in items:
        n += 1
        if resolve(item, order.expr) is MISSING:
            missing += 1
        if missing:
            text = (
                f"{missing} of {n} rows have no {order.expr.text}: missing values come first in "
                f"ORDER BY {order.expr.text} DESC (add NULLS LAST to put them last)"
            )
            if at is None:
                at = len(notes)
                notes.append(text)
            else:
                notes[at] = text
        yield item


def _counted(
    items: Iterable[dict[str, Any]], notes: list[str] | None, sort: tuple[Any, ...]
) -> Iterator[dict[str, Any]]:
    n = 0
    for item in items:
        n += 1
        yield item
    if notes is not None and n > SORT_WARNING_ROWS:
        by = ", ".join(o.expr.text for o in sort)
        notes.append(
            f"sorted {n} rows client-side by {by}: a table or index with {by} as its sort key "
            "would return them in order"
        )


def aggregate_rows(
    statement: ast.Select,
    groups: Iterable[Group],
    budget: int | None = None,
    notes: list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Rows of a GROUP BY/aggregate SELECT: HAVING, ORDER BY, DISTINCT, LIMIT (streamed:
    the groups arrive one by one; sorting them spills past `budget` bytes)."""
    if statement.having is not None:
        having = statement.having
        groups = (g for g in groups if matches(having, g, _group_value))
    if statement.order_by:
        key = row_key([(_group_getter(o.expr), o.desc, o.nulls) for o in statement.order_by])
        limit = None if statement.distinct else statement.limit
        groups = sort_rows(groups, key, limit, budget, notes)
    rows: Iterable[dict[str, Any]] = (_group_row(statement, g) for g in groups)
    if statement.distinct:
        rows = _distinct(rows)
    if statement.limit is not None:
        rows = itertools.islice(rows, statement.limit)
    return iter(rows)


def _group_value(operand: Any, g: Group) -> Any:
    return g.value(operand)


def _group_row(statement: ast.Select, g: Group) -> dict[str, Any]:
    row = {}
    for item in statement.items or ():
        v = g.value(item.expr)
        if v is not MISSING:
            row[item.name] = v
    return row


def _distinct(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    seen: set[Any] = set()
    for row in rows:
        key = tuple(sorted((k, values.hashable(v)) for k, v in row.items()))
        if key not in seen:
            seen.add(key)
            yield row
