"""UNDO 'journal': restore every item a journal recorded, unless it changed since (then it is
listed, never overwritten). An undo writes, so it is guarded like a write; it cannot be rolled
back, so it is refused inside BEGIN … COMMIT."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynosql import guards, values
from dynosql.dynamo.writer import Outcome, WriteStats
from dynosql.guards import Effects
from dynosql.journal import read_journal, restores
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements.kind import Kind, named

if TYPE_CHECKING:
    from dynosql.context import Context

# --- undo ----------------------------------------------------------------------------------------


def run_undo(ctx: Context, path: str) -> Result:
    """Restore every item a journal recorded, unless it changed since (then list it)."""
    journal_file = read_journal(path)
    tables = {e.table for e in journal_file.entries}
    key_names = {t: ctx.table(t).keys.names for t in tables}
    stats = WriteStats(verb="UNDO", table=", ".join(sorted(tables)) or "-")
    stats.capacity_estimated = ctx.estimating
    todo = list(restores(journal_file, key_names))
    stats.matched = len(todo)
    conflicts: list[dict[str, Any]] = []
    # sent, but the process stopped before the answer was journaled: never guessed at, listed
    unknown = [
        {"table": u.table, **u.key, "journal_line": u.line, "state": UNKNOWN_STATE}
        for u in journal_file.unknown
    ]
    if guards.dry_run(ctx) or not todo:
        stats.dry_run = guards.dry_run(ctx)
        stats.finish()
        if unknown:
            return _undo_listing(stats, [], unknown)
        return Result.status(stats.footer(False), stats)
    # as a write of that many items: more than --confirm-over asks (or needs --yes)
    guards.confirm_writes(
        ctx, f"UNDO {len(todo):,} writes to {stats.table} from {path}?", len(todo), False
    )
    journal = ctx.open_journal("undo")
    writer = ctx.writer(stats)
    by_id = {id(r): r for r in todo}

    def restore(target: dict[str, Any]) -> Outcome:
        r = by_id[target["id"]]
        if journal is not None:
            journal.intent(r.entry.table, r.entry.key)
        # the condition checks every attribute the statement left, but cannot say "and no
        # other attribute": a strongly consistent read first catches an attribute added since
        current = writer.read_item(r.entry.table, values.encode_item(r.entry.key))
        if current != r.entry.new:
            return Outcome(target, False)
        method = "put_item" if r.operation == "PutItem" else "delete_item"
        response = writer.call(method, r.params)
        if response is None:
            return Outcome(target, False)
        attributes = response.get("Attributes")
        current = values.decode_item(attributes) if attributes else None
        writer.charge(writer.change_units(current, r.entry.old, ctx.table(r.entry.table)))
        return Outcome(target, True, current, r.entry.old)

    def done(outcome: Outcome) -> None:
        r = by_id[outcome.target["id"]]
        if not outcome.written:
            if journal is not None:
                journal.unchanged(r.entry.table, r.entry.key)
            stats.skipped += 1
            conflicts.append(
                {
                    "table": r.entry.table,
                    **r.entry.key,
                    "journal_line": r.entry.line,
                    "state": "changed since",
                }
            )
            return
        stats.changed += 1
        if journal is not None:
            journal.record(r.entry.table, r.entry.key, outcome.old, outcome.new)

    try:
        if journal is not None:
            journal.begin(stats.table, (), f"UNDO {path}")
            stats.journal = str(journal.path)
        # an item written twice must come back to its first state: then one at a time, newest
        # first; else concurrently
        keys = [(r.entry.table, repr(sorted(r.entry.key.items()))) for r in todo]
        if len(set(keys)) != len(keys):
            writer.workers = 1
        writer.run([{"id": id(r)} for r in todo], restore, done)
    finally:
        if journal is not None:
            journal.close()
        stats.finish()
        ctx.ledger.settle(stats)
    if conflicts or unknown:
        return _undo_listing(stats, conflicts, unknown)
    return Result.status(stats.footer(False), stats)


UNKNOWN_STATE = "unknown: sent, outcome not journaled"


def _undo_listing(
    stats: WriteStats, conflicts: list[dict[str, Any]], unknown: list[dict[str, Any]]
) -> Result:
    """The items undo did not restore, each with why (`state`)."""
    warnings = []
    if conflicts:
        warnings.append(
            f"{len(conflicts)} item(s) changed after the statement: not restored (listed)"
        )
    if unknown:
        warnings.append(
            f"{len(unknown)} write(s) were sent but their outcome never reached the journal (the "
            "process stopped first): their state is unknown, not restored (listed; check them)"
        )
    return Result(
        ["table", "journal_line", "state"],
        iter(conflicts + unknown),
        stats,
        warnings,
        open_columns=True,
    )


def _run(ctx: Context, statement: ast.Undo) -> Result:
    return run_undo(ctx, statement.path)


KINDS = {ast.Undo: Kind(named("UNDO"), _run, lambda _s: Effects(writes=True, rollback=False))}
