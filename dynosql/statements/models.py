"""IMPORT MODEL, EXPORT MODEL and ``--local --model``: NoSQL Workbench models, read and written by
``dynosql.workbench`` (the format, and what a facet says, are there and in docs/models.md).

IMPORT MODEL 'f.json' is CREATE TABLE, COPY FROM and CREATE ENTITY, run as those statements
run: each table of the model made by the CREATE TABLE kind (its guards, its wait until ACTIVE),
its items (the table's and its facets' TableData) put by the COPY FROM kind (BatchWriteItem,
retried, paced, journaled: ``dynosql undo`` deletes what it put), then each facet declared as
its entity, checked as CREATE ENTITY checks one. Everything is read and checked before the
first request: the file, every table, every item (what DynamoDB would refuse is left out and
said), every entity, the tables there already. A table of the model that exists with the
model's keys and indexes is kept and its items put again (an import that stopped is continued
by running it again); one that exists with others refuses the import, nothing sent; so does an
entity declared otherwise, or named as a table. Its declared effects are a schema change and
writes that cannot be rolled back: ``--read-only`` and BEGIN … COMMIT refuse it whole.
``--dry-run`` and ``EXPLAIN IMPORT MODEL`` list the statements it would run.

EXPORT MODEL [t, …] TO 'f.json' [SAMPLE n] reads each table (every table when none is named)
with a Scan, priced and guarded as any (``--fail-on-scan``, ``--max-rcu``), and writes the
tables, their indexes, the session's entities of each as facets and the items: all of them,
or with SAMPLE n at most n of each entity (and n of no entity), the Scan stopping once it has
them. The file is written under a temporary name and renamed when complete.

`load_local` (``--local --model``): the embedded server made with the model's tables and items
as it is made with the example tables (no request, no journal: the server is the session's and
starts empty), the facets declared as entities; a table another ``--model`` made with the same
keys and indexes is kept and gets this model's items too, as IMPORT MODEL keeps one.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dynosql import values
from dynosql.entity_model import Entity
from dynosql.errors import ExecutionError, PlanError, SqlError
from dynosql.guards import READS, Ask, Effects, Steps, Verdict
from dynosql.plan import cost
from dynosql.plan.ddl import show_create
from dynosql.plan.model import Plan
from dynosql.plan.schema import TableInfo
from dynosql.position import NOWHERE, Pos
from dynosql.result import Changes, Result, Stats, WriteStats, carried, counted, format_capacity
from dynosql.sql import ast
from dynosql.sql.keywords import Starter
from dynosql.sql.split import Chunk, strip_comments
from dynosql.sql.table_and_copy_parse import _Reader
from dynosql.statements.entity_defs import declare
from dynosql.statements.kind import Kind, Planned, ScanCheck, as_steps, named
from dynosql.version import __version__
from dynosql.workbench.facets import facet_entities
from dynosql.workbench.read import Model, ModelTable, read_model
from dynosql.workbench.write import Exported, model_document, owner

if TYPE_CHECKING:
    from dynosql.context import Context


# --- the statements, and how they are read (grammar/README.md) ---------------------------------


@dataclass(frozen=True)
class ImportModel(ast.Statement):
    """``IMPORT MODEL 'file.json'``: a NoSQL Workbench model's tables, items and facets."""

    path: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ExportModel(ast.Statement):
    """``EXPORT MODEL [table [, table]…] TO 'file.json' [SAMPLE n]``: no table named is every
    table; SAMPLE n writes at most n items of each entity (and n of no entity) a table."""

    path: str
    tables: tuple[str, ...] = ()
    sample: int | None = None
    pos: Pos = field(default=NOWHERE, compare=False)


MAX_SAMPLE = 1_000_000


# the file is a 'quoted string': say so where an unquoted name starts (the reader's tokens
# would stop at its first dot)
_UNQUOTED = re.compile(r"\s*(?:IMPORT\s+MODEL|EXPORT\s+MODEL\b.*?\bTO)\s+([^'\s;])", re.I | re.S)


def parse_model_statement(
    chunk: Chunk, code: str, position: Callable[[int], ast.Pos]
) -> ImportModel | ExportModel:
    unquoted = _UNQUOTED.match(code)
    if unquoted is not None:
        pos = position(unquoted.start(1))
        raise SqlError("expected the model file as a 'quoted string'", pos.line, pos.col)
    reader = _Reader(chunk, code, position)
    first = reader.expect("IMPORT", "EXPORT")
    reader.expect("MODEL")
    if first == "IMPORT":
        pos = position(reader.here())
        path = reader.string("the model file")
        reader.done()
        return ImportModel(path, pos)
    tables: list[str] = []
    if not reader.at_word("TO"):
        tables.append(reader.name("a table name, or TO"))
        while reader.punct(","):
            if reader.at_word("TO"):
                raise reader.fail("a table name")
            tables.append(reader.name("a table name"))
    reader.expect("TO")
    pos = position(reader.here())
    path = reader.string("the model file")
    sample = None
    if reader.accept("SAMPLE"):
        at = reader.here()
        sample = reader.whole("the items each entity keeps (SAMPLE n)")
        if not 1 <= sample <= MAX_SAMPLE:
            raise reader.error(at, f"SAMPLE takes a whole number from 1 to {MAX_SAMPLE:,}")
    reader.done()
    return ExportModel(path, tuple(tables), sample, pos)


def explain(
    chunk: Chunk, match: re.Match[str], pos: Callable[[Chunk, str, int], ast.Pos]
) -> ast.Explain:
    """``EXPLAIN IMPORT MODEL 'f.json'``: the statements it would run (`chunk` has the EXPLAIN
    words blanked out, positions kept); not ANALYZE, and not EXPORT MODEL."""
    code = strip_comments(chunk.text)
    statement = parse_model_statement(chunk, code, lambda index: pos(chunk, code, index))
    if not isinstance(statement, ImportModel) or match.group(1):
        at = pos(chunk, code, len(code) - len(code.lstrip()))
        raise SqlError("EXPLAIN takes IMPORT MODEL (not ANALYZE)", at.line, at.col)
    return ast.Explain(statement)


@dataclass
class Prepared:
    """A model read and checked: its tables, each table's entities, and the notes."""

    model: Model
    entities: dict[str, list[Entity]]  # table -> its facets' entities
    notes: list[str]

    @property
    def all_entities(self) -> list[Entity]:
        return [e for t in self.model.tables for e in self.entities[t.name]]


def prepare(path: str) -> Prepared:
    """The model file read, its tables, items and facets checked (no request)."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ExecutionError(f"cannot read the model {path}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise PlanError(f"{path} is not UTF-8 text ({err.reason})") from None
    model = read_model(text, path)
    notes = list(model.notes)
    entities: dict[str, list[Entity]] = {}
    for table in model.tables:
        entities[table.name], found = facet_entities(table)
        notes.extend(found)
    return Prepared(model, entities, notes)


# --- IMPORT MODEL ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportPlan:
    """What IMPORT MODEL will do: the model checked, and its tables there already (kept)."""

    prepared: Prepared
    kept: frozenset[str]


def _plan_import(ctx: Context, statement: ImportModel, _explaining: bool) -> Planned[ImportModel]:
    """The model read and checked against the endpoint (ListTables, DescribeTable): once,
    before the guards and the first change."""
    prepared = prepare(statement.path)
    return Planned(statement, ImportPlan(prepared, frozenset(_checked_against(ctx, prepared))))


def import_model(ctx: Context, planned: Planned[ImportModel]) -> Steps[Result]:
    """Each table by the CREATE TABLE kind, its items by the COPY FROM kind (each hands the
    pipeline its own changes, judged as IMPORT MODEL's), then the facets declared."""
    from dynosql.statements import kind_of

    started = time.monotonic()
    statement, plan = planned.statement, planned.plan
    prepared, kept = plan.prepared, plan.kept
    if (yield Ask()) is Verdict.DRY:  # --dry-run: the statements it would run, nothing sent
        result = _listing(statement, prepared, kept)
        result.rows = iter([*result.rows, {"plan": "-- dry run: nothing was sent"}])
        result.notes.extend(prepared.notes)
        return result
    loads: list[WriteStats] = []  # each load's, with its journal
    stats = Stats(capacity_estimated=ctx.estimating)
    written = 0
    with carried(stats):  # stopped midway: the session still learns of the loads' journals
        for table in prepared.model.tables:
            if table.name not in kept:
                kind = kind_of(table.create)
                created = yield from as_steps(kind.run(ctx, kind.plan(ctx, table.create, False)))
                stats.change(created.stats.take_changes())
            if not table.items:
                continue
            load = ast.CopyFrom(
                table=table.name,
                path=statement.path,
                format="dynamodb",
                items=table.items,
                again=_again(statement),
            )
            kind = kind_of(load)
            loaded = yield from as_steps(kind.run(ctx, kind.plan(ctx, load, False)))
            if loaded.changes.wrote is not None:
                loads.append(loaded.changes.wrote)
            stats.change(loaded.stats.take_changes())  # the last load: the session's last write
            written += loaded.stats.rows
            stats.requests += loaded.stats.requests
            stats.capacity += loaded.stats.capacity
    facets = _declared(ctx, prepared)
    declared = len(facets)
    journals = [w.journal for w in loads if w.journal]
    made = len(prepared.model.tables) - len(kept)
    wcu = format_capacity(stats.capacity)
    title = (
        f"IMPORT MODEL {statement.path}: {counted(made, 'table')} created"
        + (f" ({counted(len(kept), 'table')} kept)" if kept else "")
        + f", {counted(written, 'item')} written, {counted(declared, 'entity', 'entities')} "
        f"declared · {counted(stats.requests, 'BatchWriteItem call')} · "
        + (f"~{wcu} WCU est." if stats.capacity_estimated else f"{wcu} WCU")
        + f" · {time.monotonic() - started:.1f}s"
    )
    if len(journals) == 1:
        title += f" · journal {journals[0]}"
    result = Result.status(title, stats)
    result.change(Changes(declared=facets))  # the Session declares them
    result.notes.extend(prepared.notes)
    if len(journals) > 1:
        result.notes.append("journals of the items written: " + ", ".join(journals))
    if declared:
        result.notes.append(
            "the entities are declared for this session: SHOW CREATE ENTITY e prints one to "
            "keep in a schema file (--schema)"
        )
    return result


def _again(statement: ImportModel) -> str:
    """The statement that continues a load that stopped (it keeps the tables it made and puts
    their items again), and the one the journal records."""
    quoted = statement.path.replace("'", "''")
    return f"IMPORT MODEL '{quoted}'"


def _checked_against(ctx: Context, prepared: Prepared) -> set[str]:
    """The model's tables that exist as the model describes them (kept); a PlanError, before
    any change, for one that exists otherwise, or an entity that cannot be declared."""
    existing = set(ctx.port.table_names(fresh=True))
    kept = set()
    for table in prepared.model.tables:
        if table.name not in existing:
            continue
        there = ctx.table(table.name, fresh=True)  # as it is now: made again elsewhere?
        if _shape(there) != _shape(table.info):
            raise PlanError(
                f"IMPORT MODEL: table {table.name} exists with other keys or indexes "
                f"({_shape_text(there)}; the model's: {_shape_text(table.info)}); nothing was "
                f"sent (DROP TABLE {table.name} first, or import into another endpoint)"
            )
        kept.add(table.name)
    tables = existing | {t.name for t in prepared.model.tables}
    for entity in prepared.all_entities:
        if entity.name in tables:
            raise PlanError(
                f"IMPORT MODEL: facet {entity.name} has a table's name, and an entity needs a "
                "name of its own; nothing was sent"
            )
        declared = ctx.entities.get(entity.name)
        if declared is not None and declared.text() != entity.text():
            raise PlanError(
                f"IMPORT MODEL: entity {entity.name} is declared otherwise (SHOW CREATE ENTITY "
                f"{entity.name}); nothing was sent (DROP ENTITY {entity.name} first)"
            )
    return kept


def _shape(info: TableInfo) -> tuple[Any, ...]:
    indexes = sorted(
        (ix.name or "", ix.kind, ix.keys, ix.projection, tuple(sorted(ix.included)))
        for ix in info.indexes
    )
    return info.keys, tuple(indexes)


def _shape_text(info: TableInfo) -> str:
    def keys(path: Any) -> str:
        k = path.keys
        return f"{k.pk} {k.pk_type}" + (f", {k.sk} {k.sk_type}" if k.sk else "")

    text = f"key {keys(info)}"
    for ix in info.indexes:
        text += f"; {ix.kind.upper()} {ix.name} ({keys(ix)}) {ix.projection}"
    return text


def _listing(statement: ImportModel, prepared: Prepared, kept: frozenset[str]) -> Result:
    """The statements IMPORT MODEL runs, in order, as SQL (the items as a comment)."""
    model = prepared.model
    lines = [
        f"-- IMPORT MODEL '{statement.path}': {counted(len(model.tables), 'table')}, "
        f"{counted(sum(len(t.items) for t in model.tables), 'item')}, "
        f"{counted(len(prepared.all_entities), 'entity', 'entities')}"
    ]
    for table in model.tables:
        if table.name in kept:
            lines.append(f"-- {table.name} exists with the model's keys and indexes: kept")
        else:
            lines.extend(show_create(table.params).splitlines())
        if table.items:
            lines.append(f"-- then {_load_text(table)}")
    for entity in prepared.all_entities:
        lines.extend(entity.text().splitlines())
    return Result.plan(lines)


def _load_text(table: ModelTable) -> str:
    wcu = sum(
        (cost.item_write(None, item, table.info, values.item_size).total for item in table.items),
        Decimal(0),
    )
    calls = -(-len(table.items) // 25)
    return (
        f"{counted(len(table.items), 'item')} into {table.name}: BatchWriteItem, "
        f"{counted(calls, 'call')}, ~{format_capacity(wcu)} WCU est."
    )


def _explain_import(ctx: Context, planned: Planned[ImportModel], _analyze: bool) -> Result:
    plan = planned.plan
    result = _listing(planned.statement, plan.prepared, plan.kept)
    result.notes.extend(plan.prepared.notes)
    return result


# --- EXPORT MODEL ----------------------------------------------------------------------------


def _plan_export(ctx: Context, statement: ExportModel, _explaining: bool) -> Planned[ExportModel]:
    """A Scan of each table (every table when none is named): the guards judge each one
    before the first is sent."""
    names = statement.tables or tuple(ctx.table_names())
    if not names:
        raise PlanError("EXPORT MODEL: there is no table to export")
    for name in names:  # the model records each table as it is now (as SHOW CREATE TABLE)
        ctx.table(name, fresh=True)
    plans = tuple(ctx.full_scan_plan(name) for name in names)
    return Planned(statement, plans, tuple(ScanCheck(p, what="EXPORT MODEL") for p in plans))


def export_model(ctx: Context, planned: Planned[ExportModel]) -> Result:
    statement = planned.statement
    stats = Stats(capacity_estimated=ctx.estimating)
    tables = []
    for plan in planned.plan:
        entities = tuple(ctx.entities.on(plan.table.name))
        items = _read(ctx, plan, stats, entities, statement.sample)
        tables.append(Exported(plan.table.raw, entities, tuple(items)))
    endpoint = ctx.write_target().get("endpoint", "")
    document = model_document(
        Path(statement.path).stem,
        tables,
        f"Exported by dynosql {__version__} from {endpoint}".strip(),
        datetime.now(),
    )
    _write(statement.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    stats.finish()
    facets = sum(len(t.entities) for t in tables)
    written = sum(len(t.items) for t in tables)
    title = (
        f"EXPORT MODEL → {statement.path}: {counted(len(tables), 'table')}, "
        f"{counted(facets, 'facet')}, {counted(written, 'item')} · {stats.footer(rows=False)}"
    )
    return Result.status(title, stats)


def _read(
    ctx: Context, plan: Plan, stats: Stats, entities: tuple[Entity, ...], sample: int | None
) -> list[dict[str, Any]]:
    """The table's items: all of them, or at most `sample` of each entity and of no entity
    (the Scan stops once it has them)."""
    items = ctx.read(plan, stats)
    if sample is None:
        return list(items)
    kept: list[dict[str, Any]] = []
    counts: dict[str | None, int] = {e.name: 0 for e in entities}
    counts[None] = 0
    for item in items:
        found = owner(entities, item)
        name = None if found is None else found.name
        if counts[name] < sample:
            counts[name] += 1
            kept.append(item)
            if all(n >= sample for n in counts.values()):
                break
    return kept


def _write(path: str, text: str) -> None:
    folder, name = os.path.split(path)
    part = os.path.join(folder, f".{name}.part")
    try:
        with open(part, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(part, path)
    except OSError as err:
        raise ExecutionError(f"cannot write {path}: {err.strerror or err}") from err
    finally:
        if os.path.exists(part):
            os.unlink(part)


# --- --local --model -------------------------------------------------------------------------


class Embedded(Protocol):
    """What `load_local` needs of the embedded server (`dynosql.local.embedded.LocalDynamo`)."""

    def make_table(self, table: dict[str, Any]) -> None: ...

    def put_items(self, table: str, items: Any) -> int: ...

    def prepare_exports(self, tables: list[str]) -> None: ...


def load_local(ctx: Context, server: Embedded, path: str) -> tuple[list[str], tuple[Entity, ...]]:
    """The embedded server made with a model's tables and items; the notes on what was left
    out, and its facets as entities, for the Session to declare. The tables are made on the
    server, not through the port: the Session has the port forget its catalog after."""
    prepared = prepare(path)
    kept = _checked_against(ctx, prepared)  # made by another --model, as IMPORT MODEL keeps one
    for table in prepared.model.tables:
        if table.name not in kept:
            server.make_table(table.params)
        server.put_items(table.name, table.items)
    server.prepare_exports([t.name for t in prepared.model.tables])
    return prepared.notes, _declared(ctx, prepared)


def _declared(ctx: Context, prepared: Any) -> tuple[Entity, ...]:
    """The model's facets as entities, checked, those not declared already (by name)."""
    declared: list[Entity] = []
    for entity in prepared.all_entities:
        if ctx.entities.get(entity.name) is None:
            source = ast.CreateEntity(entity, source=entity.text())
            declared.append(declare(ctx, source, declared)[0])
    return tuple(declared)


STARTERS = (
    Starter(
        "IMPORT",
        "IMPORT MODEL",
        "model",
        explain=True,
        parser=parse_model_statement,
        explainer=explain,
    ),
    Starter("EXPORT", "EXPORT MODEL", "model", parser=parse_model_statement),
)
KINDS: dict[type, Kind[Any]] = {
    ImportModel: Kind(
        named("IMPORT MODEL"),
        import_model,
        lambda _s: Effects(writes=True, schema=True, rollback=False),
        _explain_import,
        plan=_plan_import,
        example=("EXPORT MODEL {t} TO '{dir}/model.json'", "IMPORT MODEL '{dir}/model.json'"),
    ),
    ExportModel: Kind(
        named("EXPORT MODEL"),
        export_model,
        lambda _s: READS,
        plan=_plan_export,
        example=("EXPORT MODEL {t} TO '{dir}/out.json'",),
    ),
}
