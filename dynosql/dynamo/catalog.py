"""What the planner knows about a table: key schema, indexes and their projections, sizes.

``TableInfo`` is plain data (the planner is pure and takes it as an argument); ``Catalog``
is the one place that calls DescribeTable/ListTables, and caches what it learns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dynosql.dynamo.capabilities import Capabilities
from dynosql.dynamo.retry import RetryPolicy
from dynosql.errors import PlanError, not_dynamodb

SAMPLE_ITEMS = 100


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
    raw: dict = field(default_factory=dict, compare=False, repr=False)

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

    def index(self, name: str) -> IndexInfo:
        for ix in self.indexes:
            if ix.name == name:
                return ix
        known = ", ".join(ix.name for ix in self.indexes if ix.name) or "none"
        raise PlanError(f"table {self.name} has no index {name} (indexes: {known})")


def _key_schema(key_schema: list[dict], types: dict[str, str]) -> KeySchema:
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


def describe(policy: RetryPolicy, client: Any, name: str) -> dict[str, Any] | None:
    """DescribeTable now (never cached: a wait for ACTIVE polls it), through `policy`; the
    ``Table`` description, or None when there is no such table."""
    sent = policy.send(
        client.describe_table, TableName=name, answers=("ResourceNotFoundException",)
    )
    if sent.error is not None:
        return None
    if "Table" not in sent.value:
        raise not_dynamodb("DescribeTable", "a table description")
    return sent.value["Table"]


class Catalog:
    """DescribeTable/ListTables through one client, cached per session (``refresh`` forgets).

    Each call goes through `policy()`, the session's retry policy (dynamo.retry); without one,
    each is sent once (botocore's own attempts aside), as a caller that does not know the
    session's deadline must.

    A backend that reports no table size (moto: see `Capabilities`) gets one measured from a
    small sample read, so that estimates have something to stand on. Never done against AWS."""

    def __init__(
        self,
        client: Any,
        capabilities: Callable[[], Capabilities],
        sampler: Callable[[str], list[dict]],
        policy: Callable[[], RetryPolicy] | None = None,
    ):
        self.sampler = sampler  # a few items of a table (Session.sample: retried, guarded)
        self.client = client
        self.capabilities = capabilities
        self.policy = policy or (lambda: RetryPolicy.once())
        self._tables: dict[str, TableInfo] = {}
        self._names: list[str] | None = None

    def table_names(self) -> list[str]:
        if self._names is None:
            names: list[str] = []
            kwargs: dict[str, Any] = {}
            while True:
                page = self.policy().call(self.client.list_tables, **kwargs)
                if "TableNames" not in page:
                    raise not_dynamodb("ListTables", "TableNames")
                names.extend(page["TableNames"])
                if not page.get("LastEvaluatedTableName"):
                    break
                kwargs["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]
            self._names = names
        return self._names

    def table(self, name: str) -> TableInfo:
        if name not in self._tables:
            # a name DynamoDB cannot even validate is still "no such table"
            sent = self.policy().send(
                self.client.describe_table,
                TableName=name,
                answers=("ResourceNotFoundException", "ValidationException"),
            )
            if sent.error is not None:
                raise PlanError(self._unknown(name)) from sent.error
            description = sent.value
            if "Table" not in description:
                raise not_dynamodb("DescribeTable", "a table description")
            info = table_info(description["Table"])
            if (
                not self.capabilities().reports_table_size
                and info.item_count
                and not info.size_bytes
            ):
                info = self._with_sampled_size(info)
            self._tables[name] = info
        return self._tables[name]

    def _with_sampled_size(self, info: TableInfo) -> TableInfo:
        from dataclasses import replace

        from dynosql.values import item_size

        sample = [item_size(i) for i in self.sampler(info.name)]
        if not sample:
            return info
        average = sum(sample) // len(sample)
        return replace(info, size_bytes=average * info.item_count)

    def _unknown(self, name: str) -> str:
        from dynosql.sql.spelling import closest

        region = getattr(getattr(self.client, "meta", None), "region_name", None)
        where = f" in region {region}" if region else ""
        try:
            names = sorted(self.table_names())
        except Exception:  # noqa: BLE001 - the listing only decorates the message
            return f"no table named {name}{where} (the table list could not be read either)"
        listing = ", ".join(names) if names else "none"
        near = closest(name, names)
        guess = f"; did you mean {' or '.join(near)}?" if near else ""
        return f"no table named {name}{where}{guess} (tables: {listing})"

    def refresh(self) -> None:
        self._tables.clear()
        self._names = None
