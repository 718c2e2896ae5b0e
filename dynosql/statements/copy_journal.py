"""COPY FROM's undo journal: the old image of every key a load overwrites.

BatchWriteItem returns no old images. So, while journaling is on, each batch of (at most 25,
distinct) keys is read first with one strongly consistent BatchGetItem (`plan_key_gets`;
UnprocessedKeys retried, the RCU counted in the load's footer) and, once DynamoDB has processed
each put, the load journals it exactly as UPSERT does: the old image, or None when the key did
not exist (undo then deletes the item, if it is still as the load left it), and the item put.
`dynosql undo FILE` needs nothing COPY-specific. As for every write, the journal is
write-ahead: a batch's keys are on disk (intent lines) before the batch is sent, each with its
images (the item as read, or None, and the item put), so a load killed between DynamoDB's answer
and the journal's lines leaves intents undo can still restore from: an item exactly as the load
put it is put back as it was read, one as it was read is left alone.

The read is strongly consistent so a key repeated later in the file sees the load's own earlier
write. The read and the write are two calls, not one atomic PutItem with ALL_OLD: a change
another client makes to the same item between them (milliseconds) is overwritten and not in the
journal. With journaling off (``SET journal_dir = off``, as for UPSERT) nothing is read and no
journal is kept.

A table that is empty when the load starts (one strongly consistent Scan of one item says so)
needs no reads: a key the load has not written yet did not exist. The keys written are
remembered in a fixed-size Bloom filter (`KeysSeen`, memory flat in the row count), so only a
key that may repeat one written earlier in the file is read; a false positive costs a read,
never a wrong journal line. The window is wider there: an item another client adds during the
load and the load then overwrites is journaled as new (undo deletes it).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import guards, values
from dynosql.journal import Journal, refusal
from dynosql.plan.planner import Options, plan_select
from dynosql.result import counted, format_capacity
from dynosql.sql import ast
from dynosql.statements.images import ImageReader
from dynosql.values import key_tuple, write_units

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo


class LoadJournal:
    """The journal of one COPY FROM and the reads that feed it; `before` and `written` run in
    the load's writer thread, one batch after the other (file order)."""

    def __init__(self, ctx: Context, table: TableInfo, journal: Journal, statement: str):
        self.table = table
        self.names = table.keys.names
        self.journal = journal
        self.reader = ImageReader(ctx)  # its reads: no progress line from the writer thread
        self.reads = self.reader.stats
        self._batch: dict[
            tuple[Any, ...], tuple[dict[str, Any], dict[str, Any] | None]
        ] = {}  # key: (new, old) images
        self.estimating = ctx.estimating
        self.scans = 0
        # None: read every batch's keys (under --fail-on-scan, too: no Scan of any size)
        self.seen = KeysSeen() if guards.may_sample(ctx) and self._empty() else None
        journal.begin(
            table.name, self.names, statement, ctx.write_target(table.name), tables=[table]
        )

    def _empty(self) -> bool:
        """Whether the table holds no item now (a consistent Scan with Limit 1)."""
        select = ast.Select(table=self.table.name, index=None, items=None, limit=1)
        plan = plan_select(select, self.table, Options(consistent=True, segments=1))
        found = next(iter(self.reader.items(plan)), None)
        self.reads.operations.clear()
        self.scans = self.reads.requests
        return found is None

    def footer(self) -> str:
        """The reads that fed the journal: ``+ 1 Scan, 2 BatchGetItem calls · 4 RCU``."""
        rcu = format_capacity(self.reads.capacity)
        rcu = f"~{rcu} RCU est." if self.reads.capacity_estimated else f"{rcu} RCU"
        gets = self.reads.requests - self.scans
        return f"+ {counted(self.scans, 'Scan')}, {counted(gets, 'BatchGetItem call')} · {rcu}"

    @classmethod
    def open(cls, ctx: Context, table: TableInfo, statement: str) -> LoadJournal | None:
        """The load's journal, or None when journaling is off."""
        journal = ctx.open_journal(table.name)
        if journal is None:
            return None
        try:
            return cls(ctx, table, journal, statement)
        except BaseException:  # the first read failed: no journal left behind
            journal.finish(keep=ctx.keep_journal())
            raise

    @property
    def path(self) -> str:
        return str(self.journal.path)

    @property
    def rcu(self) -> Decimal:
        return self.reads.capacity

    def before(self, items: list[dict[str, Any]]) -> None:
        """Read the current images of the batch's keys (its keys are distinct)."""
        keys = [{n: item[n] for n in self.names} for item in items]
        tags = [key_tuple(key, self.names) for key in keys]
        wanted = keys
        if self.seen is not None:  # an empty table: read only keys that may repeat
            wanted = [k for k, t in zip(keys, tags, strict=True) if self.seen.add(t)]
        old = self.reader.read(self.table, wanted) if wanted else {}
        self._batch = {tag: (item, old.get(tag)) for tag, item in zip(tags, items, strict=True)}

    def sending(self, _requests: list[dict[str, Any]]) -> None:
        """The batch's keys, on disk (one write, one fsync) just before it is first sent, with
        each put's images: the item as read before it (None: absent) and the item put. Should
        the process die before the answer is journaled, undo tells from each item whether its
        put applied, and restores it. A batch the load never sent (--max-wcu, Ctrl-C) leaves
        no intent behind."""
        batch = list(self._batch.values())
        keys = [{n: item[n] for n in self.names} for item, _old in batch]
        self.journal.intents(self.table.name, keys, [(old, new) for new, old in batch])

    def failed(self, err: BaseException) -> None:
        """The batch's call failed: puts DynamoDB refused (a ValidationException: none of the
        batch was applied) are journaled as refused; any other failure leaves them unanswered
        (their outcome is unknown)."""
        why = refusal(err)
        if why is not None:
            keys = [{n: item[n] for n in self.names} for item, _old in self._batch.values()]
            self.journal.refused_all(self.table.name, keys, why)
        self._batch = {}

    def written(self, requests: list[dict[str, Any]]) -> Decimal:
        """Journal the puts DynamoDB has processed (BatchWriteItem's `on_written`); the
        estimated WCU their new images alone do not count (an overwrite is billed for the
        larger image)."""
        done = []
        overwrite = Decimal(0)
        for request in requests:
            wire = request["PutRequest"]["Item"]
            tag = key_tuple({n: values.decode(wire[n]) for n in self.names}, self.names)
            new, old = self._batch.pop(tag)
            key = {n: wire[n] for n in self.names}
            done.append((key, None if old is None else values.encode_item(old), wire))
            if old is not None and self.estimating:  # an overwrite is billed for the larger image
                extra = write_units(values.item_size(old)) - write_units(values.item_size(new))
                overwrite += max(Decimal(0), extra)
        self.journal.records_wire(self.table.name, done)
        return overwrite

    def close(self, keep_empty: bool) -> str | None:
        """Close the file; one with nothing to undo is removed unless it is the user's own
        file. The journal's path, or None when it was removed."""
        return self.path if self.journal.finish(keep=keep_empty) else None


class KeysSeen:
    """A Bloom filter of keys: `add` says whether the key may have been added before (False:
    certainly not). 2**26 bits (8 MB) and 3 probes: after a million keys a new key is taken
    for a seen one about once in 12,000; after ten million, once in 21."""

    BITS = 1 << 26

    def __init__(self) -> None:
        self.bits = bytearray(self.BITS // 8)

    def add(self, key: Any) -> bool:
        h = hash(key) & 0xFFFFFFFFFFFFFFFF
        first, step = h & (self.BITS - 1), (h >> 26 | 1) & (self.BITS - 1)
        present = True
        for i in range(3):
            bit = (first + i * step) & (self.BITS - 1)
            byte, mask = bit >> 3, 1 << (bit & 7)
            if not self.bits[byte] & mask:
                present = False
                self.bits[byte] |= mask
        return present
