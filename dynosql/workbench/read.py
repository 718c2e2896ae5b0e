"""A NoSQL Workbench model file read as what IMPORT MODEL creates from it. Pure.

The model format (NoSQL Workbench's exports, version 3.0, and AWS's published models; the
edges are in docs/models.md): ``{"ModelName", "ModelMetadata", "DataModel": [table, …]}``, a
table being ``{"TableName", "KeyAttributes": {"PartitionKey": {"AttributeName",
"AttributeType"}, "SortKey": …}, "NonKeyAttributes", "GlobalSecondaryIndexes": [{"IndexName",
"KeyAttributes", "Projection"}, …], "TableFacets": [facet, …], "TableData": [item, …],
"BillingMode", "ProvisionedCapacitySettings"}`` and a facet ``{"FacetName",
"KeyAttributeAlias": {"PartitionKeyAlias", "SortKeyAlias"}, "NonKeyAttributes": [name, …],
"TableData": [item, …]}``; items in DynamoDB JSON. dynosql also reads (and writes)
``"LocalSecondaryIndexes"`` in the shape of the GSIs, and its own ``"Dynosql": {"Entity":
"CREATE ENTITY …"}`` in a facet (EXPORT MODEL: the entity exactly, where a facet cannot say it).

What DynamoDB would refuse is refused here, before any request, naming the table (and facet):
a key of a type other than S, N or B, one attribute with two key types, a name or an index
DynamoDB does not take (CREATE TABLE's own checks, `plan_ddl`). What cannot be carried over is
left out and said in a note: a value that is not DynamoDB JSON (some published models hold bare
JSON in an ``M``), an item DynamoDB would refuse (`check_item`: no key, a key of another type),
auto scaling.

Capacity: ``BillingMode`` PAY_PER_REQUEST is on demand; PROVISIONED (or capacity settings
alone) takes ``ProvisionedCapacitySettings.ProvisionedThroughput`` (5/5 when absent, NoSQL
Workbench's default). A table that says neither is made on demand: NoSQL Workbench would
commit it provisioned at 5/5 with auto scaling, which DynamoDB's API cannot set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynosql import files, values
from dynosql.errors import PlanError
from dynosql.plan.ddl import plan_ddl
from dynosql.plan.schema import TableInfo, table_info
from dynosql.plan.write import check_item
from dynosql.result import counted
from dynosql.sql import ast, keywords

KEY_TYPES = ("S", "N", "B")
DEFAULT_CAPACITY = 5  # NoSQL Workbench's provisioned default (its commit: 5 RCU, 5 WCU)
EXTENSION = "Dynosql"  # a facet's {"Entity": "CREATE ENTITY …"}: dynosql's own, beside the format's


@dataclass(frozen=True)
class Facet:
    """A named view of a table's items of one kind."""

    name: str
    pk_alias: str
    sk_alias: str | None
    attributes: tuple[str, ...]  # its NonKeyAttributes
    items: tuple[dict[str, Any], ...]  # its TableData, decoded
    definition: str | None = None  # the CREATE ENTITY written beside it (EXPORT MODEL)


@dataclass(frozen=True)
class ModelTable:
    """One table of a model: the statement that creates it, and what goes in it."""

    create: ast.CreateTable
    params: dict[str, Any]  # the CreateTable request CREATE TABLE sends
    info: TableInfo  # the table as DescribeTable will describe it
    items: tuple[dict[str, Any], ...]  # the table's and its facets' TableData, one per key
    facets: tuple[Facet, ...]

    @property
    def name(self) -> str:
        return self.create.table


@dataclass
class Model:
    name: str
    tables: list[ModelTable]
    notes: list[str]  # what was left out, and why


def read_model(text: str, source: str) -> Model:
    """The model in `text` (the file `source`); a PlanError naming the file, and the table or
    facet, for what DynamoDB would refuse."""
    try:
        data = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as err:
        raise PlanError(
            f"{source}: line {err.lineno}, column {err.colno}: not JSON ({err.msg})"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("DataModel"), list):
        raise PlanError(
            f'{source} is not a NoSQL Workbench model: it has no "DataModel" list of tables'
        )
    notes: list[str] = []
    tables: list[ModelTable] = []
    for i, raw in enumerate(data["DataModel"], 1):
        tables.append(_table(_mapping(raw, f"{source}: table {i}"), source, notes))
    _unique([t.name for t in tables], f"{source}: two tables are named")
    _unique([f.name for t in tables for f in t.facets], f"{source}: two facets are named")
    return Model(str(data.get("ModelName") or ""), tables, notes)


def _unique(names: list[str], message: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise PlanError(f"{message} {name}")
        seen.add(name)


def _mapping(raw: Any, where: str) -> Mapping[str, Any]:
    if raw is None:
        raise PlanError(f"{where} is missing")
    if not isinstance(raw, dict):
        raise PlanError(f"{where} is not an object")
    return raw


def _text(raw: Mapping[str, Any], name: str, where: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value:
        raise PlanError(f"{where} has no {name}")
    return value


# --- a table ---------------------------------------------------------------------------------


def _table(raw: Mapping[str, Any], source: str, notes: list[str]) -> ModelTable:
    name = _text(raw, "TableName", f"{source}: a table")
    where = f"{source}: table {name}"
    types: dict[str, str] = {}

    def key(keys: Mapping[str, Any], role: str, what: str, required: bool) -> str | None:
        entry = keys.get(role)
        if entry is None:
            if required:
                raise PlanError(f"{what} has no {role} in its KeyAttributes")
            return None
        attribute = _text(_mapping(entry, f"{what}: {role}"), "AttributeName", f"{what}: {role}")
        kind = entry.get("AttributeType")
        if kind not in KEY_TYPES:
            raise PlanError(
                f"{what}: {role} {attribute} is of type {kind!r}: a key attribute is S, N or B"
            )
        if types.setdefault(attribute, kind) != kind:
            raise PlanError(
                f"{what}: {attribute} is a key of type {kind} here and {types[attribute]} in "
                "another key: DynamoDB declares one type an attribute"
            )
        return attribute

    keys = _mapping(raw.get("KeyAttributes"), f"{where}: KeyAttributes")
    pk = key(keys, "PartitionKey", where, True)
    sk = key(keys, "SortKey", where, False)
    assert pk is not None
    indexes = []
    for kind, field_name in (("gsi", "GlobalSecondaryIndexes"), ("lsi", "LocalSecondaryIndexes")):
        for ix in raw.get(field_name) or []:
            ix = _mapping(ix, f"{where}: {field_name}")
            ix_name = _text(ix, "IndexName", f"{where}: {field_name}")
            what = f"{where}: index {ix_name}"
            ix_keys = _mapping(ix.get("KeyAttributes"), f"{what}: KeyAttributes")
            ix_pk = key(ix_keys, "PartitionKey", what, True)
            ix_sk = key(ix_keys, "SortKey", what, False)
            assert ix_pk is not None
            projection = _projection(ix.get("Projection"), what)
            indexes.append(ast.IndexDef(kind, ix_name, ix_pk, ix_sk, projection))
    create = ast.CreateTable(
        table=name,
        attributes=tuple(types.items()),
        hash=pk,
        range=sk,
        throughput=_throughput(raw, where, notes),
        indexes=tuple(indexes),
    )
    try:
        params = plan_ddl(create).calls[0].params
    except PlanError as err:
        raise PlanError(f"{where}: {err.message}") from None
    info = table_info(params)
    table_items = _items(raw.get("TableData"), info, where, notes)
    facets = tuple(_facet(f, info, where, notes) for f in raw.get("TableFacets") or [])
    every: dict[tuple[Any, ...], dict[str, Any]] = {}
    for item in [*table_items, *(i for f in facets for i in f.items)]:
        every[tuple(values.hashable(item[k]) for k in info.keys.names)] = item
    return ModelTable(create, params, info, tuple(every.values()), facets)


def _projection(raw: Any, where: str) -> ast.Projection:
    """An index's projection (ALL when the model gives none, as NoSQL Workbench does)."""
    if raw is None:
        return ast.Projection()
    raw = _mapping(raw, f"{where}: Projection")
    kind = raw.get("ProjectionType", "ALL")
    if kind not in keywords.PROJECTIONS:
        raise PlanError(
            f"{where}: ProjectionType {kind!r}: one of {', '.join(keywords.PROJECTIONS)}"
        )
    if kind != "INCLUDE":
        return ast.Projection(kind)
    names = tuple(str(n) for n in raw.get("NonKeyAttributes") or [])
    if not names:
        raise PlanError(f"{where}: an INCLUDE projection names its NonKeyAttributes")
    return ast.Projection("INCLUDE", names)


def _throughput(raw: Mapping[str, Any], where: str, notes: list[str]) -> ast.Throughput | None:
    """The table's provisioned capacity, or None: on demand (see the module's note)."""
    mode = raw.get("BillingMode")
    settings = raw.get("ProvisionedCapacitySettings")
    if mode not in (None, "PROVISIONED", "PAY_PER_REQUEST"):
        raise PlanError(f"{where}: BillingMode {mode!r}: PROVISIONED or PAY_PER_REQUEST")
    if mode == "PAY_PER_REQUEST" or (mode is None and settings is None):
        return None
    settings = _mapping(settings or {}, f"{where}: ProvisionedCapacitySettings")
    given = _mapping(settings.get("ProvisionedThroughput") or {}, f"{where}: ProvisionedThroughput")
    units = []
    for name in ("ReadCapacityUnits", "WriteCapacityUnits"):
        value = given.get(name, DEFAULT_CAPACITY)
        if not isinstance(value, Decimal | int) or value != int(value) or value < 1:
            raise PlanError(f"{where}: {name} {value}: a whole number from 1")
        units.append(int(value))
    if settings.get("AutoScalingRead") or settings.get("AutoScalingWrite"):
        notes.append(
            f"{where}: provisioned at {units[0]} RCU and {units[1]} WCU without its auto scaling "
            "(Application Auto Scaling's, not a DynamoDB table setting)"
        )
    return ast.Throughput(units[0], units[1])


# --- items and facets ------------------------------------------------------------------------


def _facet(raw: Any, info: TableInfo, table_where: str, notes: list[str]) -> Facet:
    raw = _mapping(raw, f"{table_where}: a facet")
    name = _text(raw, "FacetName", f"{table_where}: a facet")
    where = f"{table_where}: facet {name}"
    aliases = raw.get("KeyAttributeAlias") or {}
    pk_alias = str(aliases.get("PartitionKeyAlias") or info.keys.pk)
    sk_alias = None
    if info.keys.sk is not None:
        sk_alias = str(aliases.get("SortKeyAlias") or info.keys.sk)
    extension = raw.get(EXTENSION)
    definition = extension.get("Entity") if isinstance(extension, dict) else None
    return Facet(
        name,
        pk_alias,
        sk_alias,
        tuple(str(a) for a in raw.get("NonKeyAttributes") or []),
        _items(raw.get("TableData"), info, where, notes),
        definition if isinstance(definition, str) else None,
    )


def _items(raw: Any, info: TableInfo, where: str, notes: list[str]) -> tuple[dict[str, Any], ...]:
    """The items of a TableData, decoded; what DynamoDB would not take is left out and noted
    (the count, and the first case)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PlanError(f"{where}: TableData is not a list of items")
    out = []
    values_out: list[str] = []
    items_out: list[str] = []
    for n, wire in enumerate(raw, 1):
        if not isinstance(wire, dict):
            items_out.append(f"item {n} is not an object")
            continue
        item = {}
        for name, value in wire.items():
            try:
                item[name] = files.from_dynamodb_json(value)
            except files.BadValue as err:
                values_out.append(f"{name} of item {n}: {err}")
        try:
            out.append(check_item(item, info))
        except PlanError as err:
            items_out.append(f"item {n}: {err.message}")
    if values_out:
        notes.append(
            f"{where}: {counted(len(values_out), 'value')} left out, not DynamoDB JSON "
            f"({values_out[0]})"
        )
    if items_out:
        notes.append(
            f"{where}: {counted(len(items_out), 'item')} left out, which DynamoDB would refuse "
            f"({items_out[0]})"
        )
    return tuple(out)
