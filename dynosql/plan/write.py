"""Write plans: INSERT / UPSERT / REPLACE / UPDATE / DELETE → the reads that find the keys and
the write requests, priced. Pure: no I/O, never imports boto3.

- INSERT → one PutItem per row with ``attribute_not_exists(<pk>)``: an existing key is never
  overwritten. BatchWriteItem cannot carry a condition, so INSERT never uses it.
- UPSERT / REPLACE → PutItem without a condition, ReturnValues ALL_OLD (the journal's old
  image); BatchWriteItem (25 a call) when there is no journal and no RETURNING.
- UPDATE / DELETE with the full primary key by equality (or IN) → one conditional write per
  key, no read. Otherwise the SELECT planner finds the items (through an index when exact),
  then one conditional write per item. The read returns whole items wherever they cost no more
  RCU than keys (the base table, an index projecting ALL: DynamoDB bills by item size, not by
  projection), so each write's journal intent holds the item as read and undo can restore a
  write whose answer was lost; a KEYS_ONLY or INCLUDE index keeps its keys-only read. Each
  write's condition is ``attribute_exists(<pk>) AND <the WHERE>`` (the conjuncts DynamoDB can
  evaluate), so an item changed by someone else between the read and the write is skipped,
  never clobbered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.errors import PlanError
from dynosql.plan import cost
from dynosql.plan.expressions import (
    MAX_EXPRESSION_BYTES,
    Placeholders,
    condition_text,
    expressible,
    paths_in,
)
from dynosql.plan.model import Plan, Request, _jsonable
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.schema import TableInfo
from dynosql.result import plural
from dynosql.sql import ast
from dynosql.sql.text import sql_text

MAX_ITEM_BYTES = 400 * 1024
BATCH_WRITE_ITEMS = 25
MAX_TRANSACTION_ACTIONS = 100
SHOWN_REQUESTS = 3


@dataclass(frozen=True)
class WriteOptions:
    read: Options = field(default_factory=Options)
    journal: bool = True  # old images are needed: PutItem with ALL_OLD rather than a batch
    transactional: bool = False  # inside BEGIN … COMMIT: priced at 2x


@dataclass
class WriteEstimate:
    items: int  # items written (at most, when a read finds them)
    rcu: Decimal  # the read that finds the keys
    wcu: Decimal
    exact: bool = False  # the items are known (VALUES, keys by equality)

    def text(self) -> str:
        n = f"{self.items}" if self.exact else f"up to ~{self.items}"
        rcu = format(self.rcu.normalize(), "f")
        wcu = format(self.wcu.normalize(), "f")
        return f"{n} {plural(self.items, 'item')}, ~{rcu} RCU read + ~{wcu} WCU written"


@dataclass
class WritePlan:
    statement: ast.Insert | ast.Update | ast.Delete | ast.ConditionCheck
    table: TableInfo
    verb: str  # INSERT UPSERT REPLACE UPDATE DELETE EXISTS
    operation: str  # PutItem UpdateItem DeleteItem BatchWriteItem ConditionCheck
    template: dict[str, Any]  # one write's parameters, less Key (or Item)
    estimate: WriteEstimate
    read: Plan | None = None  # finds the keys; None when they are known
    keys: list[dict[str, Any]] | None = None  # decoded keys, when known without a read
    items: list[dict[str, Any]] | None = None  # decoded items to put (INSERT/UPSERT … VALUES)
    source: Plan | None = None  # INSERT … SELECT: the read of the source rows
    unchecked: list[str] = field(default_factory=list)  # WHERE parts not in the condition
    # a non-idempotent UPDATE: the paths each write is conditioned on (their values as read)
    guards: tuple[ast.Path, ...] = ()
    # the paths the unchecked WHERE parts read: each write also requires their values as read,
    # so an item that stopped matching those parts after the read is skipped (plan.as_read)
    as_read: tuple[ast.Path, ...] = ()
    # the read returns whole items (it costs no more than keys: `_whole_items`): each write's
    # intent line carries the item as read and as the write leaves it, so a write whose answer
    # is lost (or whose process is killed in flight) can still be undone (journal, undo)
    whole_items: bool = False
    warnings: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """put, update, delete or check (nothing: a transaction's condition): what happens to
        each item."""
        kinds = {"UpdateItem": "update", "DeleteItem": "delete", "ConditionCheck": "check"}
        return kinds.get(self.operation, "put")

    @property
    def is_scan(self) -> bool:
        return any(p is not None and p.is_scan for p in (self.read, self.source))

    @property
    def reads_items(self) -> bool:
        """Whether each write gets the item the read found (its values go into the write's
        condition, or its intent line), not only its key."""
        return bool(self.guards or self.as_read or self.whole_items)

    @property
    def as_read_paths(self) -> tuple[ast.Path, ...]:
        """Every path a write requires as read (guards and as_read), none inside another."""
        return outermost((*self.guards, *self.as_read))

    @property
    def conditional(self) -> bool:
        return "ConditionExpression" in self.template

    def request(self, item_or_key: dict[str, Any]) -> dict[str, Any]:
        """The parameters of one write: a PutItem's Item, or the others' Key (of the key or
        the whole item the read found)."""
        if self.operation == "PutItem":
            return {**self.template, "Item": values.encode_item(item_or_key)}
        return {**self.template, "Key": values.encode_item(self.key_of(item_or_key))}

    def key_of(self, item: dict[str, Any]) -> dict[str, Any]:
        return {n: item[n] for n in self.table.keys.names}

    def requests(self) -> list[Request]:
        """The concrete requests when the keys or items are known (EXPLAIN, fixtures)."""
        known = self.items if self.items is not None else self.keys
        if known is None:
            return []
        if self.operation == "BatchWriteItem":
            out = []
            for start in range(0, len(known), BATCH_WRITE_ITEMS):
                chunk = known[start : start + BATCH_WRITE_ITEMS]
                puts = [{"PutRequest": {"Item": values.encode_item(i)}} for i in chunk]
                out.append(
                    Request(
                        "BatchWriteItem",
                        {"RequestItems": {self.table.name: puts}, **self.template},
                    )
                )
            return out
        return [Request(self.operation, self.request(k)) for k in known]

    @property
    def label(self) -> str:
        how = {
            "PutItem": "PutItem per row",
            "UpdateItem": "UpdateItem per item",
            "DeleteItem": "DeleteItem per item",
            "BatchWriteItem": "BatchWriteItem, 25 rows a call",
            "ConditionCheck": "a ConditionCheck of the transaction",
        }[self.operation]
        if self.conditional:
            how += " (conditional)"
        return f"{self.verb} {self.table.name}: {how}"

    def document(self, read_document: dict[str, Any] | None = None) -> dict[str, Any]:
        """The plan as JSON data (EXPLAIN --format json)."""
        return {
            "statement": self.verb,
            "table": self.table.name,
            "operation": self.operation,
            "read": read_document,
            "write": _jsonable(self.template),
            "requests": [
                {"operation": r.operation, "params": _jsonable(r.params)}
                for r in self.requests()[:SHOWN_REQUESTS]
            ],
            "unchecked": list(self.unchecked),
            "required_as_read": [p.text for p in self.as_read],
            "client_steps": list(self.steps),
            "warnings": list(self.warnings),
            "estimate": {
                "items": self.estimate.items,
                "exact": self.estimate.exact,
                "rcu": format(self.estimate.rcu.normalize(), "f"),
                "wcu": format(self.estimate.wcu.normalize(), "f"),
            },
        }

    def lines(self, read_lines: list[str] | None = None) -> list[str]:
        """EXPLAIN for people: the read (when one finds the keys), then the writes."""
        out = [self.label, f"estimate: {self.estimate.text()}"]
        if read_lines is not None:
            what = "the keys"
            if self.source is not None:
                what = "the source rows"
            elif self.whole_items:
                what = "whole items"
            out.append(f"read ({what}):")
            out.extend("  " + line for line in read_lines)
        concrete = self.requests()
        if concrete:
            for i, request in enumerate(concrete[:SHOWN_REQUESTS], 1):
                title = "write" if len(concrete) == 1 else f"write {i} of {len(concrete)}"
                out.append(f"{title}:")
                out.extend("  " + line for line in request.code().splitlines())
            if len(concrete) > SHOWN_REQUESTS:
                out.append(f"… and {len(concrete) - SHOWN_REQUESTS} more writes like these")
        elif self.read is not None or self.source is not None:
            field_name = "Item" if self.operation == "PutItem" else "Key"
            out.append(
                f"then, for each {'row' if self.source else 'item' if self.whole_items else 'key'} "
                f"found ({field_name} filled in, 8 at a time):"
            )
            text = Request(self.operation, {**self.template, field_name: "…"}).code()
            out.extend("  " + line for line in text.splitlines())
        if self.unchecked:
            shown = ", ".join(p.text for p in self.as_read)
            out.append(
                f"note: {' AND '.join(self.unchecked)} is checked when reading (DynamoDB cannot "
                f"evaluate it); each write also requires {shown} as read, so an item whose "
                f"{shown} changed after the read is skipped, even if it still matches"
            )
        if self.steps:
            out.append("how:")
            out.extend(f"  - {s}" for s in self.steps)
        out.extend(f"warning: {w}" for w in self.warnings)
        return out


# --- entry points --------------------------------------------------------------------------------


def plan_write(
    statement: ast.Insert | ast.Update | ast.Delete | ast.ConditionCheck,
    table: TableInfo,
    options: WriteOptions = WriteOptions(),
    source: TableInfo | None = None,
) -> WritePlan:
    """The plan of a bound write statement (`source`: INSERT … SELECT's table), or of a
    transaction's condition check: its class's planner."""
    return _PLANNERS[type(statement)](statement, table, options, source)


def _plan_check(
    statement: ast.ConditionCheck,
    table: TableInfo,
    options: WriteOptions,
    _source: TableInfo | None = None,
) -> WritePlan:
    """PartiQL's ``EXISTS(SELECT …)``: one item by its full primary key, and a condition that
    it exists and matches the rest of the WHERE (a ConditionCheck: nothing is written)."""
    select = statement.select
    pos = select.table_pos
    if select.index is not None:
        raise _at(pos, "EXISTS(SELECT …) checks an item of a table, not of an index")
    keyed = replace(
        select, items=tuple(ast.SelectItem(ast.Path((k,), k)) for k in table.keys.names)
    )
    read = plan_select(keyed, table, options.read)
    if read.operation != "GetItem":
        raise _at(
            pos,
            "EXISTS(SELECT …) checks one item: its WHERE gives the full primary key by "
            f"equality ({' AND '.join(f'{k} = …' for k in table.keys.names)}), then any other "
            "conditions",
        )
    kept, unchecked = _condition_parts(select.where)
    if unchecked:
        raise _at(
            pos,
            f"EXISTS(SELECT …): DynamoDB cannot check {sql_text(unchecked[0])} in a condition",
        )
    ph = Placeholders()
    exists = ast.Function("attribute_exists", ast.Path((table.keys.pk,), table.keys.pk))
    template: dict[str, Any] = {
        "TableName": table.name,
        "ConditionExpression": condition_text(ast.And((exists, *kept)), ph),
    }
    ph.into(template)
    keys = _keys_of(read, table)
    estimate = WriteEstimate(len(keys), Decimal(0), Decimal(0), exact=True)
    plan = WritePlan(statement, table, "EXISTS", "ConditionCheck", template, estimate, keys=keys)
    plan.steps.append(
        "the transaction is cancelled, nothing written, unless the item exists and matches"
    )
    return plan


# --- INSERT / UPSERT / REPLACE ---------------------------------------------------------------


def _plan_insert(
    statement: ast.Insert, table: TableInfo, options: WriteOptions, source: TableInfo | None
) -> WritePlan:
    if statement.skip_missing_index_keys and statement.prepare is None:
        raise _at(
            statement.table_pos,
            f"ON MISSING INDEX KEY SKIP is for an INSERT INTO an entity; {table.name} is a table",
        )
    if statement.rows and not statement.columns:
        statement = replace(statement, columns=_positional_columns(statement, table))
    ph = Placeholders()
    template: dict[str, Any] = {"TableName": table.name}
    if not statement.replace:
        template["ConditionExpression"] = f"attribute_not_exists({ph.name(table.keys.pk)})"
    elif options.journal or statement.returning is not None:
        template["ReturnValues"] = "ALL_OLD"
    template["ReturnConsumedCapacity"] = "TOTAL"
    ph.into(template)
    items: list[dict[str, Any]] | None = None
    read = None
    if statement.select is not None:
        if source is None:
            raise PlanError("INSERT … SELECT needs the source table")
        read = plan_select(statement.select, source, options.read)
        n = read.estimate.items
        per_item = cost.estimated_write_units(
            table, table.average_item_size, None, options.transactional
        )
        estimate = WriteEstimate(n, read.estimate.rcu, per_item * n)
    else:
        items = []
        for n, row in enumerate(statement.rows, 1):
            item, _size = _row_item(statement, n, row, table)
            items.append(item)
        _no_repeats(items, table, statement)
        # exact for new items: the table's units and the indexes each one goes into
        charges = [
            cost.item_write(None, item, table, values.item_size, options.transactional)
            for item in items
        ]
        wcu = sum((charge.total for charge in charges), Decimal(0))
        estimate = WriteEstimate(len(items), Decimal(0), wcu, exact=True)
    operation = "PutItem"
    batch = (
        statement.replace
        and not options.journal
        and statement.returning is None
        and not options.transactional
        and (items is None or len(items) > 1)
    )
    if batch:
        operation = "BatchWriteItem"
        template = {"ReturnConsumedCapacity": "TOTAL"}
    plan = WritePlan(statement, table, statement.verb, operation, template, estimate, items=items)
    plan.source = read
    if not statement.replace:
        plan.steps.append(
            "a row whose key exists is not written: counted and reported"
            + (" (ON CONFLICT DO NOTHING: not an error)" if statement.ignore_existing else "")
        )
        plan.steps.append("BatchWriteItem cannot carry a condition: one PutItem per row")
    elif batch:
        plan.steps.append("unprocessed items are sent again with backoff")
    if read is not None:
        plan.warnings.extend(read.warnings)
    return plan


def _positional_columns(statement: ast.Insert, table: TableInfo) -> tuple[str, ...]:
    """``INSERT INTO t VALUES (…)`` without column names: the values fill the table's key
    attributes in key order (partition key, then sort key), the only attributes every item
    has and whose order DynamoDB fixes. Anything wider must name its columns."""
    keys = table.keys.names
    width = len(statement.rows[0])
    if width == len(keys):
        return keys
    named = ", ".join(keys)
    raise _at(
        statement.table_pos,
        f"{statement.verb} INTO {table.name} VALUES without column names fills the key "
        f"({named}): {len(keys)} value{'s' if len(keys) > 1 else ''}, not {width}; name the "
        f"columns: {statement.verb} INTO {table.name} ({named}, …) VALUES (…)",
    )


def source_item(statement: ast.Insert, row: dict[str, Any]) -> dict[str, Any]:
    """INSERT … SELECT: one source row as the item to put. With a column list, the n-th
    named column takes the n-th column *of the select list* (the parser has checked the
    counts); a value the source item lacks stays absent, so it never shifts a later value into
    its column. Without one, the row is the item."""
    select = statement.select
    if not statement.columns or select is None or select.items is None:
        out = dict(row)
    else:
        out = {}
        for column, selected in zip(statement.columns, select.items, strict=True):
            if selected.name in row:  # select-list names are unique (the parser refuses repeats)
                out[column] = row[selected.name]
    return out if statement.prepare is None else statement.prepare(out)


def _row_item(
    statement: ast.Insert, n: int, row: tuple[Any, ...], table: TableInfo
) -> tuple[dict[str, Any], int]:
    """A VALUES row as an item, checked, and its size."""
    item: dict[str, Any] = {}
    for name, cell in zip(statement.columns, row, strict=True):
        if not isinstance(cell, ast.Literal):
            raise PlanError(f"no value for {name}")
        item[name] = cell.value
    try:
        if statement.prepare is not None:  # an entity's row: its keys composed
            item = statement.prepare(item)
        size = values.item_size(item)
        return check_item(item, table, size=size), size
    except PlanError as err:
        where = f"row {n}: " if len(statement.rows) > 1 else ""
        pos = statement.table_pos
        raise _at(pos, f"{where}{err.message}") from None


def check_item(
    item: dict[str, Any], table: TableInfo, pos: ast.Pos = ast.NOWHERE, *, size: int | None = None
) -> dict[str, Any]:
    """An item that DynamoDB will accept for `table`, or a PlanError saying why not: the
    primary key present, the table's and every index's key attributes of their declared types
    and sizes, no empty set, at most 400 KB (`size`: the item's, when already known)."""
    keys = table.keys
    for name, key_type, role in (
        (keys.pk, keys.pk_type, "partition"),
        (keys.sk, keys.sk_type, "sort"),
    ):
        if name is None:
            continue
        if name not in item:
            raise _at(pos, f"every row needs the key attribute {name} (a key of {table.name})")
        _check_key_value(name, key_type or "S", item[name], role, pos, f"a key of {table.name}")
    for index_name, name, key_type, role in index_keys(table):
        if name in item:
            _check_key_value(name, key_type, item[name], role, pos, f"a key of index {index_name}")
    for name, value in item.items():
        _check_value(name, value, pos)
    size = values.item_size(item) if size is None else size
    if size > MAX_ITEM_BYTES:
        raise _at(pos, f"an item of {size:,} bytes is over DynamoDB's 400 KB item limit")
    return item


def index_keys(table: TableInfo) -> list[tuple[str, str, str, str]]:
    """(index, attribute, declared type, partition or sort) of every index key attribute."""
    out = []
    for ix in table.indexes:
        for name, key_type, role in (
            (ix.keys.pk, ix.keys.pk_type, "partition"),
            (ix.keys.sk, ix.keys.sk_type, "sort"),
        ):
            if name is not None:
                out.append((ix.name or "", name, key_type or "S", role))
    return out


_TYPE_WORDS = {"S": "a string", "N": "a number", "B": "binary"}


def _check_key_value(
    name: str, key_type: str, value: Any, role: str, pos: ast.Pos, what: str
) -> None:
    got = values.type_of(value)
    if got != key_type:
        raise _at(
            pos,
            f"{name} is {what} of type {key_type}: it takes {_TYPE_WORDS.get(key_type, key_type)}, "
            f"not {_TYPE_WORDS.get(got or '', got or 'nothing')} ({show_value(value)})",
        )
    problem = values.key_size_error(name, value, role, what)
    if problem is not None:
        raise _at(pos, problem)


def _check_value(name: str, value: Any, pos: ast.Pos) -> None:
    code = values.type_of(value)
    if code in ("SS", "NS", "BS") and not value:
        raise _at(pos, f"{name}: DynamoDB has no empty sets")
    if code == "L":
        for v in value:
            _check_value(name, v, pos)
    if code == "M":
        for k, v in value.items():
            _check_value(f"{name}.{k}", v, pos)


def show_value(value: Any) -> str:
    """A value as messages show it: numbers exactly, anything else as short JSON."""
    if values.type_of(value) == "N":
        return values.format_number(value)
    text = json.dumps(values.to_json(value), ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _at(pos: ast.Pos, message: str) -> PlanError:
    if pos.line:
        return PlanError(message, pos.line, pos.col)
    return PlanError(message)


def _no_repeats(items: list[dict[str, Any]], table: TableInfo, statement: ast.Insert) -> None:
    seen: dict[Any, int] = {}
    for n, item in enumerate(items, 1):
        key = tuple(values.hashable(item[k]) for k in table.keys.names)
        if key in seen:
            raise _at(
                statement.pos,
                f"row {n} repeats the key of row {seen[key]}: one statement writes each item once",
            )
        seen[key] = n


# --- UPDATE / DELETE -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Keyed:
    """What UPDATE and DELETE plan differently; the rest of `_plan_keyed` is theirs alike."""

    verb: str
    operation: str
    # the changes it makes to each item (DELETE: none, it takes the whole item away)
    assignments: Callable[[Any], tuple[ast.Assignment, ...]]
    # every index entry goes with the item (estimated_write_units: `changed` None)
    whole_item: bool


_KEYED = {
    ast.Update: _Keyed("UPDATE", "UpdateItem", lambda s: normalize(s.assignments), False),
    ast.Delete: _Keyed("DELETE", "DeleteItem", lambda _s: (), True),
}


def _plan_keyed(
    statement: ast.Update | ast.Delete,
    table: TableInfo,
    options: WriteOptions,
    _source: TableInfo | None = None,
) -> WritePlan:
    shape = _KEYED[type(statement)]
    verb, operation = shape.verb, shape.operation
    ph = Placeholders()
    template: dict[str, Any] = {"TableName": table.name}
    assignments = shape.assignments(statement)
    if assignments:
        check_assignments(assignments, table)
        template["UpdateExpression"] = update_expression(assignments, ph)
    where = statement.where
    kept, unchecked = _condition_parts(where)
    if not options.read.typed_filters:
        kept = [_type_guarded(c) for c in kept]
    exists = ast.Function("attribute_exists", ast.Path((table.keys.pk,), table.keys.pk))
    condition = condition_text(ast.And((exists, *kept)) if kept else exists, ph)
    template["ConditionExpression"] = condition
    template["ReturnValues"] = "ALL_OLD"
    guards = () if options.transactional else guarded_paths(assignments)
    if guards:
        template["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    template["ReturnConsumedCapacity"] = "TOTAL"
    ph.into(template)
    for name in ("UpdateExpression", "ConditionExpression"):
        if len(template.get(name, "").encode("utf-8")) > MAX_EXPRESSION_BYTES:
            raise PlanError(f"the {name} would be over DynamoDB's 4 KB limit: split the statement")

    roots = list(table.keys.names)
    roots += [r for r in dict.fromkeys(str(g.root) for g in guards) if r not in roots]
    select = ast.Select(
        table=table.name,
        index=None,
        items=tuple(ast.SelectItem(ast.Path((k,), k)) for k in roots),
        where=where,
        pos=statement.pos,
        table_pos=statement.table_pos,
    )
    read = plan_select(select, table, options.read)
    keys = None
    if read.operation == "Nothing":
        keys = []
    elif read.operation in ("GetItem", "BatchGetItem") and not unchecked and not guards:
        keys = _keys_of(read, table)
    whole = None if keys is not None else _whole_items(read, select, table, options.read)
    if whole is not None:
        read = whole
    size = table.average_item_size
    size += sum(values.value_size(a.value.value) for a in assignments if _is_literal(a))
    changed = None if shape.whole_item else [a.path.root for a in assignments]
    per_item = cost.estimated_write_units(table, size, changed, options.transactional)
    if keys is not None:
        estimate = WriteEstimate(len(keys), Decimal(0), per_item * len(keys), exact=True)
        plan = WritePlan(statement, table, verb, operation, template, estimate, keys=keys)
        if read.operation == "Nothing":
            plan.warnings.extend(read.warnings)
        plan.steps.append("no read: the keys are in the WHERE")
    else:
        n = read.estimate.items
        estimate = WriteEstimate(n, read.estimate.rcu, per_item * n)
        plan = WritePlan(statement, table, verb, operation, template, estimate, read=read)
        plan.whole_items = whole is not None
        plan.warnings.extend(read.warnings)
        plan.steps.append(
            "each write's condition holds only while the item still matches the WHERE (the "
            "parts DynamoDB checks"
            + (", and the values the rest reads, as read" if unchecked else "")
            + "): an item that stopped matching after the read is skipped and counted, never "
            "written"
        )
    if plan.whole_items:
        plan.steps.append(
            "the read returns whole items (the same RCU as their keys): each write's intent line "
            "holds the item as read and as the write leaves it, so undo can restore a write "
            "whose answer was lost"
        )
    if guards:
        plan.guards = guards
        shown = ", ".join(g.text for g in guards)
        plan.steps.append(
            f"exactly once: each write also requires {shown} as read (a retried write that "
            "already applied then fails its condition, and is counted as written)"
        )
    plan.unchecked = [sql_text(c) for c in unchecked]
    plan.as_read = outermost(tuple(p for c in unchecked for p in paths_in(c)))
    return plan


def _whole_items(read: Plan, select: ast.Select, table: TableInfo, options: Options) -> Plan | None:
    """The read of `select` returning whole items instead of the attributes it names, when that
    costs no more: the same access path and operation, no fetch from the base table, the same
    estimated RCU. DynamoDB bills a read by the size of the items (or index entries) it reads,
    whatever the ProjectionExpression, so a read of the base table or of an index projecting
    ALL returns whole items for nothing; a KEYS_ONLY or INCLUDE index would need a fetch
    (BatchGetItem: more RCU) and keeps its keys-only read. None when whole items cost more."""
    if read.then is not None or read.fetch is not None:
        return None
    whole = plan_select(replace(select, items=None), table, options)
    if (
        whole.access != read.access
        or whole.operation != read.operation
        or whole.fetch is not None
        or whole.then is not None
        or whole.estimate.rcu > read.estimate.rcu
    ):
        return None
    return whole


def outermost(paths: tuple[ast.Path, ...]) -> tuple[ast.Path, ...]:
    """`paths` without repeats and without a path inside another one of them (``m`` covers
    ``m.x``: requiring ``m`` as read requires ``m.x`` too), in their first order."""
    out: list[ast.Path] = []
    for p in paths:
        if any(p.elements[: len(o.elements)] == o.elements for o in out):
            continue
        out = [o for o in out if o.elements[: len(p.elements)] != p.elements]
        out.append(p)
    return tuple(out)


def guarded_paths(assignments: tuple[ast.Assignment, ...]) -> tuple[ast.Path, ...]:
    """The paths a non-idempotent UPDATE reads and writes; () when applying it twice changes
    nothing more than once (``a = 1``, ``a = b + 1``, ``tags = tags + {'x'}``, REMOVE).

    An UPDATE is non-idempotent when a value it reads is one it writes: ``n = n + 1``,
    ``l = list_append(l, …)``, ADD of a number. A write that applied but whose answer was lost
    is retried (by botocore or the executor); conditioned on these paths' values as the read
    saw them, the retry fails instead of applying twice."""
    reads: list[ast.Path] = []
    writes: list[ast.Path] = []
    for a in assignments:
        writes.append(a.path)
        if a.action == "add" and values.type_of(_literal_of(a.value)) == "N":
            reads.append(a.path)
        elif a.action == "set" and not (
            isinstance(a.value, ast.IfNotExists) and a.value.path == a.path
        ):
            reads.extend(_operand_paths(a.value))
    if not any(_overlap(r.elements, w.elements) for r in reads for w in writes):
        return ()
    out: dict[tuple[Any, ...], ast.Path] = {}
    for p in (*reads, *writes):
        out.setdefault(p.elements, p)
    return tuple(out.values())


def _literal_of(value: Any) -> Any:
    return value.value if isinstance(value, ast.Literal) else None


def _operand_paths(value: Any) -> list[ast.Path]:
    if isinstance(value, ast.Path):
        return [value]
    if isinstance(value, ast.IfNotExists):
        return [value.path]
    if isinstance(value, ast.Arith | ast.ListAppend):
        return _operand_paths(value.left) + _operand_paths(value.right)
    return []


def _overlap(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _is_literal(a: ast.Assignment) -> bool:
    return a.action == "set" and isinstance(a.value, ast.Literal)


def _condition_parts(
    where: ast.Condition | None,
) -> tuple[list[ast.Condition], list[ast.Condition]]:
    """The WHERE's conjuncts DynamoDB can check in a ConditionExpression, and the rest."""
    if where is None:
        return [], []
    parts = list(where.items) if isinstance(where, ast.And) else [where]
    kept = [p for p in parts if expressible(p)]
    return kept, [p for p in parts if not expressible(p)]


def _type_guarded(condition: ast.Condition) -> ast.Condition:
    """For a backend (moto) that fails on an ordering comparison between two types instead of
    answering false: ``attribute_type(p, 'N') AND p > :v``, the same truth everywhere."""
    if isinstance(condition, ast.And | ast.Or):
        return type(condition)(tuple(_type_guarded(c) for c in condition.items))
    if isinstance(condition, ast.Not):
        return ast.Not(_type_guarded(condition.item))
    if isinstance(condition, ast.Compare) and condition.op not in ("=", "<>"):
        operands = [condition.left, condition.right]
    elif isinstance(condition, ast.Between):
        operands = [condition.operand, condition.low, condition.high]
    else:
        return condition
    literal = next((o for o in operands if isinstance(o, ast.Literal)), None)
    paths = [o for o in operands if isinstance(o, ast.Path)]
    if literal is None or not paths:
        return condition
    code = ast.Literal(values.type_of(literal.value))
    guards = tuple(ast.Function("attribute_type", p, code) for p in paths)
    return ast.And((*guards, condition))


def _keys_of(read: Plan, table: TableInfo) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for request in read.requests:
        if request.operation == "GetItem":
            out.append(values.decode_item(request.params["Key"]))
        else:
            spec = request.params["RequestItems"][table.name]
            out.extend(values.decode_item(k) for k in spec["Keys"])
    return out


def normalize(assignments: tuple[ast.Assignment, ...]) -> tuple[ast.Assignment, ...]:
    """``tags = tags + :s`` with a bound set value is an ADD (DELETE for ``-``)."""
    out = []
    for a in assignments:
        v = a.value
        if (
            a.action == "set"
            and isinstance(v, ast.Arith)
            and v.left == a.path
            and isinstance(v.right, ast.Literal)
            and values.type_of(v.right.value) in ("SS", "NS", "BS")
        ):
            a = ast.Assignment("add" if v.op == "+" else "delete", a.path, v.right, a.pos)
        out.append(a)
    return tuple(out)


def check_assignments(assignments: tuple[ast.Assignment, ...], table: TableInfo) -> None:
    """Refuse, before any request, what DynamoDB would refuse: a key attribute changed, an index
    key attribute given a value of another type, a path under an index key, an empty set."""
    keyed = index_keys(table)
    index_types = {name: (ix, t) for ix, name, t, _role in keyed}
    for a in assignments:
        root = a.path.root
        pos = a.path.pos
        if root in table.keys.names:
            raise _at(
                pos,
                f"{root} is a key attribute of {table.name}: it can never be changed "
                "(DELETE the item and INSERT it with the new key)",
            )
        if root in index_types:
            index_name, key_type = index_types[root]
            if not a.path.is_attribute:
                raise _at(
                    pos, f"{root} is a key of index {index_name} ({key_type}): it has no paths"
                )
            if a.action in ("add", "delete"):
                raise _at(
                    pos,
                    f"{root} is a key of index {index_name}: it takes {_TYPE_WORDS[key_type]}, not a set",
                )
            if a.action == "set":
                got = _result_type(a.value)
                if got is not None and got != key_type:
                    raise _at(
                        pos,
                        f"{root} is a key of index {index_name} of type {key_type}: it takes "
                        f"{_TYPE_WORDS[key_type]}, not {_TYPE_WORDS.get(got, got)}",
                    )
                if isinstance(a.value, ast.Literal):  # empty, or over the key's size
                    for ix, name, _type, role in keyed:
                        if name != root:
                            continue
                        what = f"a key of index {ix}"
                        problem = values.key_size_error(root, a.value.value, role, what)
                        if problem is not None:
                            raise _at(pos, problem)
        if a.action == "set" and isinstance(a.value, ast.Literal):
            _check_value(a.path.text, a.value.value, pos)
        if a.action in ("add", "delete"):
            if not isinstance(a.value, ast.Literal) or values.type_of(a.value.value) not in (
                "SS",
                "NS",
                "BS",
                "N",
            ):
                raise _at(pos, f"{a.path.text}: + and - with a set take a set literal {{…}}")
            _check_value(a.path.text, a.value.value, pos)


def _result_type(value: Any) -> str | None:
    """The type an assignment's right side produces, when it is known without the item."""
    if isinstance(value, ast.Literal):
        return values.type_of(value.value)
    if isinstance(value, ast.Arith):
        return "N"
    if isinstance(value, ast.ListAppend):
        return "L"
    if isinstance(value, ast.IfNotExists):
        return _result_type(value.value)
    return None


def update_expression(assignments: tuple[ast.Assignment, ...], ph: Placeholders) -> str:
    """SET …, REMOVE …, ADD …, DELETE … (every name and value through placeholders)."""
    clauses: dict[str, list[str]] = {"SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
    for a in assignments:
        path = ph.path(a.path)
        if a.action == "set":
            clauses["SET"].append(f"{path} = {_update_operand(a.value, ph)}")
        elif a.action == "remove":
            clauses["REMOVE"].append(path)
        elif a.action == "add":
            clauses["ADD"].append(f"{path} {ph.value(a.value.value)}")
        else:
            clauses["DELETE"].append(f"{path} {ph.value(a.value.value)}")
    return " ".join(f"{word} {', '.join(parts)}" for word, parts in clauses.items() if parts)


def _update_operand(value: Any, ph: Placeholders) -> str:
    return change_text(value, ph.value, ph.path)


def change_text(value: Any, literal: Callable[[Any], str], path: Callable[[ast.Path], str]) -> str:
    """The right-hand side of one SET, `literal` and `path` writing its values and paths: as
    UpdateExpression placeholders here, as PartiQL text for EXPLAIN (FORMAT PARTIQL)."""
    again = lambda v: change_text(v, literal, path)  # noqa: E731
    if isinstance(value, ast.Literal):
        return literal(value.value)
    if isinstance(value, ast.Path):
        return path(value)
    if isinstance(value, ast.IfNotExists):
        return f"if_not_exists({path(value.path)}, {again(value.value)})"
    if isinstance(value, ast.ListAppend):
        return f"list_append({again(value.left)}, {again(value.right)})"
    if isinstance(value, ast.Arith):
        for side in (value.left, value.right):
            if isinstance(side, ast.Arith | ast.ListAppend):
                raise PlanError("DynamoDB takes one + or - per SET: a = b + 1, not a = b + 1 + 2")
        return f"{again(value.left)} {value.op} {again(value.right)}"
    raise PlanError(f"cannot write {value!r} in an UpdateExpression")


# each write class's planner (plan_write dispatches on the class here, and nowhere else)
_PLANNERS: dict[type, Callable[..., WritePlan]] = {
    ast.Insert: _plan_insert,
    ast.ConditionCheck: _plan_check,
    ast.Update: _plan_keyed,
    ast.Delete: _plan_keyed,
}
