"""Conditions and paths → DynamoDB expression strings.

Every attribute name goes through ExpressionAttributeNames and every value through
ExpressionAttributeValues, always: reserved words, hyphens and dots in names need no special
case, and no value ever becomes expression text.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.sql import ast

_SAFE = re.compile(r"^[A-Za-z0-9_]{1,60}$")

MAX_EXPRESSION_BYTES = 4096
IN_VALUES_PER_COMPARISON = 100  # DynamoDB's limit for one IN


class Placeholders:
    """The names and values of one request; only what an expression really uses is added."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # "#PK" -> "PK"
        self.values: dict[str, dict[str, Any]] = {}  # ":v0" -> {"S": "x"}
        self._by_name: dict[str, str] = {}

    @classmethod
    def of(cls, request: dict[str, Any]) -> Placeholders:
        """Placeholders seeded with a request's own names and values, so that what is added
        for another expression on the same request never collides with them."""
        ph = cls()
        ph.names = dict(request.get("ExpressionAttributeNames", {}))
        ph.values = dict(request.get("ExpressionAttributeValues", {}))
        ph._by_name = {attribute: name for name, attribute in ph.names.items()}
        return ph

    def name(self, attribute: str) -> str:
        if attribute not in self._by_name:
            base = f"#{attribute}" if _SAFE.match(attribute) else f"#n{len(self._by_name)}"
            counter = len(self.names)
            while base in self.names:  # a readable name can collide with a generated one
                base = f"#n{counter}_"
                counter += 1
            self._by_name[attribute] = base
            self.names[base] = attribute
        return self._by_name[attribute]

    def value(self, value: Any) -> str:
        key = f":v{len(self.values)}"
        self.values[key] = values.encode(value)
        return key

    def path(self, path: ast.Path) -> str:
        out = ""
        for element in path.elements:
            if isinstance(element, int):
                out += f"[{element}]"
            else:
                out += ("." if out else "") + self.name(element)
        return out

    def into(self, request: dict[str, Any]) -> dict[str, Any]:
        """Add ExpressionAttributeNames/Values to a request when any were used."""
        if self.names:
            request["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            request["ExpressionAttributeValues"] = dict(self.values)
        return request


ORDERED_TYPES = ("S", "N", "B")


def expressible(condition: ast.Condition, typed: bool = True) -> bool:
    """Whether DynamoDB can evaluate the condition with our semantics exactly.

    What it cannot (LIKE patterns, ordering a BOOL, begins_with on a number, ...) is left to the
    client-side evaluator, which gives the answer DynamoDB's rules would give.
    """
    if isinstance(condition, ast.And | ast.Or):
        return all(expressible(c, typed) for c in condition.items)
    if isinstance(condition, ast.Not):
        return expressible(condition.item, typed)
    if not typed and (_orders_or_sizes(condition) or _loosely_equal(condition)):
        return False
    if repeats_an_operand(condition):
        return False
    if isinstance(condition, ast.Like):
        return False
    if isinstance(condition, ast.IsNull):
        return True
    if isinstance(condition, ast.Compare):
        if condition.op in ("=", "<>"):
            return all(_value_ok(o, any_type=True) for o in (condition.left, condition.right))
        return all(_value_ok(o) for o in (condition.left, condition.right))
    if isinstance(condition, ast.Between):
        if not all(_value_ok(o) for o in (condition.operand, condition.low, condition.high)):
            return False
        low, high = condition.low, condition.high
        if isinstance(low, ast.Literal) and isinstance(high, ast.Literal):
            # DynamoDB rejects bounds of different types or in the wrong order; the client
            # evaluates them (always false)
            a, b = values.scalar_key(low.value), values.scalar_key(high.value)
            return a is not None and b is not None and a[0] == b[0] and a <= b
        return True
    if isinstance(condition, ast.In):
        return _value_ok(condition.operand, any_type=True) and all(
            _value_ok(v, any_type=True) for v in condition.values
        )
    if isinstance(condition, ast.Function):
        if condition.name == "begins_with":
            return _literal_type(condition.arg) in ("S", "B")
        if condition.name == "contains":
            return _literal_type(condition.arg) in ("S", "N", "B")
        return True
    return False


_EXACT_EQUALITY_TYPES = ("S", "B")


def repeats_an_operand(condition: ast.Condition) -> bool:
    """A comparison, BETWEEN, IN or function naming one path (or one ``size(path)``) twice.
    Those whose first operand is the repeated path (``b > b``, ``v IN (v, 1)``) DynamoDB
    refuses, and so does the parser (sql/repeated_operand.py); the rest (``size(v) =
    size(v)``, ``1 BETWEEN v AND v``) DynamoDB accepts, but the backends do not all answer
    alike (dynalite gives a number a size): they are never sent, and the client decides them,
    with the same answer on every backend."""
    if isinstance(condition, ast.Compare):
        operands: list[Any] = [condition.left, condition.right]
    elif isinstance(condition, ast.Between):
        operands = [condition.operand, condition.low, condition.high]
    elif isinstance(condition, ast.In):
        operands = [condition.operand, *condition.values]
    elif isinstance(condition, ast.Function) and condition.arg is not None:
        operands = [condition.path, condition.arg]
    else:
        return False
    paths = [
        (type(o), o.elements if isinstance(o, ast.Path) else o.path.elements)
        for o in operands
        if isinstance(o, ast.Path | ast.Size)
    ]
    return len(paths) != len(set(paths))


def _loosely_equal(condition: ast.Condition) -> bool:
    """An equality a backend comparing Python values (moto) may answer wrongly: ``ok = 1`` on a
    boolean (True == 1), ``p = NULL`` on a missing attribute (None == None), two paths. Only
    string and binary literals compare exactly there; the rest is checked client-side."""
    if isinstance(condition, ast.Compare) and condition.op in ("=", "<>"):
        operands = [condition.left, condition.right]
    elif isinstance(condition, ast.In):
        operands = [condition.operand, *condition.values]
    elif isinstance(condition, ast.Function) and condition.name == "contains":
        operands = [condition.path] + ([condition.arg] if condition.arg is not None else [])
    else:
        return False
    literals = [o for o in operands if not isinstance(o, ast.Path)]
    if len(literals) != len(operands) - 1:
        return True
    return any(_literal_type(o) not in _EXACT_EQUALITY_TYPES for o in literals)


def _orders_or_sizes(condition: ast.Condition) -> bool:
    if isinstance(condition, ast.Compare):
        if any(isinstance(o, ast.Size) for o in (condition.left, condition.right)):
            return True
        return condition.op not in ("=", "<>")
    if isinstance(condition, ast.Between):
        return True
    if isinstance(condition, ast.In):
        return any(isinstance(o, ast.Size) for o in (condition.operand, *condition.values))
    return False


def _literal_type(operand: Any) -> str | None:
    if isinstance(operand, ast.Literal):
        return values.type_of(operand.value)
    return None


def _value_ok(operand: Any, any_type: bool = False) -> bool:
    if isinstance(operand, ast.Literal):
        code = values.type_of(operand.value)
        if code in ("SS", "NS", "BS") and not operand.value:
            return False  # DynamoDB has no empty sets
        return any_type or code in ORDERED_TYPES
    if isinstance(operand, ast.Size):
        return True
    return isinstance(operand, ast.Path)


def condition_text(condition: ast.Condition, ph: Placeholders, top: bool = True) -> str:
    """The expression text of a condition (which must be ``expressible``)."""
    if isinstance(condition, ast.And):
        text = " AND ".join(condition_text(c, ph, False) for c in condition.items)
        return text if top else f"({text})"
    if isinstance(condition, ast.Or):
        text = " OR ".join(condition_text(c, ph, False) for c in condition.items)
        return text if top else f"({text})"
    if isinstance(condition, ast.Not):
        return f"NOT ({condition_text(condition.item, ph)})"
    if isinstance(condition, ast.Compare):
        return (
            f"{operand_text(condition.left, ph)} {condition.op} {operand_text(condition.right, ph)}"
        )
    if isinstance(condition, ast.Between):
        return (
            f"{operand_text(condition.operand, ph)} BETWEEN {operand_text(condition.low, ph)}"
            f" AND {operand_text(condition.high, ph)}"
        )
    if isinstance(condition, ast.In):
        operand = operand_text(condition.operand, ph)
        chunks = [
            condition.values[i : i + IN_VALUES_PER_COMPARISON]
            for i in range(0, len(condition.values), IN_VALUES_PER_COMPARISON)
        ]
        parts = [f"{operand} IN ({', '.join(operand_text(v, ph) for v in c)})" for c in chunks]
        if len(parts) == 1:
            return parts[0]
        return "(" + " OR ".join(parts) + ")"  # DynamoDB's IN takes at most 100 values
    if isinstance(condition, ast.IsNull):
        return f"attribute_type({ph.path(condition.path)}, {ph.value('NULL')})"
    if isinstance(condition, ast.Function):
        if condition.arg is None:
            return f"{condition.name}({ph.path(condition.path)})"
        return f"{condition.name}({ph.path(condition.path)}, {operand_text(condition.arg, ph)})"
    raise TypeError(f"not expressible: {condition!r}")


def operand_text(operand: Any, ph: Placeholders) -> str:
    if isinstance(operand, ast.Path):
        return ph.path(operand)
    if isinstance(operand, ast.Literal):
        return ph.value(operand.value)
    if isinstance(operand, ast.Size):
        return f"size({ph.path(operand.path)})"
    raise TypeError(f"unbound operand: {operand!r}")


def projection_text(paths: list[ast.Path], ph: Placeholders) -> str:
    return ", ".join(ph.path(p) for p in paths)


def paths_in(node: Any) -> list[ast.Path]:
    """Every attribute path a condition or operand reads."""
    found: list[ast.Path] = []
    if isinstance(node, ast.Path):
        found.append(node)
    elif isinstance(node, ast.Size):
        found.append(node.path)
    elif isinstance(node, ast.And | ast.Or):
        for c in node.items:
            found.extend(paths_in(c))
    elif isinstance(node, ast.Not):
        found.extend(paths_in(node.item))
    elif isinstance(node, ast.Compare):
        found.extend(paths_in(node.left) + paths_in(node.right))
    elif isinstance(node, ast.Between):
        for o in (node.operand, node.low, node.high):
            found.extend(paths_in(o))
    elif isinstance(node, ast.In):
        found.extend(paths_in(node.operand))
        for v in node.values:
            found.extend(paths_in(v))
    elif isinstance(node, ast.Function):
        found.append(node.path)
        found.extend(paths_in(node.arg))
    elif isinstance(node, ast.Like | ast.IsNull):
        found.append(node.path)
    elif isinstance(node, ast.Aggregate) and node.path is not None:
        found.append(node.path)
    elif isinstance(node, ast.Aggregate) and node.arg is not None:
        found.extend(paths_in(node.arg))
    elif isinstance(node, ast.Scalar):
        for a in node.args:
            found.extend(paths_in(a))
    elif isinstance(node, ast.Case):
        for condition, then in node.whens:
            found.extend(paths_in(condition) + paths_in(then))
        found.extend(paths_in(node.default))
    return found


def equal_text(path: str, value: Any, ph: Placeholders) -> str:
    """``path`` holds exactly `value`. A list or map is compared element by element (its type,
    its size, each element): some DynamoDB implementations do not compare whole documents."""
    code = values.type_of(value)
    if code not in ("L", "M"):
        return f"{path} = {ph.value(value)}"
    parts = [
        f"attribute_type({path}, {ph.value(code)})",
        f"size({path}) = {ph.value(Decimal(len(value)))}",
    ]
    if code == "L":
        parts.extend(equal_text(f"{path}[{i}]", v, ph) for i, v in enumerate(value))
    else:
        parts.extend(equal_text(f"{path}.{ph.name(k)}", v, ph) for k, v in value.items())
    return " AND ".join(parts)
