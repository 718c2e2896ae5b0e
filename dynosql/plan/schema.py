"""What the planner knows about a table: key schema, indexes and their projections, sizes.

Plain data on the pure side: the planner and the evaluator take it as an argument, and
``table_info`` builds it from a DescribeTable answer without any I/O (tests use it offline).
The cache that asks DynamoDB for it is ``dynosql.dynamo.catalog``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dynosql.errors import PlanError


@dataclass(frozen=True)
class KeySchema:
    pk: str
    pk_type: str  # S, N or B
    sk: str | None = None
    sk_type: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.pk,) if self.sk is None else (self.pk, self.sk)


@dataclass(frozen=True)
class IndexInfo:
    """The base table or one of its indexes: an access path the planner can read through."""

    name: str | None  # None for the base table
    kind: str  # "table", "lsi" or "gsi"
    keys: KeySchema
    projection: str = "ALL"  # ALL, KEYS_ONLY or INCLUDE
    included: tuple[str, ...] = ()  # INCLUDE's NonKeyAttributes
    item_count: int = 0
    size_bytes: int = 0

    @property
    def label(self) -> str:
        return "table" if self.name is None else f"{self.kind.upper()} {self.name}"

    def holds(self, attribute: str, table_keys: KeySchema) -> bool:
        """Whether an item read through this path carries `attribute` (a top-level name)."""
        if self.projection == "ALL":
            return True
        if attribute in self.keys.names or attribute in table_keys.names:
            return True
        return self.projection == "INCLUDE" and attribute in self.included


@dataclass(frozen=True)
class TableInfo:
    name: str
    keys: KeySchema
    indexes: tuple[IndexInfo, ...] = ()
    item_count: int = 0
    size_bytes: int = 0
    billing_mode: str = "PAY_PER_REQUEST"
    status: str = "ACTIVE"
    provisioned_rcu: int | None = None
    provisioned_wcu: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def base(self) -> IndexInfo:
        return IndexInfo(None, "table", self.keys, "ALL", (), self.item_count, self.size_bytes)

    @property
    def access_paths(self) -> tuple[IndexInfo, ...]:
        return (self.base, *self.indexes)

    @property
    def average_item_size(self) -> int:
        if self.item_count and self.size_bytes:
            return max(1, self.size_bytes // self.item_count)
        return 200  # nothing known yet: a typical small item

    @property
    def key_types(self) -> dict[str, str]:
        """Every key attribute of the table and of its indexes, with its declared type (the
        AttributeDefinitions): the table's key first, in key order."""
        found: dict[str, str] = {}
        for path in self.access_paths:
            keys = path.keys
            found.setdefault(keys.pk, keys.pk_type)
            if keys.sk is not None and keys.sk_type is not None:
                found.setdefault(keys.sk, keys.sk_type)
        return found

    def index(self, name: str) -> IndexInfo:
        for ix in self.indexes:
            if ix.name == name:
                return ix
        known = ", ".join(ix.name for ix in self.indexes if ix.name) or "none"
        raise PlanError(f"table {self.name} has no index {name} (indexes: {known})")


def _key_schema(key_schema: list[dict[str, Any]], types: dict[str, str]) -> KeySchema:
    pk = next(k["AttributeName"] for k in key_schema if k["KeyType"] == "HASH")
    sk = next((k["AttributeName"] for k in key_schema if k["KeyType"] == "RANGE"), None)
    return KeySchema(pk, types.get(pk, "S"), sk, types.get(sk) if sk else None)


def table_info(description: dict[str, Any]) -> TableInfo:
    """Build TableInfo from a DescribeTable ``Table`` structure (pure; tests use it offline)."""
    types = {
        a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])
    }
    keys = _key_schema(description["KeySchema"], types)
    indexes = []
    for kind, field_name in (("lsi", "LocalSecondaryIndexes"), ("gsi", "GlobalSecondaryIndexes")):
        for ix in description.get(field_name) or []:
            projection = ix.get("Projection", {})
            indexes.append(
                IndexInfo(
                    name=ix["IndexName"],
                    kind=kind,
                    keys=_key_schema(ix["KeySchema"], types),
                    projection=projection.get("ProjectionType", "ALL"),
                    included=tuple(projection.get("NonKeyAttributes", ())),
                    item_count=int(ix.get("ItemCount") or 0),
                    size_bytes=int(ix.get("IndexSizeBytes") or 0),
                )
            )
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode")
    throughput = description.get("ProvisionedThroughput") or {}
    rcu = throughput.get("ReadCapacityUnits") or None
    return TableInfo(
        name=description["TableName"],
        keys=keys,
        indexes=tuple(indexes),
        item_count=int(description.get("ItemCount") or 0),
        size_bytes=int(description.get("TableSizeBytes") or 0),
        billing_mode=billing or ("PROVISIONED" if rcu else "PAY_PER_REQUEST"),
        status=description.get("TableStatus", "ACTIVE"),
        provisioned_rcu=rcu,
        provisioned_wcu=throughput.get("WriteCapacityUnits") or None,
        raw=description,
    )
