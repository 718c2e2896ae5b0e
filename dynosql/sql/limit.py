"""LIMIT's value: a whole number from 0 to DynamoDB's 32-bit Limit, a parameter, or a constant
expression of them with + - * / and parentheses (``LIMIT 1 + 2``; SQLAlchemy's
``limit(literal(1) + 2)`` sends ``LIMIT :param_1 + :param_2``). An expression of numbers is
folded when parsed; one with parameters when they are bound. Anything else (an attribute, a
function) is refused by the parser."""

from __future__ import annotations

import decimal
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.ast import MAX_LIMIT

OPERATORS = ("+", "-", "*", "/", "NEG")


def is_constant(expr: Any) -> bool:
    """Whether `expr` is a number, a parameter, or + - * / of them."""
    if isinstance(expr, ast.Literal | ast.Param):
        return True
    return (
        isinstance(expr, ast.Scalar)
        and expr.func in OPERATORS
        and all(is_constant(a) for a in expr.args)
    )


def has_params(expr: Any) -> bool:
    if isinstance(expr, ast.Param):
        return True
    return isinstance(expr, ast.Scalar) and any(has_params(a) for a in expr.args)


def value(expr: Any) -> int:
    """The whole number a LIMIT (parameters bound) comes to, or a SqlError at its start."""
    number = _fold(expr)
    if number == number.to_integral_value() and 0 <= number <= MAX_LIMIT:
        return int(number)
    raise _refused(values.format_number(number), _start(expr))


def _start(expr: Any) -> ast.Pos:
    """Where an expression's text begins: its first operand's (a Scalar's own position may
    be its operator's)."""
    if isinstance(expr, ast.Scalar) and expr.func != "NEG":
        return min((_start(a) for a in expr.args), key=lambda p: (p.line, p.col))
    return expr.pos


def _fold(expr: Any) -> Decimal:
    if isinstance(expr, ast.Literal):
        if not isinstance(expr.value, Decimal):
            raise _refused(repr(expr.value), expr.pos)
        return expr.value
    assert isinstance(expr, ast.Scalar)  # is_constant held
    args = [_fold(a) for a in expr.args]
    with decimal.localcontext() as exact:
        exact.prec = 38  # DynamoDB's digits; a LIMIT that needs more is out of range anyway
        if expr.func == "NEG":
            return -args[0]
        left, right = args
        if expr.func == "/":
            if not right:
                start = _start(expr)
                raise SqlError("LIMIT divides by zero", start.line, start.col)
            return left / right
        return (
            left + right if expr.func == "+" else left - right if expr.func == "-" else left * right
        )


def _refused(shown: str, pos: ast.Pos) -> SqlError:
    return SqlError(
        f"LIMIT takes a whole number from 0 to {MAX_LIMIT}, got {shown}", pos.line, pos.col
    )
