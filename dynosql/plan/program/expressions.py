"""Conditions and expressions as Python expressions over a typed item (or a group), with
DynamoDB's meaning: the text a generated program evaluates where DynamoDB does not.

An `Env` says what a name stands for: on an item, a path is ``at(item, path)``; on a group
(HAVING, ORDER BY and the select list of an aggregate statement), a GROUP BY expression is
``group["by"][i]``, an aggregate ``group["COUNT(*)"]``, and any other path is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.plan.program.library import FUNCTIONS
from dynosql.sql import ast
from dynosql.sql.keywords import ITEM_MEASURES


class Unwritable(Exception):
    """Something the program cannot state; the message says what and why."""


@dataclass
class Env:
    """What names mean, and the helpers the written text calls (collected as it is written)."""

    row: str = "item"  # the variable holding the item or the group
    group_by: tuple[Any, ...] | None = None  # None: on items; else the GROUP BY expressions
    helpers: list[str] = field(default_factory=list)

    def use(self, *names: str) -> None:
        for name in names:
            if name not in self.helpers:
                self.helpers.append(name)

    def on_groups(self, group_by: tuple[Any, ...]) -> Env:
        return Env("group", group_by, self.helpers)


def literal(v: Any, env: Env) -> str:
    """A decoded DynamoDB value as Python source for the typed value boto3 would give."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return repr(v)
    if isinstance(v, bytes | bytearray):
        env.use("kind")
        return f"Binary({bytes(v)!r})"
    if isinstance(v, Decimal | int) and values.type_of(v) == "N":
        env.use("kind")
        return f"Decimal({values.format_number(Decimal(v))!r})"
    if isinstance(v, list):
        return "[" + ", ".join(literal(x, env) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {literal(x, env)}" for k, x in v.items()) + "}"
    if values.type_of(v) in ("SS", "NS", "BS"):
        return "{" + ", ".join(literal(x, env) for x in v) + "}"
    raise Unwritable(f"the literal {v!r}")


def value(o: Any, env: Env) -> str:
    """An operand's value: a path, a literal, size(), a function, CASE, an aggregate."""
    if env.group_by is not None:
        key = ast.key_of(o)
        for i, g in enumerate(env.group_by):
            if ast.key_of(g) == key:
                return f'{env.row}["by"][{i}]'
        if isinstance(o, ast.Aggregate):
            return f"{env.row}[{o.text!r}]"
    if isinstance(o, ast.Path):
        env.use("at")
        if env.group_by is not None:
            return "MISSING"  # a path not grouped by has no value on a group
        return f"at({env.row}, {tuple(o.elements)!r})"
    if isinstance(o, ast.Literal):
        return literal(o.value, env)
    if isinstance(o, ast.Size):
        env.use("size")
        return f"size({value(o.path, env)})"
    if isinstance(o, ast.Scalar) and o.func in ITEM_MEASURES:
        if env.group_by is not None:  # never on a group: the parser asks for an item
            raise Unwritable(f"{o.func}() over a group")
        env.use("item_measure")
        mode = "".join(", " + literal(a.value, env) for a in o.args)
        return f"item_measure({o.func!r}, {env.row}{mode})"
    if isinstance(o, ast.Scalar):
        if o.func not in FUNCTIONS:
            raise Unwritable(f"{o.func}(): its value is not the same when the program runs")
        helper, name = FUNCTIONS[o.func]
        env.use("call", helper)
        args = "".join(", " + value(a, env) for a in o.args)
        return f"call({name}{args})"
    if isinstance(o, ast.Case):
        env.use("call")
        text = f"null_if_missing({value(o.default, env)})"
        for c, v in reversed(o.whens):
            text = f"(null_if_missing({value(v, env)}) if {condition(c, env)} else {text})"
        return text
    raise Unwritable(f"{type(o).__name__.lower()} operands")


def condition(c: Any, env: Env) -> str:
    """A condition as a Python boolean expression, with DynamoDB's meaning."""
    if isinstance(c, ast.And):
        return "(" + " and ".join(condition(x, env) for x in c.items) + ")"
    if isinstance(c, ast.Or):
        return "(" + " or ".join(condition(x, env) for x in c.items) + ")"
    if isinstance(c, ast.Not):
        return f"(not {condition(c.item, env)})"
    if isinstance(c, ast.Compare):
        env.use("compare")
        return f"compare({value(c.left, env)}, {c.op!r}, {value(c.right, env)})"
    if isinstance(c, ast.Between):
        env.use("compare")
        a = value(c.operand, env)
        low, high = value(c.low, env), value(c.high, env)
        return f"(compare({a}, '>=', {low}) and compare({a}, '<=', {high}))"
    if isinstance(c, ast.In):
        env.use("equal")
        a = value(c.operand, env)
        return "(" + " or ".join(f"equal({a}, {value(v, env)})" for v in c.values) + ")"
    if isinstance(c, ast.IsNull):
        return f"({value(c.path, env)} is None)"
    if isinstance(c, ast.Like):
        env.use("like")
        return f"like({value(c.path, env)}, {c.pattern!r})"
    if isinstance(c, ast.Function):
        v = value(c.path, env)
        if c.name in ("attribute_exists", "attribute_not_exists"):
            env.use("at")
            return f"({v} {'is not' if c.name == 'attribute_exists' else 'is'} MISSING)"
        if c.name in ("begins_with", "contains"):
            env.use(c.name)
            return f"{c.name}({v}, {value(c.arg, env)})"
        if c.name == "attribute_type":
            env.use("kind")
            return f"({v} is not MISSING and kind({v}) == {value(c.arg, env)})"
    raise Unwritable(f"the condition {type(c).__name__}")
