"""``x IS [NOT] DISTINCT FROM y``: SQL's comparison in which no value is unknown, written with
the conditions DynamoDB evaluates, so that a key still serves it.

In SQL, NULL stands for "no value". A DynamoDB item has two ways to have none: the attribute is
missing, or it is stored with the NULL type. Both are "no value" here: ``x IS NOT DISTINCT FROM
y`` holds when neither has a value, or both have equal values (the same type and value, by
DynamoDB's equality: ``1 = 1.0``, a string never equals a number); ``IS DISTINCT FROM`` is its
negation. So ``pk IS NOT DISTINCT FROM 'a'`` is ``pk = 'a'`` (a key condition), ``x IS NOT
DISTINCT FROM NULL`` is ``attribute_not_exists(x) OR x IS NULL``, and two paths compare as
``x = y OR ((x missing or NULL) AND (y missing or NULL))``, each piece a DynamoDB condition.

A parameter's value decides the form, so a statement holding one keeps an `ast.IsDistinct` until
it is bound (dynosql/sql/bind.py); the planner never sees one.
"""

from __future__ import annotations

from typing import Any

from dynosql.sql import ast
from dynosql.sql.text import sql_text


def lowered(node: ast.IsDistinct) -> ast.Condition:
    """The condition `node` stands for, in the conditions the planner and DynamoDB read (its
    operands bound: no parameter left)."""
    same = _not_distinct(node.left, node.right, node.pos)
    return ast.Not(same) if node.distinct else same


def _not_distinct(x: Any, y: Any, pos: ast.Pos) -> ast.Condition:
    if isinstance(x, ast.Literal) and not isinstance(y, ast.Literal):
        x, y = y, x
    if isinstance(x, ast.Literal):  # two values (a SELECT without FROM): evaluate/scalar.py's
        text = f"{sql_text(x)} IS NOT DISTINCT FROM {sql_text(y)}"
        same = ast.Scalar("NOT_DISTINCT", (x, y), text, pos)
        return ast.Compare("=", same, ast.Literal(True), pos)
    if isinstance(y, ast.Literal):
        return _no_value(x, pos) if y.value is None else ast.Compare("=", x, y, pos)
    return ast.Or((ast.Compare("=", x, y, pos), ast.And((_no_value(x, pos), _no_value(y, pos)))))


def _no_value(operand: Any, pos: ast.Pos) -> ast.Condition:
    """`operand` has no value: a path missing or stored as NULL; an expression giving NULL."""
    if isinstance(operand, ast.Path):
        missing = ast.Function("attribute_not_exists", operand, None, pos)
        return ast.Or((missing, ast.IsNull(operand, pos)))
    text = f"{sql_text(operand)} IS NULL"
    return ast.Compare("=", ast.Scalar("IS_NULL", (operand,), text, pos), ast.Literal(True), pos)
