"""Parameters: ``-v name=value`` (and ``name:=json``) read into values, and every ``:name`` of
a statement replaced by its value before planning. A ``?`` (PartiQL's positional parameter) is
the parameter named by its place: the n-th ``?`` of a statement is ``n`` (``-v 1=value``;
`positional` names a sequence of values so)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from dynosql import values
from dynosql.errors import SqlError
from dynosql.sql import ast, distinct, like, limit

# A value reads as a number only in canonical form: "0042" stays a string (an ID, a zip code).
_NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")


def parse_param(text: str) -> tuple[str, Any]:
    """``name=value`` (a number if it reads as one, else a string) or ``name:=json``."""
    if ":=" in text and ("=" not in text.split(":=", 1)[0]):
        name, raw = text.split(":=", 1)
        try:
            value = json.loads(
                raw, parse_float=values.number, parse_int=values.number, parse_constant=_no_constant
            )
        except json.JSONDecodeError:
            raise ValueError(f"-v {name}:= takes a JSON value, got {raw!r}") from None
        except ValueError as err:  # NaN, Infinity, more than 38 digits
            raise ValueError(f"-v {name}:= {err}") from None
        return name.strip(), _from_json(value)
    if "=" not in text:
        raise ValueError(f"-v takes name=value, got {text!r}")
    name, raw = text.split("=", 1)
    if _NUMBER.match(raw.strip()):
        return name.strip(), values.number(raw.strip())
    return name.strip(), raw


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a number DynamoDB can store")


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    return value


def bind(statement: Any, params: dict[str, Any]) -> Any:
    """Replace every :name with its value; an unbound one is an error with its position."""

    def value(node: Any) -> ast.Literal | None:
        if isinstance(node, ast.Param | ast.Collection):
            return ast.Literal(_resolve(node, params), node.pos)
        return None

    now = values.now_text()

    def finish(node: Any) -> Any:
        if isinstance(node, ast.LikeParam):
            return like.bound(node)
        if isinstance(node, ast.IsDistinct):
            return distinct.lowered(node)
        if isinstance(node, ast.Select | ast.SelectValues) and isinstance(
            node.limit, ast.Literal | ast.Scalar
        ):
            return dataclasses.replace(node, limit=limit.value(node.limit))
        if isinstance(node, ast.Scalar) and node.func == "NOW" and not node.args:
            # one time for the whole statement, read when it is bound
            return dataclasses.replace(node, args=(ast.Literal(now, node.pos),))
        return node

    return ast.rewrite(statement, value, finish)


def _resolve(node: ast.Literal | ast.Param | ast.Collection, params: dict[str, Any]) -> Any:
    """The value of a literal, a parameter or a collection holding parameters (a list, a map,
    or a set whose elements must then all be strings, all numbers or all binary)."""
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.Param):
        if node.name not in params:
            shown = f"the {_ordinal(int(node.name))} ?" if node.positional else f":{node.name}"
            raise SqlError(
                f"no value for {shown} (give one with -v {node.name}=value)",
                node.pos.line,
                node.pos.col,
            )
        return params[node.name]
    elements = [_resolve(item, params) for item in node.items]
    if node.kind == "L":
        return elements
    if node.kind == "M":
        return dict(zip(node.keys, elements, strict=True))
    found = values.set_of(elements)
    if found is None:
        raise SqlError(values.SET_RULE, node.pos.line, node.pos.col)
    return found


def positional(values_: Sequence[Any]) -> dict[str, Any]:
    """Values for a statement's ``?`` parameters, in order: the n-th binds the n-th ``?``."""
    return {str(n): value for n, value in enumerate(values_, 1)}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
