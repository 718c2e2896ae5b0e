"""DynamoDB's rule against comparing an attribute with itself, applied to a WHERE as it is read.

DynamoDB refuses a condition expression (a KeyConditionExpression, a FilterExpression, a
ConditionExpression alike) in which an operator's or a function's first operand is an
attribute path that appears again among its other operands: ``a = a``, ``a < a``, ``a BETWEEN
a AND 5``, ``a IN (1, a)``, ``begins_with(a, a)``, ``contains(a, a)``, ``m.b = m.b``, even
inside NOT or OR ("Invalid FilterExpression: The first operand must be distinct from the
remaining operands for this operator or function"). Measured on DynamoDB Local, AWS's own
implementation; AWS's guide states it for ``contains(a, a)``. A path repeated elsewhere is
accepted: ``size(a) = size(a)``, ``size(a) = a``, ``5 BETWEEN a AND a``, ``b IN (a, a)``,
``a.b = a``; so are values (``:v = :v``).

moto answers such a condition, and a WHERE dynosql checks client-side is never sent at all,
so the answer would depend on the backend and the plan: every WHERE (SELECT, UPDATE, DELETE,
and the SELECT inside INSERT, COPY and EXPLAIN) is refused here instead, before any request,
with the position of the comparison.
"""

from __future__ import annotations

from typing import Any

from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.text import sql_text

# what `a <op> a` holds for, said to the user: = <= >= hold where a is there (and ordered, for
# <= and >=), the rest never
_HOLDS = {"=": True, "<=": True, ">=": True, "<>": False, "<": False, ">": False}


def refuse_repeated_operand(condition: ast.Condition | None) -> None:
    """SqlError (line and column) for the first comparison or function in `condition` whose
    first operand is a path repeated among its other operands (see the module docstring)."""
    if condition is None:
        return
    if isinstance(condition, ast.And | ast.Or):
        for item in condition.items:
            refuse_repeated_operand(item)
        return
    if isinstance(condition, ast.Not):
        refuse_repeated_operand(condition.item)
        return
    first, rest = _operands(condition)
    if not isinstance(first, ast.Path):
        return
    again = [o for o in rest if isinstance(o, ast.Path) and o.elements == first.elements]
    if not again:
        return
    name = first.text
    message = (
        f"{sql_text(condition)} compares {name} with itself, which DynamoDB refuses in any "
        "condition (the first operand must be distinct from the others)"
    )
    quoted = next((o for o in (first, *again) if o.quoted), None)
    if quoted is not None:  # status = "status": a string was meant
        message += f"; a string is in single quotes: '{quoted.elements[0]}'"
    elif isinstance(condition, ast.Compare):
        if _HOLDS[condition.op]:
            message += f"; attribute_exists({name}) keeps the items that have {name}"
        else:
            message += "; it holds for no item"
    raise SqlError(message, condition.pos.line, condition.pos.col)


def _operands(condition: ast.Condition) -> tuple[Any, tuple[Any, ...]]:
    """A comparison's or a function's first operand and its other operands."""
    if isinstance(condition, ast.Compare):
        return condition.left, (condition.right,)
    if isinstance(condition, ast.Between):
        return condition.operand, (condition.low, condition.high)
    if isinstance(condition, ast.In):
        return condition.operand, condition.values
    if isinstance(condition, ast.Function) and condition.arg is not None:
        return condition.path, (condition.arg,)
    return None, ()
