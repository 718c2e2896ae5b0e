"""Undo's writes: each item read first, then put back only where it is still as the journal left
it, journaled (write-ahead) in a journal of the undo's own, never the file it restores.

Where an undo's journal goes: the ``--journal`` file when one is given and it is not the journal
being undone; otherwise a new file ``<time>-undo.jsonl``, beside the ``--journal`` file being
undone, or in the journal directory. Its header names the journal and the statements it undoes
(``undoes``), so an undo's entries never become targets of the same undo, even in a file that
holds both (an older dynosql appended undos to the file they undid). The journal is opened at
the first item that needs a write: an undo that finds everything already restored writes
nothing at all, not even a journal.

The restores go a chunk at a time (`AHEAD` items): the chunk's items are read (strongly
consistent BatchGetItem), each is classified (already as before; still as the journal left it,
in which of its `Restore.left` states; or changed since), the intents of those to write are
put on disk (one fsync), and they are sent, each conditional on the state it was read in. An
item with several chains (someone else wrote it between two of the journal's writes) is
restored newest chain first, one round per chain, so a round never reads an item its own
writes are about to change.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.errors import DynosqlError
from dynosql.journal import (
    AHEAD,
    Images,
    Journal,
    Restore,
    WriteAhead,
    journal_dir,
    new_journal_path,
)
from dynosql.journal.file import refusal
from dynosql.journal.restore import same_image, state_of
from dynosql.result import WriteStats
from dynosql.statements.images import ImageReader
from dynosql.statements.write_one import Outcome
from dynosql.values import key_tuple

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

CHANGED_STATE = "changed since"
REFUSED_STATE = "not restored: DynamoDB refused it"


def undo_journal(ctx: Context, undone: str) -> tuple[Journal | None, bool]:
    """The undo's own journal (see the module docstring) and whether to keep it when it holds
    nothing (the user's ``--journal`` file); None when journaling is off."""
    user = ctx.journal_file
    if user:
        if not same_file(user, undone):
            return Journal(user), True
        return Journal(new_journal_path(Path(user).parent, "undo")), False  # beside it
    directory = journal_dir(ctx.settings.journal_dir)
    if directory is None:
        return None, False
    return Journal(new_journal_path(directory, "undo"), numbered=True), False


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (by inode where both exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


class Restorer:
    """The writes of one undo, and what they found: `listed` (not restored, with why),
    `already` (nothing to do), `recovered` (an unanswered write had applied: restored)."""

    def __init__(
        self,
        ctx: Context,
        stats: WriteStats,
        undone: str,
        undoes: list[str],
        tables: dict[str, TableInfo],
    ):
        self.ctx = ctx
        self.stats = stats
        self.undone = undone
        self.undoes = undoes  # the ids (or header lines) of the statements undone
        self.tables = tables
        self.writer = ctx.port.writer(stats)
        self.reader = ImageReader(ctx)
        self.listed: list[tuple[Restore, str]] = []
        self.already: list[Restore] = []
        self.recovered = 0
        self.journal: Journal | None = None
        self._keep = False
        self._opened = False
        self._aheads: dict[str, WriteAhead[dict[str, Any]]] = {}

    def run(self, todo: list[Restore]) -> None:
        """Restore every item of `todo` (newest first), round by round, a chunk at a time."""
        try:
            for round_ in _rounds(todo):
                for start in range(0, len(round_), AHEAD):
                    self._chunk(round_[start : start + AHEAD])
        finally:
            for ahead in self._aheads.values():
                ahead.close()
            if self.journal is not None and not self.journal.finish(keep=self._keep):
                self.stats.journal = None  # nothing written: nothing to undo
            self.stats.capacity += self.reader.stats.capacity

    def _chunk(self, chunk: list[Restore]) -> None:
        now = self._read(chunk)
        needed: list[tuple[Restore, int]] = []
        for r in chunk:
            current = now[id(r)]
            state = state_of(current, r.left)
            if same_image(current, r.target):
                self.already.append(r)
            elif state is not None:
                needed.append((r, state))
            else:
                self.stats.skipped += 1
                self.listed.append((r, CHANGED_STATE))
        if not needed:
            return
        journal = self._journal()
        targets: list[dict[str, Any]] = [{"restore": r, "state": state} for r, state in needed]

        def announced() -> Iterator[dict[str, Any]]:
            if journal is None:
                yield from targets
                return
            for table in dict.fromkeys(r.table for r, _state in needed):
                yield from self._aheads[table]([t for t in targets if t["restore"].table == table])

        def write_one(target: dict[str, Any]) -> Outcome:
            r: Restore = target["restore"]
            if journal is not None:
                self._aheads[r.table].start(target)
            return self._restore(target, r, target["state"])

        def done(outcome: Outcome) -> None:
            r: Restore = outcome.target["restore"]
            if outcome.written:
                self.stats.changed += 1
                self.recovered += r.recovered(outcome.target["state"])
                if journal is not None:
                    journal.record(r.table, r.key, outcome.old, outcome.new)
                return
            if outcome.target.get("already"):
                self.already.append(r)
                if journal is not None:
                    journal.unchanged(r.table, r.key)
                return
            self.stats.skipped += 1
            self.listed.append((r, outcome.target.get("why", CHANGED_STATE)))
            if journal is not None and "why" not in outcome.target:
                journal.unchanged(r.table, r.key)

        self.writer.run(announced(), write_one, done)

    def _read(self, chunk: list[Restore]) -> dict[int, dict[str, Any] | None]:
        """Each restore's item as it is now (None: absent)."""
        out: dict[int, dict[str, Any] | None] = {}
        for table in dict.fromkeys(r.table for r in chunk):
            info = self.tables[table]
            mine = [r for r in chunk if r.table == table]
            found = self.reader.read(info, [r.key for r in mine])
            for r in mine:
                out[id(r)] = found.get(key_tuple(r.key, info.keys.names))
        return out

    def _restore(self, target: dict[str, Any], r: Restore, state: int) -> Outcome:
        info = self.tables[r.table]
        operation, params = r.request(state, info.keys.pk)
        try:
            response, _failure, retried = self.writer.send(
                operation, params, info, lambda _before: r.target
            )
        except DynosqlError as err:
            why = refusal(err)  # DynamoDB said no to this item: list it, restore the rest
            if why is None:
                raise
            if self.journal is not None:
                self.journal.refused(r.table, r.key, why)
            target["why"] = f"{REFUSED_STATE} ({why})"
            return Outcome(target, False)
        left = r.left[state]
        if response is None:
            # the condition failed: the item is not as read. Now as the target, it is restored:
            # by this restore's own lost first attempt (retried), else by another writer (an
            # undo killed with this write in flight, landing late): already, not changed since
            now = self.writer.read_item(r.table, values.encode_item(r.key))
            if same_image(now, r.target):
                if retried:
                    return Outcome(target, True, left, r.target)
                target["already"] = True
            return Outcome(target, False)
        attributes = response.get("Attributes")
        before = values.decode_item(attributes) if attributes else None
        return Outcome(target, True, before, r.target)

    def _journal(self) -> Journal | None:
        """The undo's journal, opened (and its header written) at the first write."""
        if self._opened:
            return self.journal
        self._opened = True
        self.journal, self._keep = undo_journal(self.ctx, self.undone)
        if self.journal is None:
            return None
        names = ", ".join(self.tables) or "-"
        quoted = self.undone.replace("'", "''")
        self.journal.begin(
            names,
            (),
            f"UNDO '{quoted}'",
            self.ctx.write_target(names if len(self.tables) == 1 else None),
            tables=self.tables.values(),
            undoes={"journal": str(Path(self.undone).resolve()), "statements": self.undoes},
        )
        self.stats.journal = str(self.journal.path)
        self._aheads = {
            table: WriteAhead(self.journal, table, _key_of, _images_of) for table in self.tables
        }
        return self.journal


def _key_of(target: dict[str, Any]) -> dict[str, Any]:
    key: dict[str, Any] = target["restore"].key
    return key


def _images_of(target: dict[str, Any]) -> Images:
    """A restore's intent images: from the state it was read in to the image before."""
    r: Restore = target["restore"]
    return r.left[target["state"]], r.target


def _rounds(todo: list[Restore]) -> list[list[Restore]]:
    """`todo` (newest first) as rounds: the n-th round holds each item's n-th chain."""
    rounds: list[list[Restore]] = []
    seen: dict[tuple[str, str], int] = {}
    for r in todo:
        item = (r.table, repr(sorted(values.encode_item(r.key).items())))
        n = seen.get(item, 0)
        seen[item] = n + 1
        if n == len(rounds):
            rounds.append([])
        rounds[n].append(r)
    return rounds
