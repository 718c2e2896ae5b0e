"""A brute-force evaluator for GROUP BY / HAVING / ORDER BY / DISTINCT / LIMIT and aggregates.

Independent of ``dynosql.evaluate``: it implements the stated rules of
``dynosql/evaluate/aggregate.py`` (and the client-side ORDER BY rule of ``dynosql/values.py``)
from scratch, on plain lists, with no streaming and no cleverness:

- COUNT(*) counts items; COUNT(p) counts items where p exists and is not NULL; COUNT(DISTINCT p)
  counts the distinct such values (type and value: the string "1" and the number 1 differ).
- SUM and AVG add numbers only, exactly (a huge-precision Decimal context); over no numbers they
  are NULL (None). AVG is the exact sum divided by the count, rounded to 38 significant digits.
- MIN and MAX skip missing attributes and NULLs and order the rest in DynamoDB order; values of
  different types order numbers < strings < binary < booleans < lists < maps < sets.
- A missing group-by attribute forms its own group; its row lacks that column.
- ORDER BY (client-side): numbers < strings < binary < booleans < NULL < lists < maps < sets,
  a missing value last ascending (first descending).
- Comparisons (WHERE, HAVING) follow DynamoDB: a missing operand makes every comparison false
  except ``<>``; ``=`` needs the same type; ``<``/``>`` only order two N, two S or two B.

Queries are described with the small dataclasses below; the tests render the same description
to SQL, so the two sides never share a parser.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import oracle as _oracle

EXACT = decimal.Context(prec=2000, Emax=999999, Emin=-999999)
AVG38 = decimal.Context(prec=38)


# values, paths and equality as the predicate oracle has them (one reference for both)
MISSING: Any = _oracle.ABSENT
type_code = _oracle.type_code
canon = _oracle.canonical

Path = tuple  # ("a",), ("m", "k"), ("l", 0)


@dataclass(frozen=True)
class Agg:
    func: str  # COUNT SUM AVG MIN MAX
    path: Path | None = None  # None: COUNT(*)
    distinct: bool = False


@dataclass(frozen=True)
class Col:
    path: Path


@dataclass(frozen=True)
class Item:
    expr: Agg | Col
    name: str  # the output column


@dataclass(frozen=True)
class Cond:
    """``expr op literal``; expr an Agg, a Col (group column or WHERE attribute)."""

    expr: Agg | Col
    op: str
    value: Any


@dataclass
class Query:
    items: list[Item]
    group_by: list[Path] = field(default_factory=list)
    where: list[Cond] = field(default_factory=list)  # ANDed, over items
    having: list[Cond] = field(default_factory=list)  # ANDed, over groups
    order_by: list[tuple[Agg | Col, bool]] = field(default_factory=list)  # (expr, desc)
    limit: int | None = None
    distinct: bool = False


# --- values ------------------------------------------------------------------------------------


def resolve(item: Any, path: Path) -> Any:
    return _oracle.resolve(item, path)


def _within(v: Any, t: str) -> Any:
    """Order inside one type (only N, S, B, BOOL matter for the rules; the rest is fixed)."""
    if t == "N":
        return v
    if t == "S":
        return v.encode("utf-8")
    if t == "B":
        return bytes(v)
    if t == "BOOL":
        return int(v)
    if t == "L":
        return tuple(order_key(x) for x in v)
    if t == "M":
        return tuple(sorted((k.encode("utf-8"), order_key(x)) for k, x in v.items()))
    if t in ("SS", "NS", "BS"):
        return tuple(sorted(order_key(x) for x in v))
    return 0


_MINMAX_RANK = {"N": 0, "S": 1, "B": 2, "BOOL": 3, "L": 4, "M": 5, "SS": 6, "NS": 6, "BS": 6}
_ORDER_RANK = {"N": 0, "S": 1, "B": 2, "BOOL": 3, "NULL": 4, "L": 5, "M": 6}


def minmax_key(v: Any) -> tuple:
    t = type_code(v)
    return (_MINMAX_RANK[t], t, _within(v, t))


def order_key(v: Any) -> tuple:
    """ORDER BY: missing last (ascending)."""
    t = type_code(v)
    if t is None:
        return (99,)
    return (_ORDER_RANK.get(t, 7), t, _within(v, t))


def compare(op: str, a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return op == "<>"
    if op == "=":
        return canon(a) == canon(b)
    if op == "<>":
        return canon(a) != canon(b)
    ta, tb = type_code(a), type_code(b)
    if ta != tb or ta not in ("N", "S", "B"):
        return False
    x, y = _within(a, ta), _within(b, tb)
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


# --- aggregates --------------------------------------------------------------------------------


def aggregate(agg: Agg, items: list[dict]) -> Any:
    if agg.path is None:
        return Decimal(len(items))
    present = [
        v for v in (resolve(i, agg.path) for i in items) if v is not MISSING and v is not None
    ]
    if agg.func == "COUNT":
        if agg.distinct:
            return Decimal(len({canon(v) for v in present}))
        return Decimal(len(present))
    if agg.func in ("SUM", "AVG"):
        numbers = [v for v in present if type_code(v) == "N"]
        if agg.distinct:
            numbers = list({canon(v)[1]: v for v in numbers}.values())
        if not numbers:
            return None
        total = Decimal(0)
        for v in numbers:
            total = EXACT.add(total, v)
        if agg.func == "SUM":
            return total
        return AVG38.divide(total, Decimal(len(numbers)))
    if not present:
        return None
    pick = min if agg.func == "MIN" else max
    return pick(present, key=minmax_key)


# --- the whole statement -----------------------------------------------------------------------


def _where_ok(conds: list[Cond], item: dict) -> bool:
    return all(compare(c.op, resolve(item, c.expr.path), c.value) for c in conds)


def groups_of(query: Query, items: list[dict]) -> list[tuple[dict, list[dict]]]:
    """(group-by path -> value, member items); no GROUP BY gives one group, even over nothing."""
    chosen = [i for i in items if _where_ok(query.where, i)]
    out: dict[tuple, tuple[dict, list[dict]]] = {}
    for item in chosen:
        kv = {p: resolve(item, p) for p in query.group_by}
        key = tuple(canon(v) for v in kv.values())
        out.setdefault(key, (kv, []))[1].append(item)
    if not query.group_by and not out:
        out[()] = ({}, [])
    return list(out.values())


def _value(expr: Agg | Col, kv: dict, members: list[dict]) -> Any:
    if isinstance(expr, Agg):
        return aggregate(expr, members)
    return kv.get(expr.path, MISSING)


def evaluate(query: Query, items: list[dict]) -> list[dict]:
    """Every result row, in ORDER BY order when there is one, DISTINCT applied, LIMIT *not*
    applied (the caller compares a limited answer against this full list)."""
    selected = []
    for kv, members in groups_of(query, items):
        if not all(compare(c.op, _value(c.expr, kv, members), c.value) for c in query.having):
            continue
        row = {}
        for it in query.items:
            v = _value(it.expr, kv, members)
            if v is not MISSING:
                row[it.name] = v
        sort_key = tuple(
            _Desc(order_key(_value(e, kv, members))) if desc else order_key(_value(e, kv, members))
            for e, desc in query.order_by
        )
        selected.append((sort_key, row))
    if query.order_by:
        selected.sort(key=lambda p: p[0])
    rows = [r for _k, r in selected]
    if query.distinct:
        seen, unique = set(), []
        for r in rows:
            k = row_canon(r)
            if k not in seen:
                seen.add(k)
                unique.append(r)
        rows = unique
    return rows


class _Desc:
    __slots__ = ("key",)

    def __init__(self, key: Any):
        self.key = key

    def __lt__(self, other: _Desc) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and other.key == self.key


def row_canon(row: dict) -> tuple:
    return tuple(sorted((k, canon(v)) for k, v in row.items()))


def row_order(query: Query, row: dict) -> tuple:
    """The ORDER BY key of an output row, for ORDER BY terms that are select-list columns."""
    names = {it.expr: it.name for it in query.items}
    return tuple(
        _Desc(order_key(row.get(names[e], MISSING)))
        if desc
        else order_key(row.get(names[e], MISSING))
        for e, desc in query.order_by
    )
