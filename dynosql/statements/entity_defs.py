"""CREATE ENTITY, DROP ENTITY, SHOW ENTITIES (the declared ones), SHOW CREATE ENTITY and
DESCRIBE of an entity; and schema files (``--schema FILE``, ``schema = [...]`` in the config),
which declare their CREATE ENTITY statements when a session starts.

Entities are client-side definitions: these statements send nothing but DescribeTable (and a
cached ListTables), change nothing in DynamoDB, and so declare no effects: ``--read-only``
lets them run (it guards DynamoDB, not the session's own definitions), and inside BEGIN …
COMMIT they run at once (there is nothing to roll back).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql.entities.check import check
from dynosql.entity_model import Entity, literal_text
from dynosql.errors import DynosqlError, PlanError, SqlError
from dynosql.guards import Ask, Steps, Verdict
from dynosql.result import Changes, Result
from dynosql.sql import ast
from dynosql.sql.split import Chunk, strip_comments
from dynosql.statements.kind import EXAMPLE_ENTITY, Kind, Planned, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.statements.show import Describe


def _at(pos: ast.Pos, message: str) -> PlanError:
    return PlanError(message, pos.line, pos.col) if pos.line else PlanError(message)


def entity_of(ctx: Context, name: str, pos: ast.Pos = ast.NOWHERE) -> Entity:
    """A declared entity, or a PlanError that names the ones there are."""
    found = ctx.entities.get(name)
    if found is not None:
        return found
    from dynosql.sql.spelling import closest

    names = ctx.entities.names()
    near = closest(name, names)
    guess = f"; did you mean {' or '.join(near)}?" if near else ""
    listing = ", ".join(names) if names else "none declared (CREATE ENTITY, or --schema FILE)"
    raise _at(pos, f"no entity named {name}{guess} (entities: {listing})")


def declare(
    ctx: Context, statement: ast.CreateEntity, alongside: Iterable[Entity] = ()
) -> tuple[Entity, list[str]]:
    """A CREATE ENTITY checked against its table and the entities declared (and `alongside`:
    those declared with it, by one schema file or model): the entity to declare (the
    Session does, from `Result.changes`) and the warnings to show."""
    entity: Entity = statement.entity
    if ctx.entities.get(entity.name) is not None:
        raise _at(
            statement.pos,
            f"entity {entity.name} exists: DROP ENTITY {entity.name} first "
            f"(SHOW CREATE ENTITY {entity.name} shows it)",
        )
    try:
        table = ctx.table(entity.table)
    except PlanError as err:
        raise _at(statement.table_pos, err.message) from None
    if entity.name in ctx.port.table_names():
        raise _at(
            statement.pos,
            f"{entity.name} is a table: an entity needs a name of its own (FROM {entity.name} "
            "would read one of them)",
        )
    others = [*ctx.entities.on(entity.table), *(e for e in alongside if e.table == entity.table)]
    return check(entity, table, others)


def _create(ctx: Context, statement: ast.CreateEntity) -> Steps[Result]:
    entity, warnings = declare(ctx, statement)
    columns = ", ".join(entity.columns) or "none"
    title = f"CREATE ENTITY {entity.name} on {entity.table} (key columns: {columns})"
    schema = ctx.entities.schema_file
    if schema is not None:  # the pipeline offers it to a person at the REPL, else keeps it
        offer = f"append CREATE ENTITY {entity.name} to {schema}?"
        if (yield Ask(offer=offer)) is Verdict.GO:
            _append(schema, statement.source or entity.text())
            title += f"; appended to {schema}"
    result = Result.status(title, warnings=warnings)
    result.change(Changes(declared=(entity,)))
    return result


def _explain_create(ctx: Context, planned: Planned[ast.CreateEntity], _analyze: bool) -> Result:
    """The entity CREATE ENTITY would declare, checked as it would be (the table, the
    entities declared: their warnings too); nothing is declared."""
    entity, warnings = declare(ctx, planned.statement)
    head = (
        f"CREATE ENTITY {entity.name} on table {entity.table}: declares it in this session; "
        "no request, no item written"
    )
    lines = [head, *_definition(entity)]
    schema = ctx.entities.schema_file
    if schema is not None:
        lines.append(f"then: the REPL offers to append it to {schema}")
    result = Result.plan(lines, _document(entity))
    result.warnings.extend(warnings)
    return result


def _explain_drop(ctx: Context, planned: Planned[ast.DropEntity], _analyze: bool) -> Result:
    """The entity DROP ENTITY would forget; nothing is dropped."""
    statement = planned.statement
    if ctx.entities.get(statement.name) is None and statement.missing_ok:
        nothing = f"DROP ENTITY: no entity named {statement.name}, nothing to do"
        return Result.plan([nothing], {"requests": []})
    entity = entity_of(ctx, statement.name, statement.pos)
    head = (
        f"DROP ENTITY {entity.name} on table {entity.table}: forgets it in this session; no "
        f"request, no item touched (FROM {entity.table} still reads them)"
    )
    lines = [head, *_definition(entity)]
    origin = ctx.entities.origin.get(entity.name)
    if origin is not None:
        offered = _declared_in(origin, entity.name) is not None
        lines.append(
            f"then: {origin} still declares it at the next start"
            + (" (the REPL offers to remove it)" if offered else "")
        )
    return Result.plan(lines, _document(entity))


def _document(entity: Entity) -> dict[str, Any]:
    """EXPLAIN's JSON of a definition: no request, and the entity as SHOW CREATE ENTITY says it."""
    return {"requests": [], "entity": entity.name, "table": entity.table, "text": entity.text()}


def _definition(entity: Entity) -> list[str]:
    """An entity's templates, index conditions, constants and membership, a line each."""
    lines = [f"  key: {', '.join(t.text() for t in entity.key.templates)}"]
    for access in entity.indexes:
        holding = f", holding the items WHERE {access.where_text}" if access.where_text else ""
        lines.append(
            f"  index {access.index}: {', '.join(t.text() for t in access.templates)}{holding}"
        )
    lines += [f"  constant: {n} = {literal_text(v)}" for n, v in entity.constants]
    return [*lines, f"  membership: {_membership(entity)}"]


def _membership(entity: Entity) -> str:
    return (
        f"an item is one of {entity.name}'s when "
        + " and ".join(_fits(t.text()) for t in entity.key.templates)
        + "".join(f" and {n} = {literal_text(v)}" for n, v in entity.constants)
    )


def _append(path: Path, text: str) -> None:
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        with path.open("a", encoding="utf-8") as f:
            if before and not before.endswith("\n"):
                f.write("\n")
            f.write(("\n" if before.strip() else "") + text.rstrip().rstrip(";") + ";\n")
    except OSError as err:
        raise DynosqlError(f"cannot append to the schema file {path}: {err.strerror}") from None


def _drop(ctx: Context, statement: ast.DropEntity) -> Steps[Result]:
    if ctx.entities.get(statement.name) is None:
        if statement.missing_ok:
            return Result.status(f"DROP ENTITY: no entity named {statement.name}, nothing done")
        entity_of(ctx, statement.name, statement.pos)
    title = f"DROP ENTITY {statement.name}: the definition is gone (no item was touched)"
    origin = ctx.entities.origin.get(statement.name)
    if origin is not None:  # the pipeline offers it to a person at the REPL, else keeps it
        span = _declared_in(origin, statement.name)
        offer = f"remove CREATE ENTITY {statement.name} from {origin}?"
        if span is not None and (yield Ask(offer=offer)) is Verdict.GO:
            _cut(origin, *span)
            title += f"; removed from {origin}"
        else:
            title += f"; {origin} still declares it at the next start"
    result = Result.status(title)
    result.change(Changes(dropped=(statement.name,)))
    return result


def _show(ctx: Context, _statement: ast.ShowDeclaredEntities) -> Result:
    rows = []
    for entity in ctx.entities.all():
        rows.append(
            {
                "entity": entity.name,
                "table": entity.table,
                "key": ", ".join(t.text() for t in entity.key.templates),
                "indexes": ", ".join(str(a.index) for a in entity.indexes) or "none",
                "constants": ", ".join(f"{n} = {literal_text(v)}" for n, v in entity.constants)
                or "none",
            }
        )
    result = Result(["entity", "table", "key", "indexes", "constants"], iter(rows))
    if not rows:
        result.notes.append(
            "no entity declared: CREATE ENTITY, or start with --schema FILE "
            "(SHOW ENTITIES FROM table proposes some from a table's keys)"
        )
    return result


def _show_create(ctx: Context, statement: ast.ShowCreateEntity) -> Result:
    entity = entity_of(ctx, statement.name, statement.pos)
    return Result(["statement"], iter([{"statement": entity.text()}]))


def describe_entity(ctx: Context, statement: ast.DescribeEntity | Describe) -> Result:
    """One row per template a column is in (its key role and attribute), then the constants;
    what membership and each index hold, as notes."""
    name = statement.name if isinstance(statement, ast.DescribeEntity) else statement.table
    entity = entity_of(ctx, name, statement.pos)
    rows: list[dict[str, Any]] = []
    for access in entity.accesses:
        where = "table" if access.index is None else str(access.index)
        for role, template in zip(("partition", "sort"), access.templates, strict=False):
            for column in template.columns or ("",):
                rows.append(
                    {
                        "column": column,
                        "key": f"{where} ({role})",
                        "attribute": template.attribute,
                        "template": template.text().split(" = ", 1)[1],
                    }
                )
    for attribute, value in entity.constants:
        rows.append(
            {
                "column": "",
                "key": "constant",
                "attribute": attribute,
                "template": literal_text(value),
            }
        )
    result = Result(["column", "key", "attribute", "template"], iter(rows))
    result.title = f"entity {entity.name} on table {entity.table}"
    result.notes.append(
        f"membership: {_membership(entity)}; any other attribute is a column by its own name"
    )
    for access in entity.indexes:
        if access.where_text:
            result.notes.append(f"index {access.index} holds the items WHERE {access.where_text}")
    return result


def _fits(template_text: str) -> str:
    attribute, shape = template_text.split(" = ", 1)
    return f"{attribute} fits {shape}"


# --- schema files ----------------------------------------------------------------------------


def _declared_in(path: Path, name: str) -> tuple[int, int] | None:
    """Where a schema file's CREATE ENTITY `name` stands (from its first word to its end,
    without its `;`), or None: not declared there (any more), or not a schema file (a NoSQL
    Workbench model's JSON) or one that no longer reads."""
    from dynosql.sql import parse_chunk, split_script

    try:
        text = path.read_text(encoding="utf-8-sig")
        for chunk in split_script(text):
            statement = parse_chunk(chunk)
            if isinstance(statement, ast.CreateEntity) and statement.entity.name == name:
                code = strip_comments(chunk.text)
                start = _offset(text, chunk.line, chunk.col)
                return start + len(code) - len(code.lstrip()), start + len(chunk.text)
    except (OSError, DynosqlError):
        return None
    return None


def _offset(text: str, line: int, col: int) -> int:
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + col - 1


def _cut(path: Path, start: int, end: int) -> None:
    """The file without the statement at `start`:`end`, its `;` and the blank line before it
    (comments stay: they may say more than the statement)."""
    try:
        raw = path.read_text(encoding="utf-8")
        bom = "\ufeff" if raw.startswith("\ufeff") else ""
        text = raw.removeprefix(bom)
        before = text[:start].rstrip(" \t")
        after = text[end:].removeprefix(";")
        after = after.lstrip(" \t").removeprefix("\n")
        if before.endswith("\n\n") and (not after or after.startswith("\n")):
            before = before[:-1]
        path.write_text(bom + before + after, encoding="utf-8")
    except OSError as err:
        raise DynosqlError(f"cannot edit the schema file {path}: {err.strerror}") from None


def load_schema(ctx: Context, path: Path) -> list[Entity]:
    """The entities the CREATE ENTITY statements of a schema file declare, checked (nothing
    else is allowed in one: it runs at every start); the Session declares them. An error
    names the file, line and column."""
    from dynosql.sql import parse_chunk, split_script

    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise DynosqlError(f"cannot read the schema file {path}: {err.strerror}") from None
    declared: list[Entity] = []
    try:
        for chunk in split_script(text):
            statement = parse_chunk(chunk)
            if not isinstance(statement, ast.CreateEntity):
                raise SqlError("a schema file holds CREATE ENTITY statements only", *_start(chunk))
            if any(e.name == statement.entity.name for e in declared):
                raise SqlError(f"entity {statement.entity.name} is declared twice", *_start(chunk))
            declared.append(declare(ctx, statement, declared)[0])
    except DynosqlError as err:
        raise type(err)(f"{path}: {err}") from None
    return declared


def _start(chunk: Chunk) -> tuple[int, int]:
    """Where a statement's first word is in its script."""
    code = strip_comments(chunk.text)
    at = len(code) - len(code.lstrip())
    line = code.count("\n", 0, at) + 1
    return chunk.to_script(line, at - (code.rfind("\n", 0, at) + 1) + 1)


KINDS: dict[type, Kind[Any]] = {
    ast.CreateEntity: Kind(
        named("CREATE ENTITY"),
        unplanned(_create),
        explain=_explain_create,
        example=(EXAMPLE_ENTITY,),
    ),
    ast.DropEntity: Kind(
        named("DROP ENTITY"),
        unplanned(_drop),
        explain=_explain_drop,
        example=(EXAMPLE_ENTITY, "DROP ENTITY e_{t}"),
    ),
    ast.ShowDeclaredEntities: Kind(
        named("SHOW ENTITIES"), unplanned(_show), example=(EXAMPLE_ENTITY, "SHOW ENTITIES")
    ),
    ast.ShowCreateEntity: Kind(
        named("SHOW CREATE ENTITY"),
        unplanned(_show_create),
        example=(EXAMPLE_ENTITY, "SHOW CREATE ENTITY e_{t}"),
    ),
    ast.DescribeEntity: Kind(
        named("DESCRIBE"), unplanned(describe_entity), example=(EXAMPLE_ENTITY, "DESCRIBE e_{t}")
    ),
}
