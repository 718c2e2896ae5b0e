"""Tables, their entities and their items as a NoSQL Workbench model (EXPORT MODEL). Pure.

Each table is written as NoSQL Workbench writes one: ``TableName``; ``KeyAttributes`` and
``GlobalSecondaryIndexes`` (``KeyAttributes``, ``Projection``) from DescribeTable;
``NonKeyAttributes``: every other attribute of the exported items and every index key, each
with the type most of its values have (NoSQL Workbench lists every attribute it shows, as AWS's
own table-to-model script does); each entity a facet: its name, its key templates as the key
aliases (`facets.alias`: ``TENANT#{tenantId}``), its items as ``TableData`` and their
attributes as ``NonKeyAttributes``; the items of no entity in the table's ``TableData``; and its
capacity as ``BillingMode`` with ``ProvisionedCapacitySettings.ProvisionedThroughput``.

What the format has no place for goes where NoSQL Workbench ignores it and IMPORT MODEL reads
it (docs/models.md): LSIs as ``LocalSecondaryIndexes`` in the GSIs' shape, and each entity's
CREATE ENTITY under the facet's ``"Dynosql": {"Entity": …}`` (index templates, their WHERE,
constants). An item goes to the first entity, in the order given, that it belongs to.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynosql import files, values
from dynosql.entity_model import Entity
from dynosql.plan.ddl import provisioned_throughput
from dynosql.workbench.facets import alias
from dynosql.workbench.read import EXTENSION

FORMAT_VERSION = "3.0"  # NoSQL Workbench's model format, as its current exports write it
NO_ACCESS: dict[str, Any] = {
    "MySql": {}
}  # the DataAccess every NoSQL Workbench table and facet carries


@dataclass(frozen=True)
class Exported:
    """One table to write: its DescribeTable ``Table``, its entities, the items written."""

    description: dict[str, Any]
    entities: tuple[Entity, ...]
    items: tuple[dict[str, Any], ...]


def owner(entities: Sequence[Entity], item: dict[str, Any]) -> Entity | None:
    """The entity whose facet holds `item`: the first it belongs to."""
    return next((e for e in entities if e.belongs(item)), None)


def model_document(
    name: str, tables: Iterable[Exported], description: str, when: datetime
) -> dict[str, Any]:
    """The model file's JSON data."""
    stamp = when.strftime("%b %d, %Y, %I:%M %p")
    return {
        "ModelName": name,
        "ModelMetadata": {
            "Author": "dynosql",
            "DateCreated": stamp,
            "DateLastModified": stamp,
            "Description": description,
            "AWSService": "Amazon DynamoDB",
            "Version": FORMAT_VERSION,
        },
        "DataModel": [_table(t) for t in tables],
    }


def _table(t: Exported) -> dict[str, Any]:
    d = t.description
    types = {a["AttributeName"]: a["AttributeType"] for a in d.get("AttributeDefinitions", [])}
    keys = [k["AttributeName"] for k in _ordered(d["KeySchema"])]
    held: dict[str, list[dict[str, Any]]] = {e.name: [] for e in t.entities}
    rest: list[dict[str, Any]] = []
    for item in t.items:
        found = owner(t.entities, item)
        (rest if found is None else held[found.name]).append(item)
    out: dict[str, Any] = {
        "TableName": d["TableName"],
        "KeyAttributes": _key_attributes(d["KeySchema"], types),
        "NonKeyAttributes": _attributes(t.items, types, keys),
    }
    if t.entities:
        out["TableFacets"] = [_facet(e, held[e.name], keys) for e in t.entities]
    for field_name in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = sorted(d.get(field_name) or [], key=lambda ix: ix["IndexName"])
        if indexes:
            out[field_name] = [
                {
                    "IndexName": ix["IndexName"],
                    "KeyAttributes": _key_attributes(ix["KeySchema"], types),
                    "Projection": _projection(ix.get("Projection") or {}),
                }
                for ix in indexes
            ]
    out["TableData"] = [_wire(item) for item in rest]
    out["DataAccess"] = NO_ACCESS
    throughput = provisioned_throughput(d)
    if throughput is None:
        out["BillingMode"] = "PAY_PER_REQUEST"
    else:
        out["BillingMode"] = "PROVISIONED"
        out["ProvisionedCapacitySettings"] = {"ProvisionedThroughput": throughput}
    return out


def _ordered(key_schema: list[dict[str, str]]) -> list[dict[str, str]]:
    return sorted(key_schema, key=lambda k: k["KeyType"])  # HASH before RANGE


def _key_attributes(key_schema: list[dict[str, str]], types: dict[str, str]) -> dict[str, Any]:
    roles = {"HASH": "PartitionKey", "RANGE": "SortKey"}
    return {
        roles[k["KeyType"]]: {
            "AttributeName": k["AttributeName"],
            "AttributeType": types[k["AttributeName"]],
        }
        for k in _ordered(key_schema)
    }


def _projection(projection: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"ProjectionType": projection.get("ProjectionType", "ALL")}
    if out["ProjectionType"] == "INCLUDE":
        out["NonKeyAttributes"] = list(projection.get("NonKeyAttributes") or [])
    return out


def _attributes(
    items: Iterable[dict[str, Any]], types: dict[str, str], keys: list[str]
) -> list[dict[str, str]]:
    """Every attribute but the table's keys: the index keys with their declared types, then
    the items' others by name, each with the type most of its values have."""
    seen: dict[str, Counter[str]] = {}
    for item in items:
        for name, value in item.items():
            seen.setdefault(name, Counter())[values.type_of(value) or "NULL"] += 1
    out = [
        {"AttributeName": name, "AttributeType": kind}
        for name, kind in types.items()
        if name not in keys
    ]
    out += [
        {"AttributeName": name, "AttributeType": counted.most_common(1)[0][0]}
        for name, counted in sorted(seen.items())
        if name not in keys and name not in types
    ]
    return out


def _facet(entity: Entity, items: list[dict[str, Any]], keys: list[str]) -> dict[str, Any]:
    aliases = {"PartitionKeyAlias": alias(entity.key.pk)}
    if entity.key.sk is not None:
        aliases["SortKeyAlias"] = alias(entity.key.sk)
    names = sorted({name for item in items for name in item if name not in keys})
    return {
        "FacetName": entity.name,
        "KeyAttributeAlias": aliases,
        "TableData": [_wire(item) for item in items],
        "NonKeyAttributes": names,
        "DataAccess": NO_ACCESS,
        EXTENSION: {"Entity": entity.text()},
    }


def _wire(item: dict[str, Any]) -> dict[str, Any]:
    """An item in DynamoDB JSON (numbers as text, binary as base64), as JSON data."""
    data: dict[str, Any] = json.loads(files.dynamodb_item(item))
    return data
