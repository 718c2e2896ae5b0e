"""The corpus of single-table designs (tests/data/designs/, sources in its README): NoSQL
Workbench model files read as tables and items, and loaded into a test backend.

A model's items are its table's ``TableData`` and its facets' (deduplicated by primary key), in
DynamoDB JSON; an attribute that is not valid DynamoDB JSON (some published models hold bare
JSON inside an ``M``) is left out, as DynamoDB would refuse the item."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backends import Backend, unique_name

from dynosql import values
from dynosql.plan.schema import TableInfo, table_info

DESIGNS = Path(__file__).resolve().parent / "data" / "designs"


@dataclass
class ModelTable:
    model: str  # the file's name
    name: str  # the table's name in the model
    key_schema: list[dict[str, str]]
    definitions: dict[str, str]  # attribute -> S, N or B
    gsis: list[dict[str, Any]]
    items: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0  # attributes left out: not valid DynamoDB JSON

    def info(self) -> TableInfo:
        """The table as DescribeTable would describe it (no server)."""
        return table_info(
            {
                "TableName": self.name,
                "KeySchema": self.key_schema,
                "AttributeDefinitions": [
                    {"AttributeName": n, "AttributeType": t} for n, t in self.definitions.items()
                ],
                "GlobalSecondaryIndexes": self.gsis,
            }
        )

    def create(self, backend: Backend, table: str | None = None) -> str:
        """Create the table (under a unique name) with its GSIs and put its items."""
        name = table or unique_name("design")
        kwargs: dict[str, Any] = {
            "TableName": name,
            "KeySchema": self.key_schema,
            "AttributeDefinitions": [
                {"AttributeName": n, "AttributeType": t} for n, t in self.definitions.items()
            ],
            "BillingMode": "PAY_PER_REQUEST",
        }
        if self.gsis:
            kwargs["GlobalSecondaryIndexes"] = self.gsis
        backend.create_table(**kwargs)
        backend.put_items(name, self.items)
        return name


def model_files() -> list[Path]:
    """The model files (every JSON file but expected.json)."""
    return sorted(p for p in DESIGNS.glob("*.json") if p.name != "expected.json")


def model_tables(path: Path) -> Iterator[ModelTable]:
    model = json.loads(path.read_text(encoding="utf-8"))
    for table in model["DataModel"]:
        definitions: dict[str, str] = {}

        def schema(keys: dict[str, Any], definitions: dict[str, str] = definitions) -> list:
            out = []
            for role, kind in (("PartitionKey", "HASH"), ("SortKey", "RANGE")):
                if role in keys:
                    definitions[keys[role]["AttributeName"]] = keys[role]["AttributeType"]
                    out.append({"AttributeName": keys[role]["AttributeName"], "KeyType": kind})
            return out

        key_schema = schema(table["KeyAttributes"])
        gsis = [
            {
                "IndexName": g["IndexName"],
                "KeySchema": schema(g["KeyAttributes"]),
                "Projection": g.get("Projection") or {"ProjectionType": "ALL"},
            }
            for g in table.get("GlobalSecondaryIndexes", [])
        ]
        found = ModelTable(path.name, table["TableName"], key_schema, definitions, gsis)
        raw = list(table.get("TableData", []))
        for facet in table.get("TableFacets", []):
            raw.extend(facet.get("TableData", []))
        keys = [k["AttributeName"] for k in key_schema]
        seen: set[tuple[str, ...]] = set()
        for wire in raw:
            item = {}
            for name, value in wire.items():
                try:
                    item[name] = values.decode(value)
                except (TypeError, ValueError, KeyError, AttributeError):
                    found.skipped += 1
            key = tuple(json.dumps(values.to_json(item.get(k))) for k in keys)
            if key not in seen:
                seen.add(key)
                found.items.append(item)
        yield found


@functools.cache
def corpus() -> tuple[tuple[str, ModelTable], ...]:
    """Every table of every model file: (file name, table), read once per process."""
    return tuple((path.name, t) for path in model_files() for t in model_tables(path))
