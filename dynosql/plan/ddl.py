"""Table statements → the exact DynamoDB requests, and a table → the statement that recreates it.

Pure (no I/O): `plan_ddl` takes the parsed statement and what is known about the table (its
DescribeTable, its TTL attribute) and returns the calls to send in order, what to wait for
afterwards, and for CREATE INDEX the backfill estimate to say before sending. `show_create`
is the inverse of CREATE TABLE: CreateTable from its output gives the same DescribeTable.

DynamoDB's rules applied here, so that a mistake is refused before any request:
- AttributeDefinitions hold the key attributes of the table and its indexes, nothing more.
- An LSI shares the table's partition key and has its own sort key; it is created with the
  table only. A GSI may be added (one at a time) and dropped later.
- A PROVISIONED table's GSIs need their own throughput (default: the table's); switching a
  table with GSIs to PROVISIONED sets theirs too.
- TTL and deletion protection are separate settings: TTL has its own call (UpdateTimeToLive),
  deletion protection goes in CreateTable/UpdateTable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql.errors import PlanError
from dynosql.plan.schema import TableInfo
from dynosql.sql import ast
from dynosql.values import write_units

INDEX_ENTRY_OVERHEAD = 100  # bytes DynamoDB adds to every index entry (its documented figure)


@dataclass(frozen=True)
class Call:
    """One request: the operation's name and its parameters as boto3 takes them."""

    operation: str  # CreateTable, UpdateTable, DeleteTable, UpdateTimeToLive
    params: dict[str, Any]

    @property
    def method(self) -> str:
        """The boto3 client method (``UpdateTimeToLive`` → ``update_time_to_live``)."""
        return "".join("_" + c.lower() if c.isupper() else c for c in self.operation).lstrip("_")


@dataclass(frozen=True)
class Backfill:
    """What adding a GSI to a table with items costs: each item becomes one index entry."""

    items: int
    entry_bytes: int
    wcu: Decimal

    def text(self) -> str:
        return (
            f"the backfill writes ~{self.items} index entries of ~{self.entry_bytes} bytes: "
            f"~{self.wcu} WCU on the index"
        )


@dataclass(frozen=True)
class DdlPlan:
    """The calls for one statement and what to wait for after them.

    `wait`: ``active`` (the table and its indexes ACTIVE), ``gone`` (the table deleted),
    ``index`` (the index named `index` ACTIVE), ``index_gone`` or None."""

    table: str
    label: str
    calls: tuple[Call, ...]
    wait: str | None = None
    index: str | None = None
    backfill: Backfill | None = None
    notes: tuple[str, ...] = field(default=())

    def document(self) -> dict[str, Any]:
        """The calls as data (the golden fixtures compare this)."""
        return {"requests": [{"operation": c.operation, "params": c.params} for c in self.calls]}


def plan_ddl(
    statement: ast.Ddl, table: TableInfo | None = None, ttl_attribute: str | None = None
) -> DdlPlan:
    """The requests for a table statement, by its class's own planner (`PLANNERS`). `table` is
    the existing table (all but CREATE TABLE); `ttl_attribute` its TTL attribute, if enabled
    (ALTER … SET TTL OFF names it)."""
    planner = PLANNERS.get(type(statement))
    if planner is None:
        raise PlanError(f"not a table statement: {type(statement).__name__}")
    return planner(statement, table, ttl_attribute)


# --- CREATE TABLE ----------------------------------------------------------------------------


def _key_schema(hash_: str, range_: str | None) -> list[dict[str, str]]:
    keys = [{"AttributeName": hash_, "KeyType": "HASH"}]
    if range_:
        keys.append({"AttributeName": range_, "KeyType": "RANGE"})
    return keys


def _projection(projection: ast.Projection) -> dict[str, Any]:
    out: dict[str, Any] = {"ProjectionType": projection.kind}
    if projection.kind == "INCLUDE":
        out["NonKeyAttributes"] = list(projection.include)
    return out


def _throughput(throughput: ast.Throughput) -> dict[str, int]:
    return {"ReadCapacityUnits": throughput.rcu, "WriteCapacityUnits": throughput.wcu}


_VALID_NAME = re.compile(r"[A-Za-z0-9_.\-]{3,255}")


def check_name(name: str, what: str) -> None:
    """DynamoDB's rule for table and index names, checked before any request."""
    if not _VALID_NAME.fullmatch(name):
        raise PlanError(
            f"{what} name {name!r} is not valid: 3 to 255 letters, digits, '_', '-' or '.'"
        )


def plan_create_table(s: ast.CreateTable, _table: Any = None, _ttl: Any = None) -> DdlPlan:
    check_name(s.table, "table")
    declared = dict(s.attributes)
    used: list[str] = []

    def need(name: str, where: str) -> None:
        if name not in declared:
            raise PlanError(
                f"{where} uses {name}, which has no type: declare it in the column list "
                f"({name} S, N or B)"
            )
        if name not in used:
            used.append(name)

    need(s.hash, "PRIMARY KEY")
    if s.range:
        if s.range == s.hash:
            raise PlanError("the partition key and the sort key must be different attributes")
        need(s.range, "PRIMARY KEY")
    params: dict[str, Any] = {"TableName": s.table, "KeySchema": _key_schema(s.hash, s.range)}
    if s.throughput is None:
        params["BillingMode"] = "PAY_PER_REQUEST"
    else:
        params["BillingMode"] = "PROVISIONED"
        params["ProvisionedThroughput"] = _throughput(s.throughput)
    gsis: list[dict[str, Any]] = []
    lsis: list[dict[str, Any]] = []
    names: set[str] = set()
    for ix in s.indexes:
        if ix.name in names:
            raise PlanError(f"two indexes are named {ix.name}")
        names.add(ix.name)
        check_name(ix.name, "index")
        where = f"{ix.kind.upper()} {ix.name}"
        need(ix.hash, where)
        if ix.range:
            need(ix.range, where)
        entry: dict[str, Any] = {
            "IndexName": ix.name,
            "KeySchema": _key_schema(ix.hash, ix.range),
            "Projection": _projection(ix.projection),
        }
        if ix.kind == "lsi":
            if ix.hash != s.hash:
                raise PlanError(
                    f"LSI {ix.name} must use the table's partition key {s.hash}, not {ix.hash}"
                )
            if s.range is None:
                raise PlanError(f"LSI {ix.name}: a table without a sort key cannot have an LSI")
            lsis.append(entry)
            continue
        if ix.throughput is not None and s.throughput is None:
            raise PlanError(
                f"GSI {ix.name} has PROVISIONED capacity but the table is PAY_PER_REQUEST"
            )
        if s.throughput is not None:
            entry["ProvisionedThroughput"] = _throughput(ix.throughput or s.throughput)
        gsis.append(entry)
    unused = [name for name in declared if name not in used]
    if unused:
        raise PlanError(
            f"{', '.join(unused)} {'is' if len(unused) == 1 else 'are'} declared but no key: "
            "DynamoDB takes types only for key attributes (others need no declaration)"
        )
    params["AttributeDefinitions"] = [
        {"AttributeName": name, "AttributeType": declared[name]} for name in declared
    ]
    if lsis:
        params["LocalSecondaryIndexes"] = lsis
    if gsis:
        params["GlobalSecondaryIndexes"] = gsis
    if s.deletion_protection:
        params["DeletionProtectionEnabled"] = True
    calls = [Call("CreateTable", _ordered(params))]
    if s.ttl:
        calls.append(_ttl_call(s.table, s.ttl, True))
    return DdlPlan(s.table, f"CREATE TABLE {s.table}", tuple(calls), wait="active")


_ORDER = (
    "TableName",
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "ProvisionedThroughput",
    "LocalSecondaryIndexes",
    "GlobalSecondaryIndexes",
    "DeletionProtectionEnabled",
)


def _ordered(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters in one fixed order (fixtures and EXPLAIN read the same every time)."""
    return {k: params[k] for k in _ORDER if k in params}


def _ttl_call(table: str, attribute: str, enabled: bool) -> Call:
    return Call(
        "UpdateTimeToLive",
        {
            "TableName": table,
            "TimeToLiveSpecification": {"Enabled": enabled, "AttributeName": attribute},
        },
    )


# --- indexes ---------------------------------------------------------------------------------


def _attribute_types(table: TableInfo) -> dict[str, str]:
    return {
        a["AttributeName"]: a["AttributeType"] for a in table.raw.get("AttributeDefinitions", [])
    }


def plan_create_index(s: ast.CreateIndex, table: TableInfo, _ttl: Any = None) -> DdlPlan:
    ix = s.index
    check_name(ix.name, "index")
    if any(existing.name == ix.name for existing in table.indexes):
        raise PlanError(f"table {table.name} already has an index named {ix.name}")
    known = _attribute_types(table)
    given = dict(s.types)
    # The table's definitions too: AWS merges, but moto replaces the list with what is sent.
    definitions = [{"AttributeName": n, "AttributeType": t} for n, t in known.items()]
    for name in (ix.hash, ix.range):
        if name is None:
            continue
        kind = given.get(name) or known.get(name)
        if kind is None:
            raise PlanError(
                f"index key {name} has no type: write it after the name, as in ({name} S)"
            )
        if name in known and name in given and known[name] != given[name]:
            raise PlanError(
                f"{name} is already a key of type {known[name]} on {table.name}, not {given[name]}"
            )
        if name not in known:
            definitions.append({"AttributeName": name, "AttributeType": kind})
    if ix.hash == ix.range:
        raise PlanError("the index's partition key and sort key must be different attributes")
    create: dict[str, Any] = {
        "IndexName": ix.name,
        "KeySchema": _key_schema(ix.hash, ix.range),
        "Projection": _projection(ix.projection),
    }
    if table.billing_mode == "PROVISIONED":
        rcu, wcu = table.provisioned_rcu or 1, table.provisioned_wcu or 1
        throughput = ix.throughput or ast.Throughput(rcu, wcu)
        create["ProvisionedThroughput"] = _throughput(throughput)
    elif ix.throughput is not None:
        raise PlanError(
            f"GSI {ix.name} has PROVISIONED capacity but {table.name} is PAY_PER_REQUEST"
        )
    params = {
        "TableName": table.name,
        "AttributeDefinitions": definitions,
        "GlobalSecondaryIndexUpdates": [{"Create": create}],
    }
    return DdlPlan(
        table.name,
        f"CREATE INDEX {ix.name} ON {table.name}",
        (Call("UpdateTable", params),),
        wait="index",
        index=ix.name,
        backfill=backfill(table, ix.projection),
    )


def backfill(table: TableInfo, projection: ast.Projection) -> Backfill:
    """Every item with the index's keys becomes an entry: at most the table's item count, each
    the item's size (ALL) or less (KEYS_ONLY, INCLUDE), plus DynamoDB's 100-byte overhead. An
    upper bound: items without the index keys are not written."""
    average = table.average_item_size if table.item_count else 0
    size = average if projection.kind == "ALL" else min(average, 200)
    entry = size + INDEX_ENTRY_OVERHEAD
    return Backfill(table.item_count, entry, write_units(entry) * table.item_count)


def plan_drop_index(s: ast.DropIndex, table: TableInfo, _ttl: Any = None) -> DdlPlan:
    index = table.index(s.index)  # raises, listing the indexes, when there is none
    if index.kind == "lsi":
        raise PlanError(
            f"{s.index} is an LSI: DynamoDB cannot drop an LSI (only with the table itself)"
        )
    params = {
        "TableName": table.name,
        "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": s.index}}],
    }
    return DdlPlan(
        table.name,
        f"DROP INDEX {s.index} ON {table.name}",
        (Call("UpdateTable", params),),
        wait="index_gone",
        index=s.index,
    )


# --- ALTER / DROP TABLE ----------------------------------------------------------------------


def plan_alter_table(s: ast.AlterTable, table: TableInfo, ttl_attribute: str | None) -> DdlPlan:
    label = f"ALTER TABLE {table.name}"
    if s.ttl is not None:
        return DdlPlan(table.name, label, (_ttl_call(table.name, s.ttl, True),))
    if s.ttl_off:
        if ttl_attribute is None:
            raise PlanError(f"TTL is not enabled on {table.name}: nothing to turn off")
        return DdlPlan(table.name, label, (_ttl_call(table.name, ttl_attribute, False),))
    if s.deletion_protection is not None:
        protection = {"TableName": table.name, "DeletionProtectionEnabled": s.deletion_protection}
        return DdlPlan(table.name, label, (Call("UpdateTable", protection),), wait="active")
    billing = s.billing
    params: dict[str, Any] = {"TableName": table.name}
    if isinstance(billing, ast.Throughput):
        params["BillingMode"] = "PROVISIONED"
        params["ProvisionedThroughput"] = _throughput(billing)
        gsis = [ix for ix in table.indexes if ix.kind == "gsi"]
        if gsis and table.billing_mode != "PROVISIONED":
            params["GlobalSecondaryIndexUpdates"] = [
                {"Update": {"IndexName": ix.name, "ProvisionedThroughput": _throughput(billing)}}
                for ix in gsis
            ]
    else:
        if table.billing_mode == "PAY_PER_REQUEST":
            raise PlanError(f"{table.name} is PAY_PER_REQUEST already")
        params["BillingMode"] = "PAY_PER_REQUEST"
    return DdlPlan(table.name, label, (Call("UpdateTable", params),), wait="active")


def deletion_protected(table: TableInfo) -> bool:
    return bool(table.raw.get("DeletionProtectionEnabled"))


def plan_drop_table(_s: ast.DropTable, table: TableInfo, _ttl: Any = None) -> DdlPlan:
    if deletion_protected(table):
        raise PlanError(
            f"refused: {table.name} has deletion protection on "
            f"(ALTER TABLE {table.name} SET DELETION PROTECTION OFF first)"
        )
    return DdlPlan(
        table.name,
        f"DROP TABLE {table.name}",
        (Call("DeleteTable", {"TableName": table.name}),),
        wait="gone",
    )


# each class of table statement, its planner: (statement, the table as it is, its TTL attribute)
PLANNERS: dict[type, Callable[[Any, Any, str | None], DdlPlan]] = {
    ast.CreateTable: plan_create_table,
    ast.CreateIndex: plan_create_index,
    ast.DropIndex: plan_drop_index,
    ast.AlterTable: plan_alter_table,
    ast.DropTable: plan_drop_table,
}


# --- SHOW CREATE TABLE -----------------------------------------------------------------------


def quote(name: str) -> str:
    """A name as the DDL reader takes it back: bare when it is a plain word, else quoted."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.upper() not in _DDL_WORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


_DDL_WORDS = frozenset({"PRIMARY", "OFF"})  # the only words a bare name could be taken for


def _show_keys(key_schema: list[dict[str, str]]) -> str:
    hash_ = next(k["AttributeName"] for k in key_schema if k["KeyType"] == "HASH")
    range_ = next((k["AttributeName"] for k in key_schema if k["KeyType"] == "RANGE"), None)
    return "(" + ", ".join(quote(n) for n in (hash_, range_) if n) + ")"


def _show_projection(projection: dict[str, Any]) -> str:
    kind = projection.get("ProjectionType", "ALL")
    text = f"PROJECTION {kind}"
    if kind == "INCLUDE":
        text += " (" + ", ".join(quote(n) for n in projection.get("NonKeyAttributes", [])) + ")"
    return text


def _show_throughput(throughput: dict[str, Any]) -> str:
    return f"PROVISIONED ({throughput['ReadCapacityUnits']}, {throughput['WriteCapacityUnits']})"


def provisioned_throughput(description: dict[str, Any]) -> dict[str, int] | None:
    """A described table's provisioned capacity (its ProvisionedThroughput), None on demand:
    DescribeTable's BillingModeSummary says which, and a table created PROVISIONED before
    on-demand existed has no summary but its capacity."""
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode")
    throughput = description.get("ProvisionedThroughput") or {}
    if (billing or "").upper() == "PROVISIONED" or (
        billing is None and throughput.get("ReadCapacityUnits")
    ):
        return {
            "ReadCapacityUnits": int(throughput.get("ReadCapacityUnits") or 0),
            "WriteCapacityUnits": int(throughput.get("WriteCapacityUnits") or 0),
        }
    return None


def show_create(description: dict[str, Any], ttl_attribute: str | None = None) -> str:
    """The CREATE TABLE statement that recreates a table (a DescribeTable ``Table``): keys,
    billing, indexes with projections and throughput, TTL, deletion protection. Items, tags,
    streams, encryption and table class are not part of it."""
    provisioned = provisioned_throughput(description)
    throughput = description.get("ProvisionedThroughput") or {}
    columns = [
        f"  {quote(a['AttributeName'])} {a['AttributeType']}"
        for a in description.get("AttributeDefinitions", [])
    ]
    columns.append(f"  PRIMARY KEY {_show_keys(description['KeySchema'])}")
    lines = [f"CREATE TABLE {quote(description['TableName'])} (", ",\n".join(columns), ")"]
    lines.append(
        f"BILLING {_show_throughput(throughput)}" if provisioned else "BILLING PAY_PER_REQUEST"
    )
    for kind, field_name in (("LSI", "LocalSecondaryIndexes"), ("GSI", "GlobalSecondaryIndexes")):
        for ix in sorted(description.get(field_name) or [], key=lambda i: i["IndexName"]):
            text = (
                f"WITH {kind} {quote(ix['IndexName'])} {_show_keys(ix['KeySchema'])} "
                f"{_show_projection(ix.get('Projection') or {})}"
            )
            ix_throughput = ix.get("ProvisionedThroughput") or {}
            if kind == "GSI" and provisioned and ix_throughput.get("ReadCapacityUnits"):
                text += " " + _show_throughput(ix_throughput)
            lines.append(text)
    if ttl_attribute:
        lines.append(f"TTL {quote(ttl_attribute)}")
    if description.get("DeletionProtectionEnabled"):
        lines.append("DELETION PROTECTION")
    return "\n".join(lines) + ";"
