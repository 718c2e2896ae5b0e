"""Items as they are now, read by their keys, strongly consistent: the images a journal and
undo need (COPY FROM's old images before a batch overwrites them, undo's "is the item still as
the journal left it?"). One BatchGetItem per 100 keys (UnprocessedKeys retried) through a
reader of its own: no progress line of its own, ``--max-rcu`` still applies, and the read units
are counted in `ImageReader.stats` for the statement's footer (the port counts them in the
ledger)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dynosql.evaluate import reads
from dynosql.plan.planner import BATCH_GET_KEYS, plan_key_gets
from dynosql.result import Stats
from dynosql.values import key_tuple

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.model import Plan
    from dynosql.plan.schema import TableInfo


class ImageReader:
    def __init__(self, ctx: Context):
        self.port = ctx.port
        self.stats = Stats(capacity_estimated=ctx.estimating)

    def items(self, plan: Plan) -> Iterator[dict[str, Any]]:
        """The items `plan` reads, counted in `stats` (and the ledger), no progress line."""
        pages = self.port.pages(plan, self.stats, progress=False)
        return reads.rows(pages, plan.statement.where)

    def read(
        self, table: TableInfo, keys: list[dict[str, Any]]
    ) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The items under `keys` (decoded, distinct) that exist, by `key_tuple`."""
        names = table.keys.names
        found: dict[tuple[Any, ...], dict[str, Any]] = {}
        for start in range(0, len(keys), BATCH_GET_KEYS):
            plan = plan_key_gets(table, keys[start : start + BATCH_GET_KEYS], consistent=True)
            for item in self.items(plan):
                found[key_tuple(item, names)] = item
            self.stats.operations.clear()  # one label a batch is noise
        return found
