"""``SELECT`` without FROM (``SELECT 1 + 1``, ``SELECT CAST('5' AS INTEGER) AS n WHERE :a =
:b``): one row of values computed client-side, read as any SELECT is (the same converter, the
same refusals), less what needs a table: attribute paths, aggregates, ITEM_SIZE() and its kin,
GROUP BY, ORDER BY and ``*``. Two values may be compared here (there is no attribute to compare:
a table's WHERE needs one). A value standing alone as a column is the expression ``VALUE(v)``,
named as written (``SELECT 1`` is the column ``1``)."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.convert import _Converter
from dynosql.sql.split import Chunk
from dynosql.sql.text import sql_text

NEEDS_A_TABLE = "a SELECT without FROM computes one row from values"


def has_no_table(tree: exp.Expression) -> bool:
    """A SELECT that names no table: no FROM (nor a join)."""
    return (
        isinstance(tree, exp.Select)
        and (tree.args.get("from_") or tree.args.get("from")) is None
        and not tree.args.get("joins")
    )


def select_values(chunk: Chunk, tree: exp.Select) -> ast.SelectValues:
    """The statement a SELECT without FROM is (see the module's notes)."""
    converter = _Tableless(chunk)
    select = converter.select(tree)
    if select.items is None:
        raise converter.fail(
            f"SELECT * needs FROM table: {NEEDS_A_TABLE}", at=converter.find(r"\*")
        )
    for clause, present in (("GROUP BY", select.group_by), ("ORDER BY", select.order_by)):
        if present:
            at = converter.find(clause.replace(" ", r"\s+"))
            raise converter.fail(f"{clause} needs FROM table: {NEEDS_A_TABLE}", at=at)
    return ast.SelectValues(select.items, select.where, select.limit, select.pos)


class _Tableless(_Converter):
    """The SELECT converter where nothing is read: values only."""

    list_ends = r"\b(?:WHERE|LIMIT|GROUP|ORDER)\b"

    def from_(self, tree: exp.Select) -> tuple[str, str | None, ast.Pos, str | None]:
        return "", None, self.at(0), None

    def expr(self, e: exp.Expression) -> ast.Expr:
        value = e.this if isinstance(e, exp.Paren) else e
        if isinstance(value, exp.Literal | exp.Boolean | exp.Null | exp.Placeholder) or (
            isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal)
        ):
            operand = self.operand(value)
            return ast.Scalar("VALUE", (operand,), sql_text(operand), operand.pos)
        return super().expr(e)

    def path(self, e: exp.Expression) -> ast.Path:
        found = super().path(e)
        raise self.fail(
            f"{found.text} names an attribute, and a SELECT without FROM reads none: SELECT "
            f"{found.text} FROM table",
            at=found.pos,
        )

    def aggregate(self, e: exp.Expression, name: str) -> ast.Aggregate:
        raise self.fail(f"{name}() needs FROM table: {NEEDS_A_TABLE}", e)

    def item_measure(self, e: exp.Anonymous, pos: ast.Pos) -> ast.Scalar:
        raise SqlError(f"{e.name.upper()}() sizes an item: it needs FROM table", pos.line, pos.col)

    def compared(self, e: exp.Expression, o: Any) -> tuple[Any, Any]:
        return o(e.this), o(e.expression)  # values alone: nothing else to compare here
