"""COPY FROM's undo journal: the old image of every key a load overwrites.

BatchWriteItem returns no old images. So, while journaling is on, each batch of (at most 25,
distinct) keys is read first with one strongly consistent BatchGetItem (`plan_key_gets`;
UnprocessedKeys retried, the RCU counted in the load's footer) and, once DynamoDB has processed
each put, the load journals it exactly as UPSERT does: the old image, or None when the key did
not exist (undo then deletes the item, if it is still as the load left it), and the item put.
`dynosql undo FILE` needs nothing COPY-specific.

The read is strongly consistent so a key repeated later in the file sees the load's own earlier
write. The read and the write are two calls, not one atomic PutItem with ALL_OLD: a change
another client makes to the same item between them (milliseconds) is overwritten and not in the
journal. With journaling off (``SET journal_dir = off``, as for UPSERT) nothing is read and no
journal is kept.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from . import values
from .execute import Executor, key_tuple
from .journal import Journal
from .plan.cost import write_units
from .plan.planner import plan_key_gets
from .result import Stats
from .write_statement import open_journal

if TYPE_CHECKING:
    from .catalog import TableInfo
    from .session import Session


class LoadJournal:
    """The journal of one COPY FROM and the reads that feed it; `before` and `written` run in
    the load's writer thread, one batch after the other (file order)."""

    def __init__(self, session: Session, table: TableInfo, journal: Journal, statement: str):
        self.table = table
        self.names = table.keys.names
        self.journal = journal
        # its own executor: no progress line from the writer thread; --max-rcu still applies
        limits = session.executor().limits
        self.executor = Executor(
            session.client, session.estimating, limits, None, session.cancelled
        )
        self.reads = Stats(capacity_estimated=session.estimating)
        self._batch: dict[tuple, tuple[dict, dict, dict | None]] = {}  # key, new, old
        self.estimating = session.estimating
        self.overwrite_units = Decimal(0)  # estimated WCU the new images alone do not count
        journal.begin(table.name, self.names, statement)

    @classmethod
    def open(cls, session: Session, table: TableInfo, statement: str) -> LoadJournal | None:
        """The load's journal, or None when journaling is off."""
        journal = open_journal(session, table.name)
        return None if journal is None else cls(session, table, journal, statement)

    @property
    def path(self) -> str:
        return str(self.journal.path)

    @property
    def rcu(self) -> Decimal:
        return self.reads.capacity

    def before(self, items: list[dict]) -> None:
        """Read the current images of the batch's keys (its keys are distinct)."""
        keys = [{n: item[n] for n in self.names} for item in items]
        plan = plan_key_gets(self.table, keys, consistent=True)
        old = {key_tuple(i, self.names): i for i in self.executor.items(plan, self.reads)}
        self.reads.operations.clear()  # one label a batch is noise; the footer says it once
        self._batch = {}
        for key, item in zip(keys, items, strict=True):
            tag = key_tuple(key, self.names)
            self._batch[tag] = (key, item, old.get(tag))

    def written(self, requests: list[dict]) -> None:
        """Journal the puts DynamoDB has processed (BatchWriteItem's `on_written`)."""
        for request in requests:
            wire = request["PutRequest"]["Item"]
            tag = key_tuple({n: values.decode(wire[n]) for n in self.names}, self.names)
            key, new, old = self._batch[tag]
            self.journal.record(self.table.name, key, old, new)
            if old is not None and self.estimating:  # an overwrite is billed for the larger image
                extra = write_units(values.item_size(old)) - write_units(values.item_size(new))
                self.overwrite_units += max(Decimal(0), extra)

    def close(self, keep_empty: bool) -> str | None:
        """Close the file; an empty journal is removed unless it is the user's own file.
        The journal's path, or None when it was removed."""
        self.journal.close()
        if not self.journal.entries and not keep_empty:
            self.journal.path.unlink(missing_ok=True)
            return None
        return self.path
