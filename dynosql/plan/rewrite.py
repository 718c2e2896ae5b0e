"""Expressions a key (or DynamoDB's filter) can still serve: the WHERE rewritten, exactly,
before the planner looks for keys. Pure, no I/O.

- ``SUBSTR(p, 1, n) = 's'`` with s of n code points is ``begins_with(p, 's')`` (for every
  item: a missing or non-string p gives NULL on the left and false on the right); with s
  shorter than n it is ``p = 's'``; ``SUBSTR(p, 1) = 's'`` is ``p = 's'``.
- ``DATE_TRUNC(unit, p) = v`` implies a range on p, added beside it: for a string v (a
  truncated ISO-8601 text) ``begins_with(p, v)``; for an epoch-second number v on the
  unit's boundary ``p BETWEEN v AND v + unit`` (inclusive: the DATE_TRUNC itself, checked
  client-side, excludes the top). On a sort key the range becomes the key condition; on
  another attribute DynamoDB filters by it; either way the expression is still checked.

Each rewrite is an equivalence (or adds what the condition implies), so it may be applied
anywhere in the WHERE, under OR and NOT too.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime
from decimal import Decimal
from typing import Any

from dynosql.evaluate import scalar
from dynosql.sql import ast
from dynosql.sql.keywords import ITEM_MEASURES


def key_friendly(where: ast.Condition | None) -> ast.Condition | None:
    """The WHERE with the rewrites above applied wherever they fit, after expressions of
    values only are computed (``ts > FROM_UNIXTIME(1777852800)``, ``ts > NOW()``: DynamoDB
    can then evaluate the comparison, and a key serve it)."""
    if where is None:
        return None
    folded = ast.rewrite(where, lambda node: None, _fold_operands)
    return ast.rewrite(folded, _rewrite_compare)


def _fold_operands(condition: Any) -> Any:
    """A condition with its operands that are expressions of values only replaced by their
    values."""
    if not isinstance(condition, ast.Compare | ast.Between | ast.In | ast.Function):
        return condition
    changes: dict[str, Any] = {}
    for name in ast.field_names(type(condition)):
        current = getattr(condition, name)
        if isinstance(current, tuple):
            folded = tuple(_folded(x) for x in current)
            if any(a is not b for a, b in zip(folded, current, strict=True)):
                changes[name] = folded
        elif isinstance(current, ast.Scalar):
            folded_one = _folded(current)
            if folded_one is not current:
                changes[name] = folded_one
    return dataclasses.replace(condition, **changes) if changes else condition


def _folded(node: Any) -> Any:
    if not isinstance(node, ast.Scalar) or node.func in ITEM_MEASURES:
        return node  # ITEM_SIZE() and its kin: of the item, never of their arguments alone
    args = [_folded(a) for a in node.args]
    if all(isinstance(a, ast.Literal) for a in args):
        return ast.Literal(scalar.apply(node.func, [a.value for a in args]), node.pos)
    return node


def _rewrite_compare(node: Any) -> Any:
    if not isinstance(node, ast.Compare) or node.op != "=":
        return None
    left, right = node.left, node.right
    if isinstance(left, ast.Literal) and isinstance(right, ast.Scalar):
        left, right = right, left
    if not (isinstance(left, ast.Scalar) and isinstance(right, ast.Literal)):
        return None
    if left.func == "SUBSTR":
        return _substr(left, right, node.pos)
    if left.func == "DATE_TRUNC":
        implied = _date_trunc(left, right, node.pos)
        return None if implied is None else ast.And((implied, node))
    return None


def _substr(call: ast.Scalar, value: ast.Literal, pos: ast.Pos) -> ast.Condition | None:
    path, start = call.args[0], call.args[1]
    if not (isinstance(path, ast.Path) and _is_whole(start, 1) and isinstance(value.value, str)):
        return None
    text = value.value
    if len(call.args) == 2:
        return ast.Compare("=", path, value, pos)
    length = call.args[2]
    if not isinstance(length, ast.Literal) or not _is_whole(length):
        return None
    n = int(length.value)
    if text and len(text) == n:
        return ast.Function("begins_with", path, value, pos)
    if len(text) < n:
        return ast.Compare("=", path, value, pos)
    return None  # longer than n: never equal (checked client-side, always false)


def _date_trunc(call: ast.Scalar, value: ast.Literal, pos: ast.Pos) -> ast.Condition | None:
    unit, path = call.args
    if not (isinstance(unit, ast.Literal) and isinstance(path, ast.Path)):
        return None
    v = value.value
    if isinstance(v, str):
        if scalar.apply("DATE_TRUNC", [unit.value, v]) != v:
            return None  # not a truncated value of this unit: nothing to narrow to
        return ast.Function("begins_with", path, value, pos)
    if isinstance(v, Decimal) and scalar.apply("DATE_TRUNC", [unit.value, v]) == v:
        top = _next_boundary(unit.value, v)
        if top is None:
            return None
        return ast.Between(path, value, ast.Literal(top, value.pos), pos)
    return None


def _next_boundary(unit: str, start: Decimal) -> Decimal | None:
    seconds = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}.get(unit)
    if seconds is not None:
        return start + seconds
    try:
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=int(start))
        if unit == "year":
            following = moment.replace(year=moment.year + 1)
        else:
            year, month = divmod(moment.month, 12)
            following = moment.replace(year=moment.year + year, month=month + 1)
    except (OverflowError, ValueError):
        return None
    return Decimal(calendar.timegm(following.timetuple()))


def _is_whole(node: Any, equal: int | None = None) -> bool:
    if not isinstance(node, ast.Literal) or not isinstance(node.value, Decimal):
        return False
    v = node.value
    if v != v.to_integral_value() or v < 0:
        return False
    return equal is None or v == equal
