"""GROUP BY and aggregates, streamed: memory grows with the number of groups, not of items.

The stated rules for values DynamoDB itself never aggregates:
- COUNT(p) counts items where p exists and is not NULL; COUNT(DISTINCT p) likewise, by value.
- SUM and AVG add numbers only (other types are skipped), exactly, in Decimal; over no
  numbers they are NULL. AVG keeps 38 significant digits.
- MIN and MAX skip missing attributes and NULLs and order the rest in DynamoDB order; values
  of different types in one group order numbers < strings < binary < booleans < lists <
  maps < sets (the same rule as a client-side ORDER BY).
- A missing group-by attribute forms its own group, shown with the attribute absent.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .. import values
from ..sql import ast
from ..values import MISSING
from .predicate import resolve

AVG_CONTEXT = decimal.Context(prec=38)


@dataclass
class _State:
    count: int = 0
    total: Decimal = Decimal(0)
    numbers: int = 0
    best: Any = MISSING
    best_key: Any = None
    distinct: set = field(default_factory=set)


def _update(agg: ast.Aggregate, state: _State, item: dict) -> None:
    if agg.path is None:
        state.count += 1
        return
    v = resolve(item, agg.path)
    if v is MISSING or v is None:
        return
    if agg.func == "COUNT":
        if agg.distinct:
            state.distinct.add(values.hashable(v))
        else:
            state.count += 1
    elif agg.func in ("SUM", "AVG"):
        if isinstance(v, Decimal):
            if agg.distinct:
                state.distinct.add(v.normalize(values.DECIMAL_CONTEXT))
            else:
                state.total = values.DECIMAL_CONTEXT.add(state.total, v)
                state.numbers += 1
    else:
        k = values.sort_key(v)
        if state.best is MISSING or (
            k < state.best_key if agg.func == "MIN" else k > state.best_key
        ):
            state.best, state.best_key = v, k


def _final(agg: ast.Aggregate, state: _State) -> Any:
    if agg.func == "COUNT":
        return Decimal(len(state.distinct) if agg.distinct else state.count)
    if agg.func in ("SUM", "AVG"):
        total, n = state.total, state.numbers
        if agg.distinct:
            total = Decimal(0)
            for v in state.distinct:  # sum() would add in the default 28-digit context
                total = values.DECIMAL_CONTEXT.add(total, v)
            n = len(state.distinct)
        if n == 0:
            return None
        if agg.func == "SUM":
            return total
        return AVG_CONTEXT.divide(total, Decimal(n))
    return None if state.best is MISSING else state.best


@dataclass
class Group:
    """One output group: its group-by values and its aggregates, by expression text."""

    key_values: dict[tuple, Any]  # path elements -> value (MISSING when absent)
    aggregates: dict[str, Any]

    def value(self, expr: Any) -> Any:
        if isinstance(expr, ast.Aggregate):
            return self.aggregates[expr.text]
        if isinstance(expr, ast.Path):
            return self.key_values.get(expr.elements, MISSING)
        raise TypeError(expr)


def collect_aggregates(statement: ast.Select) -> list[ast.Aggregate]:
    """Every aggregate the statement computes (select list, HAVING, ORDER BY), once each."""
    found: dict[str, ast.Aggregate] = {}

    def visit(node: Any) -> None:
        if isinstance(node, ast.Aggregate):
            found.setdefault(node.text, node)
        elif isinstance(node, ast.And | ast.Or):
            for c in node.items:
                visit(c)
        elif isinstance(node, ast.Not):
            visit(node.item)
        elif isinstance(node, ast.Compare):
            visit(node.left)
            visit(node.right)
        elif isinstance(node, ast.Between):
            visit(node.operand)
            visit(node.low)
            visit(node.high)
        elif isinstance(node, ast.In):
            visit(node.operand)
            for v in node.values:
                visit(v)

    for item in statement.items or ():
        visit(item.expr)
    visit(statement.having)
    for order in statement.order_by:
        visit(order.expr)
    return list(found.values())


def group(statement: ast.Select, items: Iterable[dict]) -> list[Group]:
    """Stream the items into groups; without GROUP BY there is exactly one group."""
    aggs = collect_aggregates(statement)
    groups: dict[tuple, tuple[dict, list[_State]]] = {}
    for item in items:
        key_values = {p.elements: resolve(item, p) for p in statement.group_by}
        key = tuple(values.hashable(v) for v in key_values.values())
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = (key_values, [_State() for _ in aggs])
        for agg, state in zip(aggs, entry[1], strict=True):
            _update(agg, state, item)
    if not groups and not statement.group_by:
        groups[()] = ({}, [_State() for _ in aggs])
    return [
        Group(kv, {a.text: _final(a, s) for a, s in zip(aggs, states, strict=True)})
        for kv, states in groups.values()
    ]


def count_group(statement: ast.Select, count: int) -> list[Group]:
    """The single group of a ``SELECT COUNT(*)`` answered by Select=COUNT."""
    aggs = collect_aggregates(statement)
    return [Group({}, {a.text: Decimal(count) for a in aggs})]
