"""Statements that name an entity, resolved before they run: the Session calls `resolve` on
every bound statement when entities are declared, and the registry then dispatches the
resolved statement to its kind like any other (``SELECT … FROM invoice`` → an EntitySelect;
``DESCRIBE invoice`` → DescribeEntity). An entity's name is looked up before a table's.
Pure but for the declared entities: nothing is read."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from dynosql.sql import ast
from dynosql.statements.show import Describe

if TYPE_CHECKING:
    from dynosql.context import Context


def resolve(ctx: Context, statement: Any) -> Any:
    """`statement` with what names an entity resolved (unchanged when nothing does), and a
    SELECT with joins made the JoinSelect that reads its sources (entities or tables)."""
    entities = ctx.entities
    if isinstance(statement, ast.Select) and statement.joins:
        return ast.JoinSelect(statement)
    if isinstance(statement, ast.Select):
        entity = None if statement.export is not None else entities.get(statement.table)
        if entity is None:
            return statement
        from dynosql.plan.entity_read import rewrite_select

        return ast.EntitySelect(rewrite_select(statement, entity))
    if isinstance(statement, ast.Explain):
        inner = resolve(ctx, statement.statement)
        if inner is statement.statement:
            return statement
        if statement.program or statement.partiql:  # the requests or PartiQL: the physical's
            if isinstance(inner, ast.EntitySelect):
                inner = inner.read.physical
            elif isinstance(inner, ast.EntityWrite) and statement.partiql:
                inner = inner.write.physical
            elif isinstance(inner, ast.JoinSelect):
                from dynosql.errors import PlanError

                written = "requests" if statement.program else "PartiQL"
                raise PlanError(
                    f"EXPLAIN (FORMAT {'PYTHON' if statement.program else 'PARTIQL'}) writes one "
                    f"statement's {written}: a join's lookups depend on the rows read, so "
                    "EXPLAIN shows them as text"
                )
        return dataclasses.replace(statement, statement=inner)
    if isinstance(statement, Describe) and entities.get(statement.table) is not None:
        return ast.DescribeEntity(statement.table, statement.pos)
    if isinstance(statement, ast.Insert | ast.Update | ast.Delete):
        if isinstance(statement, ast.Insert) and statement.select is not None:
            if statement.select.joins:
                from dynosql.errors import PlanError

                pos = statement.select.joins[0].pos
                raise PlanError(
                    f"{statement.verb} … SELECT reads one table or entity: a join is not "
                    "supported there (COPY (SELECT … JOIN …) TO a file, then COPY FROM it)",
                    pos.line or None,
                    pos.col or None,
                )
            statement = _from_entity(ctx, statement)
        entity = entities.get(statement.table)
        if entity is None:
            return statement
        from dynosql.entities.write import rewrite_write

        skip = isinstance(statement, ast.Insert) and statement.skip_missing_index_keys
        write = rewrite_write(statement, entity, skip)
        if ctx.transaction is not None:  # queued until COMMIT as the physical write it is
            return write.physical
        return ast.EntityWrite(write)
    if statement.table_only and entities.get(statement.table) is not None:
        from dynosql.errors import PlanError

        entity = entities.get(statement.table)
        assert entity is not None
        raise PlanError(
            f"{entity.name} is an entity (of table {entity.table}): this statement takes a "
            f"table, e.g. {entity.table}",
            statement.pos.line or None,
            statement.pos.col or None,
        )
    if isinstance(statement, ast.CopyFrom) and statement.prepare is None:
        entity = entities.get(statement.table)
        if entity is None:
            return statement
        from dynosql.entities.write import Composer

        return dataclasses.replace(
            statement, table=entity.table, entity=entity.name, prepare=Composer(entity)
        )
    return statement


def _from_entity(ctx: Context, statement: ast.Insert) -> ast.Insert:
    """INSERT … SELECT from an entity: the physical SELECT, whose select list reads the key
    columns back from the key."""
    select = statement.select
    assert select is not None
    source = resolve(ctx, select)
    if not isinstance(source, ast.EntitySelect):
        return statement
    if select.items is None:
        from dynosql.errors import PlanError

        raise PlanError(
            f"INSERT … SELECT * FROM {select.table}: name the entity's columns to copy "
            f"(SELECT {', '.join(source.read.entity.columns)}, …)",
            select.table_pos.line or None,
            select.table_pos.col or None,
        )
    return dataclasses.replace(statement, select=source.read.physical)
