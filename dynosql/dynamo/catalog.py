"""The one place that calls DescribeTable/ListTables, and caches what it learns as
``dynosql.plan.schema.TableInfo`` (plain data, on the pure side)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynosql.dynamo.capabilities import Capabilities
from dynosql.dynamo.retry import RetryPolicy
from dynosql.errors import PlanError, not_dynamodb
from dynosql.plan.schema import TableInfo, table_info


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
    """DescribeTable/ListTables through one client, cached per session. The port that owns it
    forgets a table's entry when it sends a change to that table (`forget`); a caller that
    needs the table as it is now asks for it ``fresh``.

    Each call goes through `policy()`, the session's retry policy (dynamo.retry); without one,
    each is sent once (botocore's own attempts aside), as a caller that does not know the
    session's deadline must.

    A backend that reports no table size (moto: see `Capabilities`) gets one measured from a
    small sample read, so that estimates have something to stand on. Never done against AWS."""

    def __init__(
        self,
        client: Any,
        capabilities: Callable[[], Capabilities],
        sampler: Callable[[str], list[dict[str, Any]]],
        policy: Callable[[], RetryPolicy] | None = None,
        heard: Callable[[dict[str, Any]], None] | None = None,
        suggest: Callable[[str, list[str]], list[str]] = lambda _name, _names: [],
    ):
        # did-you-mean for an unknown table name (the session gives its one rule for names)
        self.suggest = suggest
        self.heard = heard  # each DescribeTable answer: the session learns the backend from it
        self.sampler = sampler  # a few items of a table (Session.sample: retried, guarded)
        self.client = client
        self.capabilities = capabilities
        self.policy = policy or (lambda: RetryPolicy.once())
        self._tables: dict[str, TableInfo] = {}
        # DescribeTable answers the port received otherwise (a wait's polls), not yet read
        self._described: dict[str, dict[str, Any]] = {}
        self._names: list[str] | None = None

    def table_names(self, fresh: bool = False) -> list[str]:
        """ListTables (cached; `fresh`: asked again, the descriptions kept)."""
        if self._names is None or fresh:
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

    def table(self, name: str, fresh: bool = False) -> TableInfo:
        """DescribeTable, cached; `fresh`: sent now, its answer cached in place of what was (a
        table gone since is forgotten)."""
        if fresh:
            self.forget_table(name)
        if name not in self._tables:
            known = self._described.pop(name, None)
            info = table_info(known or self._describe(name))
            if (
                not self.capabilities().reports_table_size
                and info.item_count
                and not info.size_bytes
            ):
                info = self._with_sampled_size(info)
            self._tables[name] = info
        return self._tables[name]

    def _describe(self, name: str) -> dict[str, Any]:
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
        if self.heard is not None:
            self.heard(description)
        return dict(description["Table"])

    def described(self, name: str, table: dict[str, Any] | None) -> None:
        """What a DescribeTable the port sent otherwise (a wait's poll) said of table `name`
        (None: gone): the newest word on it, kept in place of what was cached, so that the
        statement after a table change need not describe the table again."""
        self.forget_table(name)
        if table is not None:
            self._described[name] = table

    def _with_sampled_size(self, info: TableInfo) -> TableInfo:
        from dataclasses import replace

        from dynosql.values import item_size

        sample = [item_size(i) for i in self.sampler(info.name)]
        if not sample:
            return info
        average = sum(sample) // len(sample)
        return replace(info, size_bytes=average * info.item_count)

    def _unknown(self, name: str) -> str:
        region = getattr(getattr(self.client, "meta", None), "region_name", None)
        where = f" in region {region}" if region else ""
        try:
            names = self.table_names()
            if name in names:  # listed, then dropped elsewhere: the listing is stale
                names = self.table_names(fresh=True)
            names = sorted(names)
        except Exception:  # noqa: BLE001 - the listing only decorates the message
            return f"no table named {name}{where} (the table list could not be read either)"
        listing = ", ".join(names) if names else "none"
        near = self.suggest(name, names)
        guess = f"; did you mean {' or '.join(near)}?" if near else ""
        return f"no table named {name}{where}{guess} (tables: {listing})"

    def forget(self, name: str | None = None) -> None:
        """Forget what is cached of table `name` (every table when None) and the table names:
        the port has just sent it a change (or the user asked for it all afresh)."""
        if name is None:
            self._tables.clear()
            self._described.clear()
        else:
            self.forget_table(name)
        self._names = None

    def forget_table(self, name: str) -> None:
        """Forget table `name`'s description (the table names kept)."""
        self._tables.pop(name, None)
        self._described.pop(name, None)
