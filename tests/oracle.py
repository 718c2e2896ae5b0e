"""A brute-force reference evaluator for non-aggregate SELECTs, for the differential tests.

Written from the DynamoDB rules in ``design.md``, independently of ``dynosql.evaluate`` and
``dynosql.plan`` (it only borrows the value types of ``dynosql.values`` and the parsed
statement of ``dynosql.sql``). It reads every item of a table and answers a statement the slow,
obvious way: filter each item, project, DISTINCT, sort, limit.

The rules, as DynamoDB applies them:

- A comparison with a missing attribute (or a ``size()`` that has no value) is false, except
  ``<>``, which is true.
- ``=`` / ``<>``: same type and same value; sets compare as sets, lists and maps deeply;
  values of different types are never equal.
- ``< <= > >=`` and BETWEEN: only between two values of the same type among N, S and B
  (numbers exactly, strings by UTF-8 bytes, binary by unsigned bytes); anything else is false.
- ``begins_with``: S with an S prefix, B with a B prefix. ``contains``: substring of an S,
  sub-bytes of a B, membership in a set of the operand's type, or equality with an element
  of a list (operands of type S, N or B).
- ``IN``: equal to any of the values. ``p IS NULL``: stored with the NULL type.
- ``attribute_exists`` / ``attribute_not_exists`` / ``attribute_type(p, 'T')``.
- ``size()``: characters of an S, bytes of a B, elements of a set, list or map; no value
  otherwise. ``LIKE``: ``%`` any run, ``_`` one character, strings only.
- NOT, AND, OR are two-valued.

ORDER BY across values of different types follows dynosql's stated rule (DynamoDB never orders
mixed types itself): numbers, strings, binary, booleans (false < true), NULL, lists, maps,
sets SS, NS, BS; a missing value sorts after everything (last ascending, first descending).
"""

from __future__ import annotations

import decimal
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynosql.sql import ast
from dynosql.values import BinarySet, NumberSet, StringSet


class _Absent:
    """No value: a missing attribute, an index past a list's end, size() of a number."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
_EXACT = decimal.Context(prec=400, Emax=999999, Emin=-999999)


def type_code(value: Any) -> str | None:
    if value is ABSENT:
        return None
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, str):
        return "S"
    if isinstance(value, Decimal):
        return "N"
    if isinstance(value, bytes | bytearray):
        return "B"
    if isinstance(value, StringSet):
        return "SS"
    if isinstance(value, NumberSet):
        return "NS"
    if isinstance(value, BinarySet):
        return "BS"
    if isinstance(value, list):
        return "L"
    if isinstance(value, dict):
        return "M"
    raise TypeError(f"not a decoded DynamoDB value: {value!r}")


def resolve(item: Any, elements: Iterable[str | int]) -> Any:
    current = item
    for element in elements:
        if isinstance(element, int):
            if not isinstance(current, list) or not 0 <= element < len(current):
                return ABSENT
        elif not isinstance(current, dict) or element not in current:
            return ABSENT
        current = current[element]
    return current


# --- values ------------------------------------------------------------------------------------


def equal(a: Any, b: Any) -> bool:
    ta, tb = type_code(a), type_code(b)
    if ta is None or tb is None or ta != tb:
        return False
    if ta == "L":
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if ta == "M":
        return set(a) == set(b) and all(equal(a[k], b[k]) for k in a)
    if ta == "B":
        return bytes(a) == bytes(b)
    if ta in ("SS", "NS", "BS"):
        return set(a) == set(b)
    return a == b


def _ordered(value: Any) -> tuple[str, Any] | None:
    code = type_code(value)
    if code == "N":
        return code, value
    if code == "S":
        return code, value.encode("utf-8")
    if code == "B":
        return code, bytes(value)
    return None


def compare(op: str, left: Any, right: Any) -> bool:
    if left is ABSENT or right is ABSENT:
        return op == "<>"
    if op == "=":
        return equal(left, right)
    if op == "<>":
        return not equal(left, right)
    a, b = _ordered(left), _ordered(right)
    if a is None or b is None or a[0] != b[0]:
        return False
    x, y = a[1], b[1]
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def size(value: Any) -> Any:
    code = type_code(value)
    if code in ("S", "B", "L", "M", "SS", "NS", "BS"):
        return Decimal(len(value))  # characters of a str, bytes of a bytes, elements otherwise
    return ABSENT


def begins_with(value: Any, prefix: Any) -> bool:
    code = type_code(value)
    if code in ("S", "B") and type_code(prefix) == code:
        return value[: len(prefix)] == prefix
    return False


def contains(value: Any, operand: Any) -> bool:
    code, ocode = type_code(value), type_code(operand)
    if code in ("S", "B"):
        return ocode == code and operand in value
    if code in ("SS", "NS", "BS"):
        return ocode == code[0] and any(equal(x, operand) for x in value)
    if code == "L":
        return ocode in ("S", "N", "B") and any(equal(x, operand) for x in value)
    return False


def like(value: Any, pattern: str) -> bool:
    """SQL LIKE by dynamic programming over characters (no regular expressions)."""
    if type_code(value) != "S":
        return False
    # reachable[j]: pattern[:j] can match the text read so far
    reachable = [True] + [False] * len(pattern)
    for j, p in enumerate(pattern):
        reachable[j + 1] = reachable[j] and p == "%"
    for ch in value:
        nxt = [False] * (len(pattern) + 1)
        for j, p in enumerate(pattern):
            if p == "%":
                nxt[j + 1] = nxt[j] or reachable[j + 1] or reachable[j]
            elif p == "_" or p == ch:
                nxt[j + 1] = reachable[j]
        reachable = nxt
    return reachable[len(pattern)]


# --- conditions --------------------------------------------------------------------------------


def operand(node: Any, item: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Path):
        return resolve(item, node.elements)
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.Param):
        return params[node.name]
    if isinstance(node, ast.Size):
        return size(resolve(item, node.path.elements))
    raise TypeError(f"not an operand: {node!r}")


def matches(
    condition: Any, item: Mapping[str, Any], params: Mapping[str, Any] | None = None
) -> bool:
    params = params or {}
    c = condition
    if c is None:
        return True
    if isinstance(c, ast.And):
        return all(matches(x, item, params) for x in c.items)
    if isinstance(c, ast.Or):
        return any(matches(x, item, params) for x in c.items)
    if isinstance(c, ast.Not):
        return not matches(c.item, item, params)
    if isinstance(c, ast.Compare):
        return compare(c.op, operand(c.left, item, params), operand(c.right, item, params))
    if isinstance(c, ast.Between):
        v = operand(c.operand, item, params)
        low, high = operand(c.low, item, params), operand(c.high, item, params)
        return compare(">=", v, low) and compare("<=", v, high)
    if isinstance(c, ast.In):
        v = operand(c.operand, item, params)
        return any(equal(v, operand(x, item, params)) for x in c.values)
    if isinstance(c, ast.IsNull):
        return type_code(resolve(item, c.path.elements)) == "NULL"
    if isinstance(c, ast.Like):
        return like(resolve(item, c.path.elements), c.pattern)
    if isinstance(c, ast.Function):
        v = resolve(item, c.path.elements)
        if c.name == "attribute_exists":
            return v is not ABSENT
        if c.name == "attribute_not_exists":
            return v is ABSENT
        arg = operand(c.arg, item, params)
        if c.name == "attribute_type":
            return type_code(v) == arg
        if c.name == "begins_with":
            return begins_with(v, arg)
        if c.name == "contains":
            return contains(v, arg)
    raise TypeError(f"not a condition: {condition!r}")


# --- rows --------------------------------------------------------------------------------------


def project(select: ast.Select, item: Mapping[str, Any]) -> dict[str, Any]:
    """One row: the whole item for *, else each selected path by its column name (a path with
    no value leaves its column out of the row); a join's ``o.*`` every column of o's row."""
    if select.items is None:
        return dict(item)
    row = {}
    for selected in select.items:
        if isinstance(selected.expr, ast.AllColumns):
            source = item.get(selected.expr.alias, ABSENT)
            if type_code(source) == "M":
                omit = selected.expr.omit  # an entity's composed keys and constants
                row.update(
                    (selected.expr.prefix + k, v) for k, v in source.items() if k not in omit
                )
            continue
        v = resolve(item, selected.expr.elements)
        if v is not ABSENT:
            row[selected.name] = v
    return row


def canonical(value: Any) -> Any:
    """A hashable form that is equal exactly when two values are DynamoDB-equal."""
    code = type_code(value)
    if code == "L":
        return ("L", tuple(canonical(v) for v in value))
    if code == "M":
        return ("M", tuple(sorted((k, canonical(v)) for k, v in value.items())))
    if code in ("SS", "NS", "BS"):
        return (code, frozenset(canonical(v)[1] for v in value))
    if code == "N":
        # an exact context: the default 28 digits would merge distinct 38-digit numbers
        return ("N", value.normalize(_EXACT) if value else Decimal(0))
    if code == "B":
        return ("B", bytes(value))
    return (code, value)


def row_canonical(row: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, canonical(v)) for k, v in row.items()))


def multiset(rows: Iterable[Mapping[str, Any]]) -> Counter:
    return Counter(row_canonical(r) for r in rows)


# --- ORDER BY ----------------------------------------------------------------------------------

_RANK = {t: i for i, t in enumerate(("N", "S", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"))}


def value_order(value: Any) -> tuple:
    """An ascending sort key for one value (dynosql's order, DynamoDB's within a type)."""
    code = type_code(value)
    if code is None:
        return (len(_RANK),)
    rank = _RANK[code]
    if code == "N":
        return (rank, value)
    if code == "S":
        return (rank, value.encode("utf-8"))
    if code == "B":
        return (rank, bytes(value))
    if code == "BOOL":
        return (rank, 1 if value else 0)
    if code == "NULL":
        return (rank,)
    if code == "L":
        return (rank, tuple(value_order(v) for v in value))
    if code == "M":
        return (rank, tuple((k.encode("utf-8"), value_order(v)) for k, v in sorted(value.items())))
    return (rank, tuple(sorted(value_order(v) for v in value)))


@dataclass(frozen=True)
class Reverse:
    """Inverts the order of a key part (ORDER BY … DESC)."""

    key: Any

    def __lt__(self, other: Reverse) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reverse) and self.key == other.key


def order_key(select: ast.Select, values: Iterable[Any]) -> tuple:
    """The sort key of a row from the values of its ORDER BY expressions, in order."""
    parts = []
    for order, v in zip(select.order_by, values, strict=True):
        if order.nulls:  # NULLS FIRST / LAST: missing values and stored NULLs at that end
            absent = v is ABSENT or v is None
            parts.append(absent if order.nulls == "LAST" else not absent)
        k = value_order(v)
        parts.append(Reverse(k) if order.desc else k)
    return tuple(parts)


def item_order_key(select: ast.Select, item: Mapping[str, Any]) -> tuple:
    return order_key(select, (resolve(item, o.expr.elements) for o in select.order_by))


# --- the whole statement -----------------------------------------------------------------------


@dataclass
class Expected:
    """The oracle's answer before LIMIT: rows (sorted when there is an ORDER BY, ties in any
    order) with their sort keys, and the LIMIT to apply."""

    rows: list[dict[str, Any]]
    keys: list[tuple]
    limit: int | None

    @property
    def limited(self) -> list[dict[str, Any]]:
        return self.rows if self.limit is None else self.rows[: self.limit]


def evaluate(
    select: ast.Select,
    items: Iterable[Mapping[str, Any]],
    params: Mapping[str, Any] | None = None,
    required: Iterable[str] = (),
) -> Expected:
    """Answer a non-aggregate SELECT over every item of its table.

    ``required``: attributes an item must have to be read at all (the key attributes of an
    index named in FROM table.index: an index holds only items that have them).
    """
    if select.is_aggregate:
        raise ValueError("the oracle answers non-aggregate SELECTs only")
    required = tuple(required)
    chosen = [
        item
        for item in items
        if all(name in item for name in required) and matches(select.where, item, params)
    ]
    return _answer(select, chosen)


def _answer(select: ast.Select, chosen: list[Mapping[str, Any]]) -> Expected:
    """The chosen items (or joined rows) projected, made DISTINCT and sorted."""
    pairs = [(project(select, item), item_order_key(select, item)) for item in chosen]
    if select.distinct:
        seen: set = set()
        unique = []
        for row, key in pairs:
            c = row_canonical(row)
            if c not in seen:
                seen.add(c)
                unique.append((row, key))
        pairs = unique
    if select.order_by:
        pairs.sort(key=lambda p: p[1])
    return Expected([r for r, _ in pairs], [k for _, k in pairs], select.limit)


# --- joins -------------------------------------------------------------------------------------


@dataclass
class Joined:
    """One source of a join: its alias, every row it has (an entity's items decoded, a
    table's items), and how it joins the sources before it (its ON; LEFT keeps their rows)."""

    alias: str
    rows: list[Mapping[str, Any]]
    on: Any = None
    left: bool = False


def evaluate_join(
    select: ast.Select, sources: list[Joined], params: Mapping[str, Any] | None = None
) -> Expected:
    """Answer a non-aggregate join whose names are qualified (``o.orderId``) the slow, obvious
    way: each joined row is a map from alias to that source's row; every row of a source is
    tried against every joined row before it, kept where its ON holds, and a LEFT JOIN keeps
    a joined row that found none (without the source: its columns are absent); then the
    WHERE, the select list, DISTINCT and ORDER BY, as for one table."""
    if select.is_aggregate:
        raise ValueError("the oracle answers non-aggregate SELECTs only")
    joined: list[dict[str, Any]] = [{sources[0].alias: row} for row in sources[0].rows]
    for source in sources[1:]:
        out = []
        for before in joined:
            found = False
            for row in source.rows:
                candidate = {**before, source.alias: row}
                if matches(source.on, candidate, params):
                    out.append(candidate)
                    found = True
            if source.left and not found:
                out.append(before)
        joined = out
    return _answer(select, [row for row in joined if matches(select.where, row, params)])
