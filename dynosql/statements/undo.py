"""UNDO 'journal' (or UNDO LAST): restore every item a journal recorded, unless it changed
since (then it is listed, never overwritten). An undo writes, so it is guarded like a write;
it cannot be rolled back, so it is refused inside BEGIN … COMMIT.

Before anything is written:

- the journal must be whole: a file with lines missing, moved or edited (its sequence numbers
  or an end line's checksum disagree) is refused unless ``FORCE DAMAGED``; a statement with no
  end line (its process was killed, or the file was cut) is undone as far as it goes, with a
  loud warning saying so;
- it must have been written against this endpoint and region (and this table: one dropped and
  recreated since is another): otherwise it is refused, naming both, unless ``FORCE TARGET``;
- its statements that are undos of this very file are not targets (`own_undos`): an undo never
  redoes what it restored;
- each table's key schema and index keys are compared with the journal's record
  (`journal.schema`): an item the table as it is now cannot take as it was (the table gone, its
  key changed, an index keying one of the item's attributes with another type) is listed with
  the reason, the rest restored.

Then (`undo_write.Restorer`) each item is read (strongly consistent): as before the journal's
writes, nothing to do ("already restored", said so: a second undo writes nothing); still as the
journal left it (or, for a write whose answer was never journaled, as the write before it left
it), put back with a write conditional on exactly that; anything else, changed since: listed and
left alone. An intent without images is listed as unknown, never guessed at. UNDO LAST's journal
is chosen by `undo_last`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynosql.errors import DynosqlError
from dynosql.guards import Ask, Effects, Steps, Verdict
from dynosql.journal import JournalFile, Restore, Unsent, read_journal, restores
from dynosql.journal.schema import Changes, blocked, compare
from dynosql.result import Changes as SessionChanges
from dynosql.result import Result, WriteStats, carried, counted, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, named, unplanned
from dynosql.statements.undo_last import is_undo, last_journal
from dynosql.statements.undo_write import CHANGED_STATE, REFUSED_STATE, Restorer, same_file

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

UNKNOWN_STATE = "unknown: sent, outcome not journaled"

# --- undo ----------------------------------------------------------------------------------------


def run_undo(ctx: Context, statement: ast.Undo) -> Steps[Result]:
    """Restore every item a journal recorded, unless it changed since (then list it)."""
    if statement.last:
        path, journal_file = last_journal(ctx)
    else:
        path, journal_file = statement.path, read_journal(statement.path)
    now = _tables_now(ctx, journal_file)  # to compare with what the journal recorded
    warnings, refusal = _checked(ctx, journal_file, statement)
    if refusal is not None:
        yield Ask(refused=refusal)  # the pipeline refuses: never resumed
    own = own_undos(journal_file)
    if own:
        warnings.append(
            f"{counted(len(own), 'statement')} of {path} {plural(len(own), 'undoes', 'undo')} "
            "this journal itself (journaled there by an older dynosql): not undone, so undo never "
            "redoes what it restored"
        )
    todo = restores(e for e in journal_file.entries if e.statement not in own)
    tables = sorted({r.table for r in todo})
    changes, refusal = _changes(journal_file, {t: now[t] for t in tables}, statement)
    if refusal is not None:
        yield Ask(refused=refusal)
    listed: list[tuple[Restore, str]] = []
    for r in list(todo):
        why = blocked(r.key, r.target, changes[r.table])
        if why is not None:
            listed.append((r, why))
            todo.remove(r)
    warnings.extend(_change_notes(changes, listed))
    stats = WriteStats(verb="UNDO", table=", ".join(tables) or "-")
    stats.capacity_estimated = ctx.estimating
    stats.matched = len(todo)
    warnings.extend(_unsent_notes([u for u in journal_file.unsent if u.statement not in own]))
    # sent, but the process stopped before the answer was journaled: never guessed at, listed
    unknown = [
        {"table": u.table, **u.key, "journal_line": u.line, "state": UNKNOWN_STATE}
        for u in journal_file.unknown
        if u.statement not in own
    ]
    what = describe(journal_file, len(todo))
    # the pipeline asks: UNDO LAST (the newest journal, which the user did not name) always,
    # saying what it will do when nobody is asked; else as a write of that many items
    ask = Ask(told=what if statement.last else "")
    if todo and statement.last:
        refusal = f"refused: UNDO LAST needs a confirmation, run it with --yes ({what})"
        ask = Ask(len(todo), f"{what}. Undo it?", refusal=refusal, told=what)
    elif todo:
        ask = Ask(len(todo), f"UNDO {counted(len(todo), 'write')} to {stats.table} from {path}?")
    stats.dry_run = (yield ask) is Verdict.DRY
    if statement.last and not todo and not stats.dry_run:
        ctx.tell(what)  # nothing to ask about: said here
    if stats.dry_run or not todo:
        stats.finish()
        return _answer(stats, _rows(listed), unknown, warnings)
    stats.change(SessionChanges(wrote=stats))  # Ctrl-C: the front door names the undo's own journal
    undone = [
        str(h.get("id") or f"#{i + 1}") for i, h in enumerate(journal_file.headers) if i not in own
    ]
    restorer = Restorer(ctx, stats, path, undone, {t: ctx.table(t) for t in tables})
    try:
        with carried(stats):  # stopped midway: the session still learns of the undo's journal
            restorer.run(todo)
    finally:
        stats.finish()
    warnings.extend(_already_notes(restorer.already))
    if restorer.recovered:
        warnings.append(
            f"{counted(restorer.recovered, 'write')} whose answer was never journaled (lost, or the "
            "process stopped) had applied: restored from the item their intent line holds as read"
        )
    return _answer(stats, _rows(listed + restorer.listed), unknown, warnings)


def own_undos(journal_file: JournalFile) -> set[int]:
    """The statements of a journal that are undos of that very journal (an older dynosql
    appended an undo's entries to the ``--journal`` file it undid): never undo targets."""
    own = set()
    for index, header in enumerate(journal_file.headers):
        if not is_undo(header):
            continue
        undone = (header.get("undoes") or {}).get("journal")
        if undone is None:  # version 2: the statement names the file
            text = str(header.get("statement", ""))
            undone = text[len("UNDO '") : -1].replace("''", "'") if text.endswith("'") else ""
        if undone and same_file(undone, journal_file.path):
            own.add(index)
    return own


def _changes(
    journal_file: JournalFile, tables: dict[str, TableInfo | None], statement: ast.Undo
) -> tuple[dict[str, Changes], str | None]:
    """How each table (as it is now, None when gone) differs from the journal's record of it
    (the newest header that has one). A table dropped and recreated is another table: the
    refusal, unless FORCE TARGET."""
    out: dict[str, Changes] = {}
    for table, info in tables.items():
        recorded = None
        for header in journal_file.headers:
            recorded = (header.get("tables") or {}).get(table, recorded)
            if recorded and (header.get("target") or {}).get("endpoint") == "embedded":
                # --local: every process starts its own server, with its tables made anew
                recorded = {k: v for k, v in recorded.items() if k != "created"}
        out[table] = compare(recorded, table, info)
    recreated = [c for c in out.values() if c.recreated]
    if recreated and not statement.force_target:
        said = "; ".join("; ".join(c.said()) for c in recreated)
        return out, (
            f"{journal_file.path}: {said}: its items are not the ones the journal wrote, "
            "nothing was undone (FORCE TARGET, or --force-target, undoes it into the new table: "
            "items its keys and indexes cannot take are listed, not written)"
        )
    return out, None


def _tables_now(ctx: Context, journal_file: JournalFile) -> dict[str, TableInfo | None]:
    """Every table the journal wrote as DescribeTable says it is now (changed since, here or
    elsewhere, or gone: None), one fresh read each; the rest of the undo (its target check,
    the restorer) reads these from the port's catalog."""
    names = {e.table for e in journal_file.entries} | {u.table for u in journal_file.unknown}
    now: dict[str, TableInfo | None] = {}
    for name in sorted(names):
        try:
            now[name] = ctx.table(name, fresh=True)
        except DynosqlError:
            now[name] = None  # gone
    return now


def _change_notes(changes: dict[str, Changes], listed: list[tuple[Restore, str]]) -> list[str]:
    """What changed in the tables since the journal, and how many items that leaves out."""
    notes = []
    for table, change in changes.items():
        said = change.said()
        if not said:
            continue
        out = sum(1 for r, _why in listed if r.table == table)
        tail = (
            f": {counted(out, 'item')} cannot be restored as {plural(out, 'it was', 'they were')} "
            "(listed), the rest are"
            if out
            else ": every item can still be restored as it was"
        )
        notes.append("; ".join(said) + tail)
    return notes


def _rows(listed: list[tuple[Restore, str]]) -> list[dict[str, Any]]:
    return [{"table": r.table, **r.key, "journal_line": r.line, "state": why} for r, why in listed]


def describe(journal_file: JournalFile, writes: int) -> str:
    """What UNDO LAST is about to do, said before it asks."""
    header = journal_file.headers[0] if journal_file.headers else {}
    statement = " ".join(str(header.get("statement", "?")).split())
    if len(statement) > 200:
        statement = statement[:197] + "…"
    target = header.get("target") or {}
    where = f" on {target.get('endpoint')} ({target.get('region')})" if target else ""
    more = (
        f" and {len(journal_file.headers) - 1} more {plural(len(journal_file.headers) - 1, 'statement')}"
        if len(journal_file.headers) > 1
        else ""
    )
    return (
        f"UNDO {journal_file.path}: {statement}{more}, {header.get('started', '?')}{where}: "
        f"{counted(writes, 'item')} to restore"
    )


def _checked(
    ctx: Context, journal_file: JournalFile, statement: ast.Undo
) -> tuple[list[str], str | None]:
    """The loud warnings to give, and the refusal of a damaged journal or of one written
    against another target (unless forced)."""
    warnings: list[str] = []
    trust = journal_file.trust
    said = trust.warning()
    if trust.damage is not None and not statement.force_damaged:
        return warnings, (
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
            return warnings, (
                f"{journal_file.path} holds writes made on {_where(there)}, not on "
                f"{_where(here)} where this session writes: nothing was undone (FORCE TARGET, "
                "or --force-target, undoes it here)"
            )
    return warnings, None


def _where(target: dict[str, Any]) -> str:
    arn = target.get("table_arn")
    return f"{target.get('endpoint')} (region {target.get('region')}" + (
        f", {arn})" if arn else ")"
    )


def _unsent_notes(unsent: list[Unsent]) -> list[str]:
    """Writes the journal says never applied: not sent, or refused (by kind of error)."""
    notes = []
    not_sent = [u for u in unsent if u.why is None]
    refused = [u for u in unsent if u.why is not None]
    if not_sent:
        notes.append(
            f"{counted(len(not_sent), 'write')} {plural(len(not_sent), 'was', 'were')} never sent (the statement "
            "stopped first): "
            "nothing to restore"
        )
    if refused:
        whys = sorted({str(u.why).split(":")[0] for u in refused})
        notes.append(
            f"{counted(len(refused), 'write')} {plural(len(refused), 'was', 'were')} sent and refused by DynamoDB "
            f"({', '.join(whys)}): "
            "not applied, nothing to restore"
        )
    return notes


def _already_notes(already: list[Restore]) -> list[str]:
    restored = sum(1 for r in already if r.answered)
    unapplied = len(already) - restored
    notes = []
    if restored:
        notes.append(
            f"{counted(restored, 'item')} already as before the statement (already restored): "
            "nothing to do"
        )
    if unapplied:
        notes.append(
            f"{counted(unapplied, 'write')} whose outcome was not journaled had not applied (the "
            "item is as it was read before them): nothing to do"
        )
    return notes


def _answer(
    stats: WriteStats,
    conflicts: list[dict[str, Any]],
    unknown: list[dict[str, Any]],
    notes: list[str],
) -> Result:
    """The items undo did not restore, each with why (`state`); a status when none. Items a
    schema change held back are counted in `notes` (`_change_notes`), not here."""
    warnings = list(notes)
    changed = sum(1 for row in conflicts if row["state"] == CHANGED_STATE)
    if changed:
        warnings.append(
            f"{counted(changed, 'item')} changed after the statement: not restored (listed)"
        )
    refused = sum(1 for row in conflicts if row["state"].startswith(REFUSED_STATE))
    if refused:
        warnings.append(
            f"{counted(refused, 'item')} refused by DynamoDB: not restored (listed, with why)"
        )
    if unknown:
        warnings.append(
            f"{counted(len(unknown), 'write')} {plural(len(unknown), 'was', 'were')} sent but their outcome never "
            "reached the journal (the "
            "process stopped first): their state is unknown, not restored (listed; check them)"
        )
    if not conflicts and not unknown:
        return Result.status(stats.footer(False), stats, warnings)
    result = Result(
        ["table", "journal_line", "state"],
        iter(conflicts + unknown),
        stats,
        warnings,
        open_columns=True,
    )
    if not stats.dry_run:  # done, with items left: exit 3 (docs/undo.md)
        left = len(conflicts) + len(unknown)
        result.incomplete = (
            f"UNDO left {counted(left, 'item')} not restored (listed, each with why)"
        )
    return result


def _effects(statement: ast.Undo) -> Effects:
    return Effects(writes=True, rollback=False, many=True, destructive=statement.last)


KINDS = {
    ast.Undo: Kind(
        named("UNDO"),
        unplanned(run_undo),
        _effects,
        example=("UPDATE {t} SET v = 8 WHERE pk = 'p' AND sk = 2", "UNDO LAST"),
    )
}
