"""Running one write statement for a Session: guards, the read that finds the keys, the
writes, the journal, the answer. (Planning is pure, in plan.write; sending, in write_execute.)

The guards, in order, all before the first write:
1. ``--read-only`` refuses before any request (not even DescribeTable);
2. ``--fail-on-scan`` refuses a write whose read would Scan;
3. an UPDATE/DELETE without WHERE, or whose read is a Scan, needs a confirmation: with no way
   to ask (a script) and no ``--yes`` it is refused before any read;
4. after the read, an UPDATE/DELETE of more than ``confirm_over`` items needs one too;
5. ``--dry-run`` stops here: the reads ran, the counts are reported, nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.dynamo.retry import RetryPolicy
from dynosql.dynamo.writer import (
    Outcome,
    WriteLimits,
    Writer,
    WriteStats,
    put_requests,
    write_batches,
    write_item,
)
from dynosql.errors import DynosqlError, GuardError, PlanError
from dynosql.evaluate.pipeline import select_rows
from dynosql.journal import Journal, journal_dir, new_journal_path, read_journal, restores
from dynosql.plan.cost import write_units
from dynosql.plan.write import WriteOptions, WritePlan, check_item, normalize, plan_write
from dynosql.result import Result
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.session import Session


class WriteError(DynosqlError):
    """A write statement that ran but did not do all it was asked (INSERT of existing keys)."""


def verb_of(statement: ast.Insert | ast.Update | ast.Delete) -> str:
    if isinstance(statement, ast.Insert):
        return statement.verb
    return "UPDATE" if isinstance(statement, ast.Update) else "DELETE"


def refuse_if_read_only(session: Session, what: str) -> None:
    if session.settings.read_only:
        raise GuardError(f"refused: read_only is on, so {what} was not sent (nothing was written)")


def write_options(session: Session, transactional: bool = False) -> WriteOptions:
    return WriteOptions(
        read=session.options(),
        journal=journal_target(session) is not None,
        transactional=transactional,
    )


def journal_target(session: Session) -> Path | None:
    """The journal file the next statement appends to (--journal FILE), or the directory a new
    one goes in; None when journaling is off."""
    if session.journal_file:
        return Path(session.journal_file)
    return journal_dir(session.settings.journal_dir)


def open_journal(session: Session, table: str) -> Journal | None:
    target = journal_target(session)
    if target is None:
        return None
    path = target if session.journal_file else new_journal_path(target, table)
    try:
        return Journal(path)
    except OSError as err:
        raise DynosqlError(f"cannot write the undo journal {path}: {err.strerror}") from None


def plan_of(session: Session, statement: Any, transactional: bool = False) -> WritePlan:
    table = session.table(statement.table)
    source = None
    if isinstance(statement, ast.Insert) and statement.select is not None:
        source = session.table(statement.select.table)
    return plan_write(statement, table, write_options(session, transactional), source)


def ask(session: Session, question: str) -> None:
    """Go on only if the user says yes (or --yes); GuardError (exit 3) otherwise."""
    refusal = f"refused: {question[:-1]} needs a confirmation; run it with --yes"
    if not session.confirmed(question, refusal):
        raise GuardError("not confirmed: nothing was written")


def question(plan: WritePlan, items: int) -> str:
    units = write_units(plan.table.average_item_size) * items
    prep = "from" if plan.verb == "DELETE" else "in"
    return f"{plan.verb} {items:,} items {prep} {plan.table.name} (~{units:,} WCU)?"


def run_write(session: Session, statement: Any) -> Result:
    verb = verb_of(statement)
    refuse_if_read_only(session, verb)
    plan = plan_of(session, statement)
    settings = session.settings
    if plan.is_scan and settings.fail_on_scan:
        raise GuardError(f"refused: this {verb} would Scan and --fail-on-scan is set")
    stats = WriteStats(verb=verb, table=plan.table.name, dry_run=settings.dry_run)
    stats.capacity_estimated = session.estimating
    risky = plan.kind != "put" and (statement.where is None or plan.is_scan)
    if risky and not settings.dry_run and not session.can_confirm:
        why = "has no WHERE" if statement.where is None else "reads the whole table (Scan)"
        raise GuardError(
            f"refused: this {verb} {why}; in a script it needs --yes (try EXPLAIN or --dry-run)"
        )
    targets = list(_targets(session, plan, stats))
    stats.matched = len(targets)
    if not settings.dry_run and plan.kind != "put" and targets:
        if risky or len(targets) > settings.confirm_over:
            ask(session, question(plan, len(targets)))
    if settings.dry_run or not targets:
        stats.finish()
        return Result(
            [], iter(()), stats, list(plan.warnings), kind="status", title=stats.footer(False)
        )
    returning = getattr(statement, "returning", None)
    images: list[dict] = []
    journal = open_journal(session, plan.table.name)
    session.last_write = stats
    try:
        if journal is not None:
            journal.begin(plan.table.name, plan.table.keys.names, verb)
            stats.journal = str(journal.path)
        _send(session, plan, statement, targets, stats, journal, images, returning)
    except DynosqlError as err:
        hint = ""
        if "attribute that does not exist" in err.message:
            hint = "; an item lacks an attribute the SET reads: if_not_exists(a, 0) + 1 starts it"
        raise type(err)(f"{err.message}{hint} ({_so_far(stats)})", err.line, err.col) from err
    finally:
        if journal is not None and not journal.finish(keep=bool(session.journal_file)):
            stats.journal = None  # nothing written: nothing to undo
        stats.finish()
    if verb == "INSERT" and stats.skipped and not statement.ignore_existing:
        raise WriteError(
            f"{stats.skipped:,} row{'s' if stats.skipped != 1 else ''} already exist{'s' if stats.skipped == 1 else ''} "
            f"(not overwritten; ON CONFLICT DO NOTHING skips them quietly): {_so_far(stats)}"
        )
    if returning is not None:
        keys = list(plan.table.keys.names)
        result = Result(keys, iter(images), stats, list(plan.warnings))
        result.open_columns = True
        return result
    return Result(
        [], iter(()), stats, list(plan.warnings), kind="status", title=stats.footer(False)
    )


def _so_far(stats: WriteStats) -> str:
    text = f"{stats.changed:,} written, {stats.skipped:,} skipped"
    if stats.journal:
        text += f"; journal {stats.journal}"
    return text


def _targets(session: Session, plan: WritePlan, stats: WriteStats) -> Iterator[dict]:
    """The items (INSERT/UPSERT) or keys (UPDATE/DELETE) to write, reading when needed."""
    if plan.items is not None:
        yield from plan.items
    elif plan.keys is not None:
        yield from plan.keys
    elif plan.source is not None:
        statement = plan.statement
        if not isinstance(statement, ast.Insert) or statement.select is None:
            raise PlanError("only INSERT … SELECT reads its rows from a source")
        rows = select_rows(
            statement.select, plan.source.table, session.read(plan.source, stats), plan.source.sort
        )
        seen: set = set()
        for row in rows:
            item = dict(row)
            if statement.columns:
                item = dict(zip(statement.columns, row.values(), strict=False))
            key = tuple(repr(item.get(k)) for k in plan.table.keys.names)
            if key in seen:
                raise PlanError(
                    f"INSERT … SELECT: two source rows have the key {dict(zip(plan.table.keys.names, key, strict=True))}"
                )
            seen.add(key)
            yield check_item(item, plan.table)
    else:
        assert plan.read is not None
        for item in session.read(plan.read, stats):
            # a guarded UPDATE conditions each write on what the read saw: the whole item read
            yield item if plan.guards else plan.key_of(item)


def _send(
    session: Session,
    plan: WritePlan,
    statement: Any,
    targets: list[dict],
    stats: WriteStats,
    journal: Journal | None,
    images: list[dict],
    returning: ast.Returning | None,
) -> None:
    limits = WriteLimits(max_wcu=session.settings.max_wcu, rate_limit=session.settings.rate_limit)
    if plan.operation == "BatchWriteItem":
        write_batches(
            session.client,
            plan.table.name,
            put_requests(targets),
            stats=stats,
            estimating=session.estimating,
            limits=limits,
            policy=RetryPolicy.of(session),
        )
        stats.matched = len(targets)
        return
    writer = Writer(
        session.client,
        stats,
        estimating=session.estimating,
        limits=limits,
        policy=RetryPolicy.of(session),
    )
    assignments = normalize(statement.assignments) if isinstance(statement, ast.Update) else ()

    def done(outcome: Outcome) -> None:
        if not outcome.written:
            if journal is not None:
                journal.unchanged(plan.table.name, plan.key_of(outcome.target))
            if plan.keys is not None:
                stats.matched -= 1  # no read: a key that does not match was never matched
            else:
                stats.skipped += 1
            return
        stats.changed += 1
        key = plan.key_of(outcome.target)
        if outcome.uncertain:
            stats.uncertain += 1  # its intent stays unanswered: undo lists it, never guesses
        elif journal is not None:
            journal.record(plan.table.name, key, outcome.old, outcome.new)
        if returning is not None:
            image = outcome.old if (returning.old or plan.kind == "delete") else outcome.new
            if image is not None:
                images.append(image)

    write: Callable[[Writer, WritePlan, tuple, dict], Outcome] = write_item
    if plan.guards:  # a non-idempotent UPDATE: exactly once under retries (write_guard)
        from dynosql.dynamo.exactly_once import write_guarded_item

        write = write_guarded_item

    def write_one(target: dict) -> Outcome:
        if journal is not None:  # write-ahead: the key is on disk before the request is sent
            journal.intent(plan.table.name, plan.key_of(target))
        return write(writer, plan, assignments, target)

    writer.run(targets, write_one, done)


# --- undo ----------------------------------------------------------------------------------------


def run_undo(session: Session, path: str) -> Result:
    """Restore every item a journal recorded, unless it changed since (then list it)."""
    refuse_if_read_only(session, "UNDO")
    journal_file = read_journal(path)
    tables = {e.table for e in journal_file.entries}
    key_names = {t: session.table(t).keys.names for t in tables}
    stats = WriteStats(verb="UNDO", table=", ".join(sorted(tables)) or "-")
    stats.capacity_estimated = session.estimating
    todo = list(restores(journal_file, key_names))
    stats.matched = len(todo)
    conflicts: list[dict] = []
    # sent, but the process stopped before the answer was journaled: never guessed at, listed
    unknown = [
        {"table": u.table, **u.key, "journal_line": u.line, "state": UNKNOWN_STATE}
        for u in journal_file.unknown
    ]
    if session.settings.dry_run or not todo:
        stats.dry_run = session.settings.dry_run
        stats.finish()
        if unknown:
            return _undo_listing(stats, [], unknown)
        return Result([], iter(()), stats, kind="status", title=stats.footer(False))
    journal = open_journal(session, "undo")
    writer = Writer(
        session.client, stats, estimating=session.estimating, policy=RetryPolicy.of(session)
    )
    by_id = {id(r): r for r in todo}

    def restore(target: dict) -> Outcome:
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
        writer.charge(writer.item_units(current, r.entry.old))
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
    if conflicts or unknown:
        return _undo_listing(stats, conflicts, unknown)
    return Result([], iter(()), stats, kind="status", title=stats.footer(False))


UNKNOWN_STATE = "unknown: sent, outcome not journaled"


def _undo_listing(stats: WriteStats, conflicts: list[dict], unknown: list[dict]) -> Result:
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
