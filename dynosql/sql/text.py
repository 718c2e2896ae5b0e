"""Conditions and operands back to SQL text: how EXPLAIN names what the client checks (a
plan's residual conditions), and the planner fixtures' ``residual``."""

from __future__ import annotations

from typing import Any

from dynosql import values
from dynosql.sql import ast
from dynosql.sql.keywords import ITEM_MEASURES


def sql_text(node: Any, nested: bool = False) -> str:
    """A condition or operand as SQL text (residual client-side checks are shown this way)."""
    if node is None:
        return "NULL"
    if isinstance(node, ast.Path):
        return node.text
    if isinstance(node, ast.Literal):
        return values.sql_literal(node.value)
    if isinstance(node, ast.Size):
        return f"size({node.path.text})"
    if isinstance(node, ast.Scalar) and not node.text:
        return expression_text(node.func, node.args)
    if isinstance(node, ast.Scalar | ast.Case | ast.Aggregate):
        return node.text
    if isinstance(node, ast.Compare):
        left, right = node.left, node.right
        if (
            node.op == "="
            and isinstance(left, ast.Scalar)
            and left.func in ("LIKE", "STARTS_WITH", "IS_NULL", "NOT_DISTINCT")
            and isinstance(right, ast.Literal)
            and right.value is True
        ):
            return sql_text(left)  # a condition written as one: LOWER(a) LIKE 'x%'
        return f"{sql_text(left)} {node.op} {sql_text(right)}"
    if isinstance(node, ast.Between):
        return f"{sql_text(node.operand)} BETWEEN {sql_text(node.low)} AND {sql_text(node.high)}"
    if isinstance(node, ast.In):
        return f"{sql_text(node.operand)} IN ({', '.join(sql_text(v) for v in node.values)})"
    if isinstance(node, ast.Function):
        args = [node.path.text] + ([] if node.arg is None else [sql_text(node.arg)])
        return f"{node.name}({', '.join(args)})"
    if isinstance(node, ast.Like):
        return f"{node.path.text} LIKE " + "'" + node.pattern.replace("'", "''") + "'"
    if isinstance(node, ast.Param):
        return f":{node.name}"
    if isinstance(node, ast.LikeParam):
        escape = "" if node.escape is None else f" ESCAPE {sql_text(node.escape)}"
        pattern = " || ".join(sql_text(p) for p in node.parts)
        return f"{sql_text(node.subject)} LIKE {pattern}{escape}"
    if isinstance(node, ast.IsNull):
        return f"{node.path.text} IS NULL"
    if isinstance(node, ast.IsDistinct):
        word = "IS DISTINCT FROM" if node.distinct else "IS NOT DISTINCT FROM"
        return f"{sql_text(node.left)} {word} {sql_text(node.right)}"
    if isinstance(node, ast.Not):
        return f"NOT ({sql_text(node.item)})"
    if isinstance(node, ast.And):
        text = " AND ".join(sql_text(c, nested=True) for c in node.items)
        return f"({text})" if nested else text
    if isinstance(node, ast.Or):
        text = " OR ".join(sql_text(c, nested=True) for c in node.items)
        return f"({text})" if nested else text
    raise TypeError(f"no SQL text for {node!r}")


_BINARY = ("+", "-", "*", "/", "%", "||")
_CASTS = {  # sql/casts.py's functions: CAST(x AS …) as one spelling writes it
    "CAST_NUMBER": "NUMBER",
    "CAST_STRING": "STRING",
    "CAST_INTEGER": "INTEGER",
    "CAST_DECIMAL": "DECIMAL",
    "CAST_BOOLEAN": "BOOLEAN",
    "CAST_BINARY": "BINARY",
}


def expression_text(func: str, args: tuple[Any, ...]) -> str:
    """A scalar expression as SQL, in one spelling (``SUBSTR(a, 1, 2)``, ``a * (b + 1)``,
    ``CAST(x AS NUMBER)``, ``DATE_TRUNC('day', ts)``): how a GROUP BY or WHERE expression is
    named in EXPLAIN and in messages."""

    def arg(node: Any) -> str:
        text = sql_text(node)
        binary = isinstance(node, ast.Scalar) and node.func in _BINARY
        return f"({text})" if binary and func in (*_BINARY, "NEG") else text

    if func in _BINARY:
        return f"{arg(args[0])} {func} {arg(args[1])}"
    if func == "NEG":
        return f"-{arg(args[0])}"
    if func in _CASTS:
        params = ", ".join(sql_text(a) for a in args[1:])
        name = "VARCHAR" if func == "CAST_STRING" and params else _CASTS[func]
        return f"CAST({sql_text(args[0])} AS {name}{f'({params})' if params else ''})"
    if func == "TRIM" and len(args) == 3:
        chars, where = args[1], args[2]
        if getattr(chars, "value", None) == " " and getattr(where, "value", None) == "BOTH":
            return f"TRIM({sql_text(args[0])})"
        return f"TRIM({where.value} {sql_text(chars)} FROM {sql_text(args[0])})"
    if func == "NOW":
        return "NOW()"
    if func in ITEM_MEASURES:  # the default mode is not written: ITEM_RCU()
        modes = ITEM_MEASURES[func]
        shown = [a for a in args if getattr(a, "value", None) != modes[0]] if modes else []
        return f"{func}({', '.join(sql_text(a) for a in shown)})"
    if func == "LIKE":
        return f"{sql_text(args[0])} LIKE {sql_text(args[1])}"
    if func == "IS_NULL":
        return f"{sql_text(args[0])} IS NULL"
    if func == "VALUE":
        return sql_text(args[0])
    return f"{func}({', '.join(sql_text(a) for a in args)})"
