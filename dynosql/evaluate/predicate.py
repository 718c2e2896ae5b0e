"""Conditions evaluated on decoded items, exactly as DynamoDB evaluates them.

- A comparison with a missing attribute is false, except ``<>``, which is true.
- ``=``/``<>`` compare type and value (sets as sets, lists and maps deeply); values of
  different types are never equal.
- ``<``, ``<=``, ``>``, ``>=`` and BETWEEN only order two values of the same type N, S or B
  (strings by UTF-8 bytes); anything else is false.
- ``size()`` of a string counts its characters, of binary its bytes, of a set, list or map its
  elements; of a number, boolean or NULL it has no value (so comparisons with it are false).
- ``p IS NULL`` holds when p is stored with the NULL type; a missing attribute is not NULL.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.evaluate import scalar
from dynosql.sql import ast, like
from dynosql.sql.keywords import ITEM_MEASURES
from dynosql.values import MISSING


def resolve(item: Any, path: ast.Path | tuple[Any, ...]) -> Any:
    """The value at a document path, or MISSING."""
    current = item
    for element in path.elements if isinstance(path, ast.Path) else path:
        if isinstance(element, int):
            if not isinstance(current, list) or element >= len(current):
                return MISSING
            current = current[element]
        else:
            if not isinstance(current, dict) or element not in current:
                return MISSING
            current = current[element]
    return current


def size_of(value: Any) -> Any:
    code = values.type_of(value)
    if code == "S":
        return Decimal(len(value))
    if code == "B":
        return Decimal(len(value))
    if code in ("L", "M", "SS", "NS", "BS"):
        return Decimal(len(value))
    return MISSING


Resolver = Callable[[Any, Any], Any]


def operand_value(operand: Any, item: Any) -> Any:
    if isinstance(operand, ast.Path):
        return resolve(item, operand)
    if isinstance(operand, ast.Literal):
        return operand.value
    if isinstance(operand, ast.Size):
        return size_of(resolve(item, operand.path))
    if isinstance(operand, ast.Scalar | ast.Case):
        return expression_value(operand, item, operand_value)
    raise TypeError(f"unbound operand {operand!r}")


def expression_value(expr: ast.Scalar | ast.Case, item: Any, value_of: Resolver) -> Any:
    """A scalar expression's value (evaluate/scalar.py), its operands resolved by `value_of`
    (an item's attributes, or a group's keys and aggregates): never MISSING, NULL instead."""
    if isinstance(expr, ast.Case):
        for condition, then in expr.whens:
            if matches(condition, item, value_of):
                return _null_for_missing(value_of(then, item))
        return _null_for_missing(value_of(expr.default, item))
    if expr.func in ITEM_MEASURES:  # the item itself, whole (the planner read it so)
        return scalar.item_measure(expr.func, item, *(a.value for a in expr.args))
    return scalar.apply(expr.func, [value_of(a, item) for a in expr.args])


def _null_for_missing(value: Any) -> Any:
    return None if value is MISSING else value


def compare(op: str, left: Any, right: Any) -> bool:
    if left is MISSING or right is MISSING:
        return op == "<>"
    if op == "=":
        return values.values_equal(left, right)
    if op == "<>":
        return not values.values_equal(left, right)
    a, b = values.scalar_key(left), values.scalar_key(right)
    if a is None or b is None or a[0] != b[0]:
        return False
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    raise ValueError(op)


def between(value: Any, low: Any, high: Any) -> bool:
    return compare(">=", value, low) and compare("<=", value, high)


def begins_with(value: Any, prefix: Any) -> bool:
    code = values.type_of(value)
    if code == "S" and values.type_of(prefix) == "S":
        return value.startswith(prefix)
    if code == "B" and values.type_of(prefix) == "B":
        return bytes(value).startswith(bytes(prefix))
    return False


def contains(value: Any, operand: Any) -> bool:
    code, ocode = values.type_of(value), values.type_of(operand)
    if code == "S":
        return ocode == "S" and operand in value
    if code == "B":
        return ocode == "B" and bytes(operand) in bytes(value)
    if code in ("SS", "NS", "BS"):
        return ocode == code[0] and operand in value
    if code == "L":
        return ocode in ("S", "N", "B") and any(values.values_equal(v, operand) for v in value)
    return False


def matches(condition: ast.Condition | None, item: Any, value_of: Resolver = operand_value) -> bool:
    """Whether an item satisfies a condition. ``value_of`` resolves operands (HAVING uses
    its own, for aggregates and aliases)."""
    if condition is None:
        return True
    c = condition
    if isinstance(c, ast.And):
        return all(matches(x, item, value_of) for x in c.items)
    if isinstance(c, ast.Or):
        return any(matches(x, item, value_of) for x in c.items)
    if isinstance(c, ast.Not):
        return not matches(c.item, item, value_of)
    if isinstance(c, ast.Compare):
        return compare(c.op, value_of(c.left, item), value_of(c.right, item))
    if isinstance(c, ast.Between):
        return between(value_of(c.operand, item), value_of(c.low, item), value_of(c.high, item))
    if isinstance(c, ast.In):
        v = value_of(c.operand, item)
        return v is not MISSING and any(values.values_equal(v, value_of(x, item)) for x in c.values)
    if isinstance(c, ast.IsNull):
        return value_of(c.path, item) is None
    if isinstance(c, ast.Like):
        v = value_of(c.path, item)
        return isinstance(v, str) and like.regex(c.pattern).fullmatch(v) is not None
    if isinstance(c, ast.Function):
        v = value_of(c.path, item)
        if c.name == "attribute_exists":
            return v is not MISSING
        if c.name == "attribute_not_exists":
            return v is MISSING
        arg = value_of(c.arg, item)
        if c.name == "begins_with":
            return begins_with(v, arg)
        if c.name == "contains":
            return contains(v, arg)
        if c.name == "attribute_type":
            return v is not MISSING and values.type_of(v) == arg
    raise TypeError(f"cannot evaluate {condition!r}")
