"""UNDO 'journal' (or UNDO LAST): restore every item a journal recorded, unless it changed
since (then it is listed, never overwritten). An undo writes, so it is guarded like a write;
it cannot be rolled back, so it is refused inside BEGIN … COMMIT.

Before anything is read or written:

- the journal must be whole: a file with lines missing, moved or edited (its sequence numbers
  or an end line's checksum disagree) is refused unless ``FORCE DAMAGED``; a statement with no
  end line (its process was killed, or the file was cut) is undone as far as it goes, with a
  loud warning saying so;
- it must have been written against this endpoint and region: otherwise it is refused, naming
  both, unless ``FORCE TARGET``.

Each item is read (strongly consistent) first, then:

- still as the statement left it: put back with a conditional write (the same "still as left"
  condition). If that write is sent again after a lost answer and its condition then fails,
  the item is read once more: already as the journal's old image means the lost attempt
  applied (restored, journaled exactly: the item was read as the statement left it just
  before), as every write statement resolves its lost answers;
- already as before the statement: nothing to do, said so (an earlier undo restored it, or, for
  a write whose outcome was never journaled, the write did not apply);
- a write whose outcome was never journaled but whose intent line holds its images (its read
  returned the whole item): restored like any other when the item is exactly as that write
  leaves it, and said so; an intent without images is listed as unknown, never guessed at;
- anything else: changed since, listed and left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import guards, values
from dynosql.dynamo.writer import Outcome, WriteStats
from dynosql.errors import DynosqlError, GuardError
from dynosql.guards import Effects
from dynosql.journal import (
    JournalFile,
    Restore,
    WriteAhead,
    journal_dir,
    read_journal,
    restores,
)
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements.kind import Kind, named

if TYPE_CHECKING:
    from dynosql.context import Context

UNKNOWN_STATE = "unknown: sent, outcome not journaled"
CHANGED_STATE = "changed since"
ALREADY_STATE = "already as before"

# --- undo ----------------------------------------------------------------------------------------


def run_undo(ctx: Context, statement: ast.Undo) -> Result:
    """Restore every item a journal recorded, unless it changed since (then list it)."""
    path = newest_journal(ctx) if statement.last else statement.path
    journal_file = read_journal(path)
    warnings = _checked(ctx, journal_file, statement)
    tables = {e.table for e in journal_file.entries}
    key_names = {t: ctx.table(t).keys.names for t in tables}
    stats = WriteStats(verb="UNDO", table=", ".join(sorted(tables)) or "-")
    stats.capacity_estimated = ctx.estimating
    todo = list(restores(journal_file, key_names))
    stats.matched = len(todo)
    warnings.extend(_unsent_notes(journal_file))
    # sent, but the process stopped before the answer was journaled: never guessed at, listed
    unknown = [
        {"table": u.table, **u.key, "journal_line": u.line, "state": UNKNOWN_STATE}
        for u in journal_file.unknown
    ]
    what = describe(journal_file, len(todo))
    if statement.last and (ctx.doors.assume_yes or guards.dry_run(ctx) or not todo):
        ctx.tell(what)  # said here when nobody is asked (a question says it otherwise)
    if guards.dry_run(ctx) or not todo:
        stats.dry_run = guards.dry_run(ctx)
        stats.finish()
        return _answer(stats, [], unknown, warnings)
    if statement.last:  # the newest journal, which the user did not name: always asks
        refusal = f"refused: UNDO LAST needs a confirmation, run it with --yes ({what})"
        if not ctx.confirmed(f"{what}. Undo it?", refusal):
            raise GuardError("not confirmed: nothing was written")
    else:  # as a write of that many items: more than --confirm-over asks (or needs --yes)
        guards.confirm_writes(
            ctx, f"UNDO {len(todo):,} writes to {stats.table} from {path}?", len(todo), False
        )
    journal = ctx.open_journal("undo")
    ctx.last_write = stats  # Ctrl-C: the front door names the undo's own journal
    writer = ctx.writer(stats)
    by_id = {id(r): r for r in todo}
    states: dict[int, str] = {}  # why a restore did not write, by its id
    listed: list[dict[str, Any]] = []
    already: list[Restore] = []
    recovered: list[Restore] = []  # restored from an unanswered intent's images

    # write-ahead, a chunk at a time: each intent says what its restore will do (from the
    # statement's new image to its old one), should the answer be lost. Restores of several
    # tables: the journal keeps one table per intent line, so a chunk per table
    aheads: dict[str, WriteAhead[dict[str, Any]]] = (
        {}
        if journal is None
        else {
            table: WriteAhead(
                journal,
                table,
                lambda t: by_id[t["id"]].entry.key,
                lambda t: (by_id[t["id"]].entry.new, by_id[t["id"]].entry.old),
            )
            for table in tables
        }
    )

    def restore(target: dict[str, Any]) -> Outcome:
        r = by_id[target["id"]]
        entry = r.entry
        wire_key = values.encode_item(entry.key)
        if entry.table in aheads:
            aheads[entry.table].start(target)
        # the condition checks every attribute the statement left, but cannot say "and no
        # other attribute": a strongly consistent read first catches an attribute added since
        current = writer.read_item(entry.table, wire_key)
        if current != entry.new:
            states[id(r)] = ALREADY_STATE if current == entry.old else CHANGED_STATE
            return Outcome(target, False)
        method = "put_item" if r.operation == "PutItem" else "delete_item"
        response, _failure, retried = writer.call_or_failure(method, r.params)
        if response is None:
            # a retried restore whose condition failed: its own lost attempt may have applied
            if retried and writer.read_item(entry.table, wire_key) == entry.old:
                writer.charge(writer.change_units(entry.new, entry.old, ctx.table(entry.table)))
                return Outcome(target, True, entry.new, entry.old)
            states[id(r)] = CHANGED_STATE
            return Outcome(target, False)
        attributes = response.get("Attributes")
        before = values.decode_item(attributes) if attributes else None
        writer.charge(writer.change_units(before, entry.old, ctx.table(entry.table)))
        return Outcome(target, True, before, entry.old)

    def done(outcome: Outcome) -> None:
        r = by_id[outcome.target["id"]]
        if not outcome.written:
            if journal is not None:
                journal.unchanged(r.entry.table, r.entry.key)
            if states.get(id(r)) == ALREADY_STATE:
                already.append(r)
                return
            stats.skipped += 1
            listed.append(
                {
                    "table": r.entry.table,
                    **r.entry.key,
                    "journal_line": r.entry.line,
                    "state": CHANGED_STATE,
                }
            )
            return
        stats.changed += 1
        if r.entry.unanswered:
            recovered.append(r)
        if journal is not None:
            journal.record(r.entry.table, r.entry.key, outcome.old, outcome.new)

    try:
        if journal is not None:
            quoted = str(path).replace("'", "''")
            journal.begin(stats.table, (), f"UNDO '{quoted}'", ctx.write_target(stats.table))
            stats.journal = str(journal.path)
        # an item written twice must come back to its first state: then one at a time, newest
        # first; else concurrently
        keys = [(r.entry.table, repr(sorted(r.entry.key.items()))) for r in todo]
        if len(set(keys)) != len(keys):
            writer.workers = 1
        writer.run(_announced(aheads, [{"id": id(r)} for r in todo], by_id), restore, done)
    finally:
        for ahead in aheads.values():
            ahead.close()
        if journal is not None and not journal.finish(keep=ctx.keep_journal()):
            stats.journal = None  # nothing written: nothing to undo
        stats.finish()
        ctx.ledger.settle(stats)
    warnings.extend(_already_notes(already))
    if recovered:
        warnings.append(
            f"{len(recovered):,} write(s) whose answer was never journaled (lost, or the process "
            "stopped) had applied: restored from the item their intent line holds as read"
        )
    return _answer(stats, listed, unknown, warnings)


def _announced(
    aheads: dict[str, WriteAhead[dict[str, Any]]],
    targets: list[dict[str, Any]],
    by_id: dict[int, Restore],
) -> Iterator[dict[str, Any]]:
    """The restores in order, each table's intents journaled ahead a chunk at a time."""
    if not aheads:
        yield from targets
        return
    if len(aheads) == 1:
        yield from next(iter(aheads.values()))(targets)
        return
    for target in targets:  # several tables: one intent (and fsync) each, in order
        yield from aheads[by_id[target["id"]].entry.table]([target])


def newest_journal(ctx: Context) -> str:
    """UNDO LAST's journal: the ``--journal`` file, else the newest journal in the journal
    directory that is not an undo's own (so a second UNDO LAST finds the same write, already
    undone, rather than redoing it)."""
    if ctx.journal_file:
        return ctx.journal_file
    directory = journal_dir(ctx.settings.journal_dir)
    if directory is None:
        raise DynosqlError("UNDO LAST: journaling is off (journal_dir = off): there is no journal")
    candidates = sorted(directory.glob("*.jsonl"), reverse=True) if directory.is_dir() else []
    for candidate in candidates:
        if not _is_undo(candidate):
            return str(candidate)
    raise DynosqlError(f"UNDO LAST: no journal of a write in {directory}")


def _is_undo(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return True  # unreadable: not a candidate
    return '"statement":"UNDO ' in first


def describe(journal_file: JournalFile, writes: int) -> str:
    """What UNDO LAST is about to do, said before it asks."""
    header = journal_file.headers[0] if journal_file.headers else {}
    statement = " ".join(str(header.get("statement", "?")).split())
    if len(statement) > 200:
        statement = statement[:197] + "…"
    target = header.get("target") or {}
    where = f" on {target.get('endpoint')} ({target.get('region')})" if target else ""
    more = (
        f" and {len(journal_file.headers) - 1} more statement(s)"
        if len(journal_file.headers) > 1
        else ""
    )
    return (
        f"UNDO {journal_file.path}: {statement}{more}, {header.get('started', '?')}{where}: "
        f"{writes:,} item(s) to restore"
    )


def _checked(ctx: Context, journal_file: JournalFile, statement: ast.Undo) -> list[str]:
    """Refuse a damaged journal or one written against another target (unless forced); the
    loud warnings to give otherwise."""
    warnings: list[str] = []
    trust = journal_file.trust
    said = trust.warning()
    if trust.damage is not None and not statement.force_damaged:
        raise GuardError(
            f"{journal_file.path}: {said}; nothing was undone (FORCE DAMAGED, or "
            "--force-damaged, undoes the lines that can be read)"
        )
    if said is not None:
        warnings.append(said)
    for header in journal_file.headers:
        there = header.get("target")
        if there is None:
            continue  # an older journal: nothing recorded to compare
        here = ctx.write_target(header.get("table") if there.get("table_arn") else None)
        compared = ["endpoint", "region"] + (["table_arn"] if "table_arn" in here else [])
        if any(there.get(k) != here.get(k) for k in compared):
            if statement.force_target:
                warnings.append(f"undoing writes made on {_where(there)} on {_where(here)}")
                continue
            raise GuardError(
                f"{journal_file.path} holds writes made on {_where(there)}, not on "
                f"{_where(here)} where this session writes: nothing was undone (FORCE TARGET, "
                "or --force-target, undoes it here)"
            )
    return warnings


def _where(target: dict[str, Any]) -> str:
    arn = target.get("table_arn")
    return f"{target.get('endpoint')} (region {target.get('region')}" + (
        f", {arn})" if arn else ")"
    )


def _unsent_notes(journal_file: JournalFile) -> list[str]:
    """Writes the journal says never applied: not sent, or refused (by kind of error)."""
    notes = []
    not_sent = [u for u in journal_file.unsent if u.why is None]
    refused = [u for u in journal_file.unsent if u.why is not None]
    if not_sent:
        notes.append(
            f"{len(not_sent):,} write(s) were never sent (the statement stopped first): "
            "nothing to restore"
        )
    if refused:
        whys = sorted({str(u.why).split(":")[0] for u in refused})
        notes.append(
            f"{len(refused):,} write(s) were sent and refused by DynamoDB ({', '.join(whys)}): "
            "not applied, nothing to restore"
        )
    return notes


def _already_notes(already: list[Restore]) -> list[str]:
    restored = sum(1 for r in already if not r.entry.unanswered)
    unapplied = len(already) - restored
    notes = []
    if restored:
        notes.append(
            f"{restored:,} item(s) already as before the statement (already restored): "
            "nothing to do"
        )
    if unapplied:
        notes.append(
            f"{unapplied:,} write(s) whose outcome was not journaled had not applied (the "
            "item is as it was read before them): nothing to do"
        )
    return notes


def _answer(
    stats: WriteStats,
    conflicts: list[dict[str, Any]],
    unknown: list[dict[str, Any]],
    notes: list[str],
) -> Result:
    """The items undo did not restore, each with why (`state`); a status when none."""
    warnings = list(notes)
    if conflicts:
        warnings.append(
            f"{len(conflicts)} item(s) changed after the statement: not restored (listed)"
        )
    if unknown:
        warnings.append(
            f"{len(unknown)} write(s) were sent but their outcome never reached the journal (the "
            "process stopped first): their state is unknown, not restored (listed; check them)"
        )
    if not conflicts and not unknown:
        return Result.status(stats.footer(False), stats, warnings)
    return Result(
        ["table", "journal_line", "state"],
        iter(conflicts + unknown),
        stats,
        warnings,
        open_columns=True,
    )


def _run(ctx: Context, statement: ast.Undo) -> Result:
    return run_undo(ctx, statement)


KINDS = {ast.Undo: Kind(named("UNDO"), _run, lambda _s: Effects(writes=True, rollback=False))}
