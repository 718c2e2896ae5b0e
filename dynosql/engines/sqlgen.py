"""A bound SELECT (our typed statement) → SQL for DuckDB or Athena, through sqlglot's dialects,
keeping DynamoDB's meaning:

- a missing attribute (and a stored NULL) is SQL NULL; `a <> v` is true for it, as in DynamoDB;
- a comparison between different types is false (`<>` true): decided here, from the type each
  attribute holds in the export;
- missing values sort last ascending and first descending;
- SUM adds numbers only (an attribute holding no number sums to NULL); AVG is SUM / COUNT,
  divided exactly by the caller (38 digits, as the Scan path does).

Numbers are exact: the `Target` says how an attribute is read (DuckDB: a scaled BIGNUM column;
Athena: a DECIMAL cast of the export's text) and how a number literal is written for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlglot import exp

from dynosql.errors import PlanError
from dynosql.evaluate.aggregate import collect_aggregates
from dynosql.sql import ast
from dynosql.sql.text import sql_text

HIDDEN_SUM, HIDDEN_COUNT = "__dynosql_sum ", "__dynosql_count "  # AVG's parts, divided here
UNSUPPORTED = "the {engine} engine does not support {what}; run it with --engine dynamodb"


PATH_MARK = " (path)"  # ends a nested path's column name: no attribute is named so
EXPR_MARK = " (expression)"  # ends an expression's column name (see `key`)

Column = ast.Path | ast.Scalar | ast.Case  # what has a column of its own


def is_expression(node: Any) -> bool:
    """A scalar expression of an item's attributes (no aggregate inside): the DuckDB engine
    gives it a column of its own, computed while loading (`key`)."""
    return isinstance(node, ast.Scalar | ast.Case) and not ast.aggregates_in(node)


def key(node: Column) -> str:
    """The column that holds a path's or an expression's values: a top-level attribute's own
    name; for a nested path (``doc.x``, ``a[0]``) its canonical text marked as a path, so that
    it never meets an attribute whose name has a dot in it (``"doc.x"``); for an expression
    (``SUBSTR(sk, 1, 3)``) its text in one spelling (``SUBSTRING`` is ``SUBSTR``), marked as an
    expression. The DuckDB engine computes each expression's column per item with dynosql's
    own evaluator (dynosql.evaluate.scalar), so its meaning is the DynamoDB engine's."""
    if isinstance(node, ast.Scalar | ast.Case):
        return sql_text(_untyped(node)) + EXPR_MARK
    if node.is_attribute:
        return node.root
    text = "".join(f"[{e}]" if isinstance(e, int) else f".{e}" for e in node.elements)
    return text[1:] + PATH_MARK


_BOOLEAN = frozenset({"LIKE", "STARTS_WITH", "IS_NULL"})
_NUMERIC = frozenset(
    {"+", "-", "*", "/", "%", "NEG", "ROUND", "FLOOR", "CEIL", "ABS", "LENGTH", "CAST_NUMBER"}
    | {"TO_UNIXTIME"}
)


def result_kind(node: ast.Scalar | ast.Case) -> str:
    """The type an expression most likely gives, for EXPLAIN (which reads no item; a run
    takes each column's type from the values computed)."""
    if isinstance(node, ast.Scalar) and node.func in _BOOLEAN:
        return "BOOL"
    if isinstance(node, ast.Scalar) and node.func in _NUMERIC:
        return "N"
    return "S"


def _untyped(node: Any) -> Any:
    """An expression without the text it was typed with: named in one spelling."""
    if isinstance(node, ast.Scalar):
        return dataclasses.replace(node, text="", args=tuple(_untyped(a) for a in node.args))
    return node


def is_attribute(column: str) -> bool:
    """Whether a column holds a top-level attribute (not a path's or an expression's values,
    which SELECT * leaves out)."""
    return not column.endswith((PATH_MARK, EXPR_MARK))


def shown(column: str) -> str:
    """A column's name in messages: the attribute, or the path or expression as written
    canonically."""
    return column.removesuffix(PATH_MARK).removesuffix(EXPR_MARK)


@dataclass
class Target:
    """How the engine reads attributes. `kinds`: column (see `key`) → type code held in the
    export (N, S, B, BOOL, or "wire" for maps, lists and sets kept as DynamoDB JSON text).
    `paths`: whether nested paths have columns of their own (the DuckDB engine loads each
    path's value per item; Athena reads top-level attributes only)."""

    engine: str
    kinds: dict[str, str]
    column: Callable[[str], exp.Expression]
    number: Callable[[str, Decimal], exp.Expression]  # a literal compared with attribute
    paths: bool = False  # also expressions: columns computed per item while loading

    def kind(self, node: Column) -> str | None:
        if isinstance(node, ast.Scalar | ast.Case):
            if not self.paths:
                raise PlanError(expressions_refused(self.engine, sql_text(node)))
        elif not node.is_attribute and not self.paths:
            raise PlanError(
                UNSUPPORTED.format(engine=self.engine, what=f"document paths ({node.text})")
            )
        return self.kinds.get(key(node))


@dataclass
class OutColumn:
    """An output column: its name, and how its SQL value turns back into a DynamoDB value."""

    name: str
    attribute: str | None  # the attribute whose type it has (a path or MIN/MAX/SUM of one)
    func: str | None = None  # COUNT/SUM/AVG/MIN/MAX, None for a plain path
    hidden: bool = False  # AVG's sum and count, divided by the caller


def _type_of_literal(value: Any) -> str | None:
    from dynosql import values

    return values.type_of(value)


def select(
    statement: ast.Select, target: Target, source: exp.Expression
) -> tuple[exp.Select, list[OutColumn]]:
    """The statement as a sqlglot SELECT over `source`, and its output columns."""
    refuse_expressions(statement, target.engine)
    g = _Gen(target)
    if statement.items is None:
        names = sorted(n for n in target.kinds if is_attribute(n))
        query = exp.select(*[exp.alias_(target.column(n), n, quoted=True) for n in names])
        columns = [OutColumn(n, n) for n in names]
    else:
        projections, columns = [], []
        for item in statement.items:
            for expression, column in g.item(item):
                projections.append(exp.alias_(expression, column.name, quoted=True))
                columns.append(column)
        query = exp.select(*projections)
    query = query.from_(source)
    if statement.where is not None:
        query = query.where(g.condition(statement.where))
    if statement.group_by:
        query = query.group_by(*[target.column(_attr(target, p)) for p in statement.group_by])
    if statement.having is not None:
        query = query.having(g.condition(statement.having, having=True))
    if statement.distinct:
        query = query.distinct()
    for order in statement.order_by:
        query = query.order_by(
            exp.Ordered(this=g.order_value(order.expr), desc=order.desc, nulls_first=order.desc)
        )
    if statement.limit is not None:
        query = query.limit(statement.limit)
    aggs = collect_aggregates(statement)
    for agg in aggs:
        if agg.distinct and agg.func in ("SUM", "AVG"):
            raise PlanError(
                UNSUPPORTED.format(engine=target.engine, what=f"{agg.func}(DISTINCT …)")
            )
    return query, columns


def expressions(statement: ast.Select) -> list[ast.Scalar | ast.Case]:
    """Every scalar expression in the statement, outermost first (each once per place)."""
    found: list[ast.Scalar | ast.Case] = []

    def visit(node: Any) -> None:
        if isinstance(node, ast.Scalar | ast.Case):
            found.append(node)
        return None

    ast.rewrite(statement, visit)  # visit returns None: the walk goes on into every node
    return found


def expressions_refused(engine: str, written: str) -> str:
    return UNSUPPORTED.format(engine=engine, what=f"expressions such as {written}")


def refuse_expressions(statement: ast.Select, engine: str) -> None:
    """What the engine cannot compute, refused in one sentence before any work. Athena reads
    the export itself, so it computes no expression (its SQL functions differ from dynosql's
    at the edges: SUBSTR from 0, SPLIT_PART past the end, UPPER('ß'), a NULL in CONCAT).
    DuckDB gets every expression of an item's attributes as a column computed while loading
    (`key`), and expressions over aggregates (``ROUND(AVG(t), 2)``) are computed from DuckDB's
    groups by dynosql (dynosql.engines.export.grouped)."""
    if engine == "export":
        return
    for node in expressions(statement):
        raise PlanError(expressions_refused(engine, sql_text(node)))


def _attr(target: Target, node: Column) -> str:
    target.kind(node)
    return key(node)


def _operand_of(agg: ast.Aggregate) -> Column | None:
    """What an aggregate reads: a path, an expression (``SUM(price * qty)``), or None for
    COUNT(*)."""
    return agg.path if agg.path is not None else agg.arg


class _Gen:
    def __init__(self, target: Target):
        self.t = target

    # select list
    def item(self, item: ast.SelectItem) -> list[tuple[exp.Expression, OutColumn]]:
        expr = item.expr
        assert not isinstance(expr, ast.AllColumns)  # o.* is a join's: joins read DynamoDB
        if not isinstance(expr, ast.Aggregate):  # a path, or an expression (select() checked)
            return [(self.t.column(_attr(self.t, expr)), OutColumn(item.name, key(expr)))]
        operand = _operand_of(expr)
        if expr.func == "AVG":
            assert operand is not None
            total = self.aggregate(ast.Aggregate("SUM", expr.path, False, "", arg=expr.arg))
            count = self.aggregate(ast.Aggregate("COUNT", expr.path, False, "", arg=expr.arg))
            return [
                (total, OutColumn(HIDDEN_SUM + item.name, key(operand), "SUM", hidden=True)),
                (count, OutColumn(HIDDEN_COUNT + item.name, None, "COUNT", hidden=True)),
                (exp.null(), OutColumn(item.name, key(operand), "AVG")),
            ]
        root = key(operand) if operand is not None else None
        return [(self.aggregate(expr), OutColumn(item.name, root, expr.func))]

    def aggregate(self, agg: ast.Aggregate) -> Any:  # a sqlglot expression
        operand = _operand_of(agg)
        if operand is None:
            return exp.Count(this=exp.Star())
        kind = self.t.kind(operand)
        column = self.t.column(key(operand))
        if agg.func == "COUNT":
            inner = exp.Distinct(expressions=[column]) if agg.distinct else column
            return exp.Count(this=inner)
        if agg.func in ("SUM", "AVG"):
            if kind != "N":
                return exp.null()  # no number to add: NULL, as the Scan path says
            return exp.Sum(this=column)
        if kind == "wire":
            raise PlanError(
                UNSUPPORTED.format(engine=self.t.engine, what=f"{agg.func} of maps, lists or sets")
            )
        return exp.Min(this=column) if agg.func == "MIN" else exp.Max(this=column)

    def order_value(self, expr: ast.Expr) -> Any:  # a sqlglot expression
        if isinstance(expr, ast.Aggregate) and expr.func == "AVG":
            operand = _operand_of(expr)
            assert operand is not None
            if self.t.kind(operand) != "N":
                return exp.null()
            column = self.t.column(key(operand))
            return exp.Div(
                this=exp.cast(exp.Sum(this=column), "DOUBLE"), expression=exp.Count(this=column)
            )
        if isinstance(expr, ast.Aggregate):
            return self.aggregate(expr)
        assert not isinstance(expr, ast.AllColumns)  # o.* is a join's: joins read DynamoDB
        return self.t.column(_attr(self.t, expr))  # a path or an expression

    # conditions
    def condition(self, c: Any, having: bool = False) -> Any:  # a sqlglot expression
        if isinstance(c, ast.And):
            return exp.and_(*[self.condition(x, having) for x in c.items])
        if isinstance(c, ast.Or):
            return exp.or_(*[self.condition(x, having) for x in c.items])
        if isinstance(c, ast.Not):
            # NOT is plain negation (DynamoDB's two-valued logic): SQL's NOT of a comparison
            # with a NULL (a missing attribute) is NULL, and would drop the item
            inner = exp.func("coalesce", self.condition(c.item, having), exp.false())
            return exp.not_(inner)
        if isinstance(c, ast.Compare):
            return self.compare(c.op, c.left, c.right, having)
        if isinstance(c, ast.Between):
            low = self.compare(">=", c.operand, c.low, having)
            high = self.compare("<=", c.operand, c.high, having)
            return exp.Paren(this=exp.and_(low, high))
        if isinstance(c, ast.In):
            return exp.Paren(
                this=exp.or_(*[self.compare("=", c.operand, v, having) for v in c.values])
            )
        if isinstance(c, ast.Function) and c.name == "begins_with":
            if self.t.kind(c.path) != "S" or not isinstance(c.arg, ast.Literal):
                return exp.false()
            return exp.func(
                "starts_with", self.t.column(key(c.path)), exp.Literal.string(c.arg.value)
            )
        if isinstance(c, ast.Function) and c.name in ("attribute_exists", "attribute_not_exists"):
            column = self.t.column(_attr(self.t, c.path))
            test = exp.Is(this=column, expression=exp.null())
            return exp.not_(test) if c.name == "attribute_exists" else test
        if isinstance(c, ast.Like):
            if self.t.kind(c.path) != "S":
                return exp.false()
            return exp.Like(
                this=self.t.column(key(c.path)), expression=exp.Literal.string(c.pattern)
            )
        what = type(c).__name__ if not isinstance(c, ast.Function) else f"{c.name}()"
        if isinstance(c, ast.IsNull):
            what = "IS NULL (a stored NULL and a missing attribute are one SQL NULL here)"
        raise PlanError(UNSUPPORTED.format(engine=self.t.engine, what=what))

    def operand_kind(self, o: Any) -> str | None:
        if isinstance(o, ast.Path | ast.Scalar | ast.Case):
            return self.t.kind(o)
        if isinstance(o, ast.Aggregate):
            if o.func == "COUNT":
                return "N"
            operand = _operand_of(o)
            return self.t.kind(operand) if operand is not None else "N"
        if isinstance(o, ast.Literal):
            return _type_of_literal(o.value)
        raise PlanError(UNSUPPORTED.format(engine=self.t.engine, what="size()"))

    def compare(self, op: str, left: Any, right: Any, having: bool) -> Any:  # a sqlglot expression
        null = _null_test(op, left, right)
        if null is not None:  # an expression's NULL is a value: `x * 2 = NULL` where x is missing
            is_null = exp.Is(this=self.t.column(_attr(self.t, null)), expression=exp.null())
            return is_null if op == "=" else exp.not_(is_null)
        lk, rk = self.operand_kind(left), self.operand_kind(right)
        if lk is None or rk is None or lk != rk or lk == "wire":
            # different types (or an attribute no item holds): false, `<>` true
            if lk == rk == "wire":
                raise PlanError(
                    UNSUPPORTED.format(engine=self.t.engine, what="comparing maps, lists or sets")
                )
            return exp.true() if op == "<>" else exp.false()
        attribute = _attribute_of(left) or _attribute_of(right)
        a, b = self.value(left, attribute, having), self.value(right, attribute, having)
        ops = {"=": exp.EQ, "<>": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}
        test = ops[op](this=a, expression=b)
        if op == "<>":
            nulls = [
                exp.Is(this=x, expression=exp.null())
                for x, o in ((a, left), (b, right))
                if not isinstance(o, ast.Literal)
            ]
            return exp.Paren(this=exp.or_(*nulls, test))
        return test

    def value(self, o: Any, attribute: str | None, having: bool) -> Any:  # a sqlglot expression
        if isinstance(o, ast.Path | ast.Scalar | ast.Case):
            return self.t.column(key(o))
        if isinstance(o, ast.Aggregate):
            if o.func == "AVG":
                return self.order_value(o)
            return self.aggregate(o)
        v = o.value
        if isinstance(v, bool):
            return exp.Boolean(this=v)
        if isinstance(v, Decimal):
            if attribute is None:  # COUNT compared with a number
                return exp.Literal.number(str(v))
            return self.t.number(attribute, v)
        if isinstance(v, str):
            return exp.Literal.string(v)
        if isinstance(v, bytes):
            return exp.func("from_hex", exp.Literal.string(v.hex()))
        raise PlanError(UNSUPPORTED.format(engine=self.t.engine, what=f"the literal {v!r}"))


def _null_test(op: str, left: Any, right: Any) -> Column | None:
    """The expression of ``expr = NULL`` / ``expr <> NULL`` (the expression's NULL, a value),
    else None."""
    if op not in ("=", "<>"):
        return None
    for a, b in ((left, right), (right, left)):
        if is_expression(a) and isinstance(b, ast.Literal) and b.value is None:
            return a
    return None


def _attribute_of(o: Any) -> str | None:
    """The attribute (or expression) whose values an operand holds (for writing a number
    literal against it)."""
    if isinstance(o, ast.Path | ast.Scalar | ast.Case):
        return key(o)
    if isinstance(o, ast.Aggregate) and o.func != "COUNT":
        operand = _operand_of(o)
        return key(operand) if operand is not None else None
    return None


def number_literals(statement: ast.Select) -> dict[str, list[Decimal]]:
    """Number literals compared with each attribute (their scale widens the column's)."""
    found: dict[str, list[Decimal]] = {}

    def visit(c: Any) -> None:
        if isinstance(c, ast.And | ast.Or):
            for x in c.items:
                visit(x)
        elif isinstance(c, ast.Not):
            visit(c.item)
        elif isinstance(c, ast.Compare | ast.Between | ast.In):
            operands = (
                [c.left, c.right]
                if isinstance(c, ast.Compare)
                else [c.operand, c.low, c.high]
                if isinstance(c, ast.Between)
                else [c.operand, *c.values]
            )
            paths = [a for a in map(_attribute_of, operands) if a is not None]
            for o in operands:
                if (
                    isinstance(o, ast.Literal)
                    and isinstance(o.value, Decimal)
                    and not isinstance(o.value, bool)
                ):
                    for p in paths:
                        found.setdefault(p, []).append(o.value)

    visit(statement.where)
    visit(statement.having)
    return found
