"""SQLAlchemy Core to dynosql's SQL: the subset dynosql runs, and CompileError for the rest.

Compiled: ``select()`` of columns, aggregates (count, sum, avg, min, max, with DISTINCT),
expressions and labels from ONE table, or of values alone (no table: dynosql computes the row),
or from tables and entities joined by ``join()``/``outerjoin()`` with an ON clause (dynosql's
JOIN and LEFT JOIN: an item collection in one Query or a lookup by key; the engine plans it or
refuses it, naming what would serve), tables aliased by ``alias()``,
with ``where()`` (comparisons, and_/or_/not_, a boolean column alone, in_, between, like and
its startswith/endswith/contains forms, is_(None), is_distinct_from, the condition functions
begins_with, contains, attribute_exists, attribute_not_exists, attribute_type and size),
``case()``, ``cast()`` (to the types dynosql's CAST takes: numbers, strings, booleans, binary),
``/`` (exact division) and ``//`` (FLOOR of it), dynosql's scalar functions (lower, upper,
substr, coalesce, nullif, round, …), ``group_by()``, ``having()``, ``order_by()`` (asc/desc,
nulls_first/nulls_last), ``limit()`` and ``distinct()``; ``insert().values()`` (executemany
batches it), ``update()`` and ``delete()`` (dynosql's UPDATE and DELETE: conditional,
journaled and guarded as everywhere, so one whose WHERE does not name a key needs
``confirm=yes``). Every name is double-quoted (dynosql reads ``"name"`` as the attribute
``name``), values travel as ``:name`` parameters. Columns of one table are written without it
(in dynosql's SQL ``t.x`` of one table is a document path); in a join every column is
qualified by its source's alias, else its name (``"o"."total"``), as dynosql's joins ask.

Refused with a CompileError naming the construct, before anything is sent: a FROM of several
tables not joined, subqueries, UNION/INTERSECT/EXCEPT, WITH, OFFSET, window functions, FOR
UPDATE, DISTINCT ON, EXTRACT, ILIKE, regular expressions, any function dynosql's SQL lacks,
and RETURNING (write it as text SQL).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import exc
from sqlalchemy.sql import compiler, operators, selectable

from dynosql.sql import keywords

# the functions of dynosql's SQL that a SELECT reads (sql/keywords.py): aggregates, DynamoDB's
# condition functions and size(), and the scalar functions computed client-side
FUNCTIONS = frozenset(
    name.lower() for name in keywords.functions("aggregate", "condition", "operand", "scalar")
)


EMPTY_IN = "empty IN"  # the attribute of the always-false condition of in_([])


def refuse(construct: str, why: str = "") -> exc.CompileError:
    return exc.CompileError(
        f"dynosql does not compile {construct}{': ' + why if why else ''} "
        "(text SQL runs as dynosql SQL: see grammar/README.md)"
    )


class DynosqlIdentifierPreparer(compiler.IdentifierPreparer):
    """Every name in double quotes: DynamoDB's 573 reserved words and SQL's never clash."""

    def _requires_quotes(self, value: str) -> bool:
        return True


class DynosqlCompiler(compiler.SQLCompiler):
    """SQLAlchemy's compiler, narrowed to what dynosql's grammar reads."""

    tableless = False  # the statement is a SELECT of values alone (no FROM)
    joined = False  # the statement's FROM is a join: columns are qualified by their source

    def visit_select(self, select_stmt: Any, **kw: Any) -> str:
        if getattr(select_stmt, "_offset_clause", None) is not None:
            raise refuse("OFFSET", "DynamoDB pages by key, not by position")
        if getattr(select_stmt, "_for_update_arg", None) is not None:
            raise refuse("FOR UPDATE", "DynamoDB has no row locks")
        if getattr(select_stmt, "_distinct_on", None):
            raise refuse("DISTINCT ON")
        if kw.get("asfrom") or kw.get("subquery") or self.stack:
            raise refuse("a subquery", "dynosql reads one table per statement")
        froms = select_stmt.get_final_froms()
        if len(froms) > 1:
            raise refuse(
                "a FROM of several tables",
                "join them with join(table, onclause): an item collection or a lookup by key",
            )
        self.tableless = not froms
        self.joined = any(isinstance(f, selectable.Join) for f in froms)
        return str(super().visit_select(select_stmt, **kw))

    def visit_column(self, column: Any, add_to_result_map: Any = None, **kw: Any) -> str:
        # one table: "PK", not "drive"."PK" (a document path); a join: "o"."total"
        kw["include_table"] = self.joined
        return str(super().visit_column(column, add_to_result_map=add_to_result_map, **kw))

    def visit_function(self, func: Any, add_to_result_map: Any = None, **kw: Any) -> str:
        if func.name.lower() not in FUNCTIONS:
            raise refuse(
                f"the function {func.name}()", "not one of " + ", ".join(sorted(FUNCTIONS))
            )
        return str(super().visit_function(func, add_to_result_map=add_to_result_map, **kw))

    def limit_clause(self, select: Any, **kw: Any) -> str:
        if select._limit_clause is None:
            return ""
        return "\n LIMIT " + str(self.process(select._limit_clause, **kw))

    def visit_subquery(self, subquery: Any, **kw: Any) -> str:
        raise refuse("a subquery", "dynosql reads one table per statement")

    def visit_alias(self, alias: Any, **kw: Any) -> str:
        if isinstance(alias.element, selectable.TableClause):
            return str(super().visit_alias(alias, **kw))  # "orders" AS "o"
        raise refuse("a subquery", "dynosql reads one table per statement")

    def visit_lateral(self, lateral: Any, **kw: Any) -> str:
        raise refuse("LATERAL")

    def visit_compound_select(self, cs: Any, **kw: Any) -> str:
        raise refuse(str(cs.keyword.value))  # UNION, INTERSECT, EXCEPT (ALL)

    def visit_cte(self, cte: Any, **kw: Any) -> str:
        raise refuse("WITH (a common table expression)")

    def visit_over(self, over: Any, **kw: Any) -> str:
        raise refuse("a window function (OVER)")

    def visit_extract(self, extract: Any, **kw: Any) -> str:
        raise refuse("EXTRACT", "DynamoDB has no date type")

    def visit_ilike_op_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        raise refuse("ILIKE", "DynamoDB compares strings byte by byte")

    def visit_not_ilike_op_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        raise refuse("NOT ILIKE", "DynamoDB compares strings byte by byte")

    def visit_regexp_match_op_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        raise refuse("a regular expression match")

    def visit_not_regexp_match_op_binary(self, binary: Any, operator: Any, **kw: Any) -> str:
        raise refuse("a regular expression match")

    def visit_values(self, element: Any, **kw: Any) -> str:
        raise refuse("a VALUES table")

    def visit_tablesample(self, tablesample: Any, **kw: Any) -> str:
        raise refuse("Core's tablesample()", "write TABLESAMPLE in text SQL")

    def visit_insert(self, insert_stmt: Any, **kw: Any) -> str:
        if insert_stmt.select is not None:
            raise refuse("insert().from_select()", "write INSERT … SELECT as text SQL")
        if insert_stmt._returning:
            raise refuse("insert().returning()", "write RETURNING as text SQL")
        return str(super().visit_insert(insert_stmt, **kw))

    def visit_empty_set_op_expr(self, type_: Any, expand_op: Any, **kw: Any) -> str:
        """``in_([])``, known only when the statement runs: SQL's answer (no row for IN, every
        row for NOT IN) as conditions dynosql reads, in place of SQLAlchemy's ``1 != 1`` (a
        comparison of two values, which dynosql refuses). One attribute both present and
        absent can match no item; the planner sees that and sends no request. A SELECT without
        FROM compares two values instead (it reads no attribute)."""
        nulls = ", ".join("NULL" for _ in type_) if len(type_) > 1 else "NULL"
        if self.tableless:  # no item to test: SQL's answer as a comparison of two values
            return (
                f"{nulls}) OR (1 = 1"
                if expand_op is operators.not_in_op
                else f"{nulls}) AND (1 = 0"
            )
        name = self.preparer.quote(EMPTY_IN)
        if expand_op is operators.not_in_op:
            return f"{nulls}) OR (attribute_exists({name}) OR attribute_not_exists({name})"
        return f"{nulls}) AND (attribute_exists({name}) AND attribute_not_exists({name})"

    def returning_clause(self, stmt: Any, returning_cols: Any, **kw: Any) -> str:
        raise refuse("RETURNING", "write it as text SQL")
