"""GROUP BY and aggregates, streamed: memory grows with the number of groups, not of items,
and past the memory budget the groups' partial states spill to disk (evaluate/spill.py).

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.evaluate import count_groups
from dynosql.evaluate.predicate import expression_value, operand_value, resolve, size_of
from dynosql.evaluate.spill import DISTINCT_VALUE_BYTES, GROUP_BYTES, MB, SpillingGroups
from dynosql.sql import ast
from dynosql.values import MISSING

AVG_CONTEXT = decimal.Context(prec=38)


class _State:
    """One aggregate's running state in one group. Slotted, and the DISTINCT set is made only
    for a DISTINCT aggregate: a million COUNT(*) groups are a million small objects."""

    __slots__ = ("best", "best_key", "count", "distinct", "numbers", "total")

    def __init__(self) -> None:
        self.count = 0
        self.total = Decimal(0)
        self.numbers = 0
        self.best: Any = MISSING
        self.best_key: Any = None
        self.distinct: set[Any] | None = None

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.count, self.total, self.numbers, self.best, self.best_key, self.distinct)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.count, self.total, self.numbers, self.best, self.best_key, self.distinct = state

    def add_distinct(self, value: Any) -> bool:
        """Add to the DISTINCT set; True when the value is new (the set grew)."""
        if self.distinct is None:
            self.distinct = set()
        size = len(self.distinct)
        self.distinct.add(value)
        return len(self.distinct) > size


def _merge(agg: ast.Aggregate, into: _State, other: _State) -> None:
    """Fold a partial state of the same group (spilled to disk) into another."""
    into.count += other.count
    into.total = values.DECIMAL_CONTEXT.add(into.total, other.total)
    into.numbers += other.numbers
    if other.distinct:
        if into.distinct is None:
            into.distinct = set()
        into.distinct |= other.distinct
    if other.best is not MISSING and (
        into.best is MISSING
        or (other.best_key < into.best_key if agg.func == "MIN" else other.best_key > into.best_key)
    ):
        into.best, into.best_key = other.best, other.best_key


def _update(agg: ast.Aggregate, state: _State, item: dict[str, Any]) -> bool:
    """Add an item to a state; True when a DISTINCT set grew (memory accounting)."""
    if agg.counts_items:
        state.count += 1
        return False
    v = operand_value(agg.arg, item) if agg.path is None else resolve(item, agg.path)
    if v is MISSING or v is None:
        return False
    if agg.func == "COUNT":
        if agg.distinct:
            return state.add_distinct(values.hashable(v))
        state.count += 1
    elif agg.func in ("SUM", "AVG"):
        if isinstance(v, Decimal):
            if agg.distinct:
                return state.add_distinct(v.normalize(values.DECIMAL_CONTEXT))
            else:
                state.total = values.DECIMAL_CONTEXT.add(state.total, v)
                state.numbers += 1
    else:
        k = values.sort_key(v)
        if state.best is MISSING or (
            k < state.best_key if agg.func == "MIN" else k > state.best_key
        ):
            state.best, state.best_key = v, k
    return False


def _final(agg: ast.Aggregate, state: _State) -> Any:
    distinct = state.distinct or set()
    if agg.func == "COUNT":
        return Decimal(len(distinct) if agg.distinct else state.count)
    if agg.func in ("SUM", "AVG"):
        total, n = state.total, state.numbers
        if agg.distinct:
            total = Decimal(0)
            for v in distinct:  # sum() would add in the default 28-digit context
                total = values.DECIMAL_CONTEXT.add(total, v)
            n = len(distinct)
        if n == 0:
            return None
        if agg.func == "SUM":
            return total
        return AVG_CONTEXT.divide(total, Decimal(n))
    return None if state.best is MISSING else state.best


@dataclass
class Group:
    """One output group: its group-by values and its aggregates, by expression text."""

    key_values: dict[Any, Any]  # ast.key_of(group-by expression) -> value (MISSING: absent)
    aggregates: dict[str, Any]

    def value(self, expr: Any) -> Any:
        """A grouped expression's value, an aggregate's, or an expression over them
        (``ROUND(AVG(t), 2)``, ``SUBSTR(day, 1, 7)`` of a grouped ``day``)."""
        if isinstance(expr, ast.Aggregate):
            return self.aggregates[expr.text]
        if isinstance(expr, ast.Literal):
            return expr.value
        key = ast.key_of(expr)
        if key in self.key_values:
            return self.key_values[key]
        if isinstance(expr, ast.Scalar | ast.Case):
            return expression_value(expr, self, _group_value)
        if isinstance(expr, ast.Size):
            return size_of(self.value(expr.path))
        if isinstance(expr, ast.Path):
            return MISSING
        raise TypeError(expr)


def _group_value(operand: Any, g: Group) -> Any:
    return g.value(operand)


def group_values(statement: ast.Select, item: dict[str, Any]) -> dict[Any, Any]:
    """An item's GROUP BY values, by ast.key_of (paths and expressions alike)."""
    return {ast.key_of(p): operand_value(p, item) for p in statement.group_by}


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
        elif isinstance(node, ast.Scalar):
            for a in node.args:
                visit(a)
        elif isinstance(node, ast.Case):
            for c, v in node.whens:
                visit(c)
                visit(v)
            visit(node.default)

    for item in statement.items or ():
        visit(item.expr)
    visit(statement.having)
    for order in statement.order_by:
        visit(order.expr)
    return list(found.values())


def group(
    statement: ast.Select,
    items: Iterable[dict[str, Any]] | count_groups.WirePages,
    budget: int | None = None,
    notes: list[str] | None = None,
) -> Iterator[Group]:
    """Stream the items into groups; without GROUP BY there is exactly one group. Past
    `budget` bytes of group state, partial states spill to disk by group key. `items` may be
    pages counted off the wire form (`count_groups.WirePages`) when `count_groups.counted_names`
    gives names."""
    aggs = collect_aggregates(statement)

    def merge(into: list[_State], other: list[_State]) -> None:
        for agg, a, b in zip(aggs, into, other, strict=True):
            _merge(agg, a, b)

    groups = SpillingGroups(
        budget, lambda: [_State() for _ in aggs], merge, GROUP_BYTES * (1 + len(aggs))
    )
    paths = statement.group_by
    keys = [ast.key_of(p) for p in paths]
    n = 0
    names = count_groups.counted_names(aggs, paths)
    if names is not None:  # COUNT(*) by top-level names: counted in C, the rest loops below

        def counted(found: tuple[Any, ...], n: int) -> None:
            for state in groups.states(tuple(values.hashable(v) for v in found), found):
                state.count += n

        if isinstance(items, count_groups.WirePages):
            items = count_groups.count_pages(items, counted)
        else:
            items = count_groups.count(items, names, counted)
    assert not isinstance(items, count_groups.WirePages)  # counted_names gave names above
    for item in items:
        # a tuple: a dict per group costs 200 B
        found = tuple(operand_value(p, item) for p in paths)
        key = tuple(values.hashable(v) for v in found)
        states = groups.states(key, found)
        for agg, state in zip(aggs, states, strict=True):
            if _update(agg, state, item):
                groups.grew(DISTINCT_VALUE_BYTES)
    if groups.spills and notes is not None and budget is not None:
        notes.append(
            f"grouping passed the memory budget ({budget / MB:g} MB): partial groups were "
            "spilled to disk by key and merged"
        )
    for found, states in groups:
        n += 1
        key_values = dict(zip(keys, found, strict=True))
        yield Group(key_values, {a.text: _final(a, s) for a, s in zip(aggs, states, strict=True)})
    if not n and not paths:
        yield Group({}, {a.text: _final(a, _State()) for a in aggs})


def count_group(statement: ast.Select, count: int) -> list[Group]:
    """The single group of a ``SELECT COUNT(*)`` answered by Select=COUNT."""
    aggs = collect_aggregates(statement)
    return [Group({}, {a.text: Decimal(count) for a in aggs})]
