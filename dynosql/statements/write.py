"""INSERT/UPSERT/REPLACE/UPDATE/DELETE: the read that finds the keys, the writes, the
journal, the answer. (Planning is pure, in plan.write; sending, through the backend port.)

The guards are the pipeline's (dynosql.guards), in its order: ``--read-only`` and transaction
membership before any request, ``--fail-on-scan``/``--max-rcu`` on the read's Scan, a write of
unknown extent (no WHERE, or a Scan) needs someone who can say yes before it reads, then
``--dry-run`` stops after the read, and more than ``confirm_over`` items asks.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from dynosql import values
from dynosql.errors import LACKS_ATTRIBUTE, ConditionError, DynosqlError, PlanError
from dynosql.evaluate.pipeline import select_rows
from dynosql.evaluate.predicate import resolve
from dynosql.evaluate.update import (
    UpdateFailed,
    apply_update,
    missing_read,
    modified,
    paths_read,
    refused_number,
)
from dynosql.guards import Ask, Effects, Steps, Verdict
from dynosql.journal import Images, Journal, WriteAhead, refusal
from dynosql.plan import cost
from dynosql.plan.port import Writes, put_requests
from dynosql.plan.write import (
    MAX_ITEM_BYTES,
    WriteOptions,
    WritePlan,
    check_item,
    normalize,
    plan_write,
    show_value,
    source_item,
)
from dynosql.result import Changes, Result, WriteStats, carried, counted
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, ScanCheck
from dynosql.statements.read_explain import explain_lines
from dynosql.statements.write_one import EACH, Outcome, write_item
from dynosql.values import MISSING

if TYPE_CHECKING:
    from dynosql.context import Context


class WriteError(ConditionError):
    """A write statement that ran but did not do all it was asked (INSERT of existing keys)."""


def verb_of(statement: ast.Write | ast.ConditionCheck) -> str:
    """The statement's verb in messages: INSERT (UPSERT, REPLACE), UPDATE, DELETE, EXISTS."""
    return CLASSES[type(statement)].label(statement)


def write_options(ctx: Context, transactional: bool = False) -> WriteOptions:
    return WriteOptions(
        # a write's read is the plan its guards were decided from: never a Scan instead
        read=replace(ctx.options(), scan_instead=False),
        journal=ctx.journal_target() is not None,
        transactional=transactional,
    )


def plan_of(
    ctx: Context, statement: ast.Write | ast.ConditionCheck, transactional: bool = False
) -> WritePlan:
    table = ctx.table(statement.table)
    read_from = CLASSES[type(statement)].source(statement)
    source = None if read_from is None else ctx.table(read_from)
    return plan_write(statement, table, write_options(ctx, transactional), source)


def planned(
    ctx: Context, statement: ast.Write | ast.ConditionCheck, transactional: bool = False
) -> Planned[Any]:
    """The write planned once: its WritePlan, and the Scan of the read that finds its keys (or
    of INSERT … SELECT's source), if it Scans."""
    plan = plan_of(ctx, statement, transactional)
    read = plan.source if plan.source is not None else plan.read
    checks = () if read is None else (ScanCheck(read, [], verb_of(statement)),)
    return Planned(statement, plan, checks, unbounded=unbounded_why(statement, plan))


def question(plan: WritePlan, items: int) -> str:
    estimate = plan.estimate
    if estimate.items:
        per_item = estimate.wcu / estimate.items
    else:
        per_item = cost.estimated_write_units(plan.table, plan.table.average_item_size, None)
    units = (per_item * items).to_integral_value(rounding=decimal.ROUND_CEILING)
    prep = CLASSES[type(plan.statement)].preposition
    return f"{plan.verb} {counted(items, 'item')} {prep} {plan.table.name} (~{units:,} WCU)?"


def unbounded_why(statement: ast.Write | ast.ConditionCheck, plan: WritePlan) -> str | None:
    """Why a write's extent is known only once it has read (no WHERE, or a Scan), or None."""
    return CLASSES[type(statement)].unbounded(statement, plan)


def read_decides(plan: WritePlan) -> bool:
    """Whether a read decides how many items the write changes (UPDATE/DELETE, INSERT … SELECT),
    rather than the statement's own list of rows or keys: then --confirm-over applies."""
    return CLASSES[type(plan.statement)].read_decides or plan.source is not None


def run_write(ctx: Context, planned: Planned[ast.Write]) -> Steps[Result]:
    """Read the targets, hand the pipeline what the write is about to do (how many items, how
    to ask), then write, journal and answer as it decides."""
    statement, plan = planned.statement, planned.plan
    stats = WriteStats(verb=CLASSES[type(statement)].label(statement), table=plan.table.name)
    with carried(stats):  # stopped midway: the session still learns what it read and wrote
        return (yield from _write(ctx, planned, stats))


def _write(ctx: Context, planned: Planned[ast.Write], stats: WriteStats) -> Steps[Result]:
    statement, plan = planned.statement, planned.plan
    cls = CLASSES[type(statement)]
    verb = stats.verb
    stats.capacity_estimated = ctx.estimating
    stats.images_read = plan.whole_items
    returning = getattr(statement, "returning", None)
    targets = list(_targets(ctx, plan, stats))
    stats.matched = len(targets)
    cls.check(statement, plan, targets)
    asked = question(plan, len(targets)) if read_decides(plan) else ""
    verdict = yield Ask(len(targets), asked, unbounded=planned.unbounded is not None)
    stats.dry_run = verdict is Verdict.DRY
    if stats.dry_run or not targets:
        stats.finish()
        if returning is not None and not stats.dry_run:
            return _returned(plan, returning, [], stats)  # matched nothing: no rows, not a status
        return Result.status(stats.footer(False), stats, plan.warnings)
    images: list[dict[str, Any]] = []
    emptied: dict[str, dict[str, int]] = {}  # SET p = {} over a set: path -> set type -> items
    journal = ctx.open_journal(plan.table.name)
    stats.change(Changes(wrote=stats))  # the session's last write (Ctrl-C: its journal named)
    try:
        if journal is not None:
            journal.begin(
                plan.table.name,
                plan.table.keys.names,
                statement.source or verb,
                ctx.write_target(plan.table.name),
                tables=[plan.table],
            )
            stats.journal = str(journal.path)
        assignments = cls.assignments(statement)
        _send(ctx, plan, assignments, targets, stats, journal, images, returning, emptied)
    except DynosqlError as err:
        raise type(err)(f"{err.message} ({_so_far(stats)})", err.line, err.col) from err
    finally:
        if journal is not None and not journal.finish(keep=ctx.keep_journal()):
            stats.journal = None  # nothing written: nothing to undo
        stats.finish()
    cls.finish(statement, stats)
    said = [*plan.warnings, *_emptied_notes(emptied)]
    if returning is not None:
        return _returned(plan, returning, images, stats, said)
    return Result.status(stats.footer(False), stats, said)


def _refuse_before_writing(
    statement: ast.Update, plan: WritePlan, targets: list[dict[str, Any]]
) -> None:
    """An UPDATE DynamoDB would refuse on an item it read is refused before its first write, on
    every backend, naming the item: arithmetic giving a number DynamoDB cannot store (``v = v +
    1E-36`` on 100: DynamoDB refuses it, moto rounds it, dynalite stores it), a path the SET
    reads that items lack (refused item by item, the statement would stop half done), an item
    the UPDATE would take past 400 KB. What an item holds is known where the UPDATE reads it
    whole, or reads what it writes (a guarded UPDATE)."""
    if not (plan.guards or plan.whole_items):
        return
    assignments = normalize(statement.assignments)
    read = {str(g.root) for g in plan.guards}
    missing: list[tuple[dict[str, Any], ast.Assignment, ast.Path]] = []
    for target in targets:
        why = refused_number(target, assignments)
        if why is not None:
            raise WriteError(
                f"UPDATE {plan.table.name} ({key_text(plan, target)}): {why} (nothing was written)"
            )
        found = missing_read(target, assignments)
        if found is not None and (plan.whole_items or str(found[1].root) in read):
            missing.append((target, *found))
        elif plan.whole_items:
            size = _size_after(target, assignments)
            if size > MAX_ITEM_BYTES:
                raise WriteError(
                    f"UPDATE {plan.table.name} ({key_text(plan, target)}): the item would be "
                    f"{size:,} bytes, over DynamoDB's 400 KB item limit (nothing was written)"
                )
    if missing:
        target, assignment, path = missing[0]
        raise WriteError(
            f"UPDATE {plan.table.name}: {path.text} is missing in {len(missing):,} of the "
            f"{counted(len(targets), 'item')} it matches (the first: {key_text(plan, target)}), and SET "
            f"{assignment.path.text} reads it: DynamoDB refuses such a write "
            f"({_default_hint(assignment, path)}); nothing was written"
        )


_SETS = {"SS": "string set", "NS": "number set", "BS": "binary set"}


def _count_emptied(
    assignments: tuple[ast.Assignment, ...],
    old: dict[str, Any] | None,
    emptied: dict[str, dict[str, int]],
) -> None:
    """Count each ``SET p = {}`` (the empty map) that replaced a set: said after the write."""
    for a in assignments:
        if a.action == "set" and isinstance(a.value, ast.Literal) and a.value.value == {}:
            code = None if old is None else values.type_of(resolve(old, a.path))
            kind = _SETS.get(code or "")
            if kind is not None:
                counts = emptied.setdefault(a.path.text, {})
                counts[kind] = counts.get(kind, 0) + 1


def _emptied_notes(emptied: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"SET {path} = {{}} made {path} an empty map in {n:,} item(s) where it was a {kind}: "
        f"{{}} is the empty map, as in PartiQL (DynamoDB has no empty set; REMOVE {path} "
        "removes the attribute)"
        for path, kinds in emptied.items()
        for kind, n in kinds.items()
    ]


def _size_after(item: dict[str, Any], assignments: tuple[ast.Assignment, ...]) -> int:
    try:
        return values.item_size(apply_update(item, assignments))
    except UpdateFailed:
        return 0  # DynamoDB refuses it for another reason: said where it is sent


def _default_hint(assignment: ast.Assignment, path: ast.Path) -> str:
    """How the SET can give a missing attribute a starting value."""
    value = assignment.value
    if isinstance(value, ast.Arith) and value.left == path:
        right = value.right
        shown = values.format_number(right.value) if _is_number(right) else "…"
        return f"if_not_exists({path.text}, 0) {value.op} {shown} starts a missing number at 0"
    if isinstance(value, ast.ListAppend):
        return f"list_append(if_not_exists({path.text}, []), …) starts a missing list empty"
    return f"if_not_exists({path.text}, …) gives a missing value a default"


def _is_number(operand: Any) -> bool:
    return isinstance(operand, ast.Literal) and values.type_of(operand.value) == "N"


def key_text(plan: WritePlan, item: dict[str, Any]) -> str:
    """An item's key as messages name it: ``pk = "a", sk = 1``."""
    return ", ".join(f"{k} = {show_value(item[k])}" for k in plan.table.keys.names if k in item)


def _returned(
    plan: WritePlan,
    returning: ast.Returning,
    rows: list[dict[str, Any]],
    stats: WriteStats,
    warnings: list[str] | None = None,
) -> Result:
    """RETURNING's rows: the images written (or deleted), or the columns named; none when
    nothing matched."""
    if returning.columns is not None:
        names = [c.name for c in returning.columns]
        return Result(names, iter(rows), stats, list(warnings or plan.warnings))
    keys = [] if returning.modified else list(plan.table.keys.names)  # MODIFIED: no keys
    result = Result(keys, iter(rows), stats, list(warnings or plan.warnings))
    result.open_columns = True
    return result


def returned_row(
    returning: ast.Returning,
    kind: str,
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    assignments: tuple[ast.Assignment, ...] = (),
) -> dict[str, Any] | None:
    """One written item's RETURNING row. ``*`` is the item after the write (DELETE: the item
    deleted), ``old.*`` the item before it: none when that image does not exist (an UPSERT's
    new key). PartiQL's MODIFIED keeps the attributes the UPDATE touched (none: no row).
    Named columns give one row per item written, each column read from its image
    (``old.p`` before, else after; DELETE: the item deleted); a value the image lacks is absent
    from the row, as in a SELECT."""
    after = old if EACH[kind].returns_old else new
    if returning.modified:
        return modified(old, new, assignments, before=returning.old) or None
    if returning.columns is None:
        return old if returning.old else after
    row = {}
    for column in returning.columns:
        image = old if column.old else after
        value = MISSING if image is None else resolve(image, column.path)
        if value is not MISSING:
            row[column.name] = value
    return row


def _so_far(stats: WriteStats) -> str:
    text = f"{stats.changed:,} written, {stats.skipped:,} skipped"
    if stats.journal:
        text += f"; journal {stats.journal}"
    return text


def _targets(ctx: Context, plan: WritePlan, stats: WriteStats) -> Iterator[dict[str, Any]]:
    """The items (INSERT/UPSERT) or keys (UPDATE/DELETE) to write, reading when needed."""
    if plan.items is not None:
        yield from plan.items
    elif plan.keys is not None:
        yield from plan.keys
    elif plan.source is not None:
        yield from CLASSES[type(plan.statement)].source_items(ctx, plan, stats)
    else:
        assert plan.read is not None
        for item in ctx.read(plan.read, stats):
            # a write conditioned on what the read saw gets the whole item read
            yield item if plan.reads_items else plan.key_of(item)


def _send(
    ctx: Context,
    plan: WritePlan,
    assignments: tuple[ast.Assignment, ...],
    targets: list[dict[str, Any]],
    stats: WriteStats,
    journal: Journal | None,
    images: list[dict[str, Any]],
    returning: ast.Returning | None,
    emptied: dict[str, dict[str, int]],
) -> None:
    if plan.operation == "BatchWriteItem":
        ctx.port.write_batches(plan.table.name, put_requests(targets), stats)
        stats.matched = len(targets)
        return
    writer = ctx.port.writer(stats)
    # RETURNING's rows in the statement's order (VALUES', or the read's), not as the
    # concurrent writes happen to finish
    names = plan.table.keys.names
    order = {values.key_tuple(plan.key_of(t), names): i for i, t in enumerate(targets)}
    returned: dict[int, dict[str, Any]] = {}

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
        _count_emptied(assignments, outcome.old, emptied)
        key = plan.key_of(outcome.target)
        if outcome.uncertain:
            stats.uncertain += 1  # its intent stays unanswered: undo lists it, never guesses
        elif journal is not None:
            journal.record(plan.table.name, key, outcome.old, outcome.new)
        if returning is not None:
            row = returned_row(returning, plan.kind, outcome.old, outcome.new, assignments)
            if row is not None:
                returned[order[values.key_tuple(key, names)]] = row

    write: Callable[[Writes, WritePlan, tuple[Any, ...], dict[str, Any]], Outcome] = write_item
    if plan.guards:  # a non-idempotent UPDATE: exactly once under retries (write_guard)
        from dynosql.statements.exactly_once import write_guarded_item

        write = write_guarded_item

    # write-ahead: a chunk of intents on disk (one fsync) before any of its writes is sent
    ahead = (
        None
        if journal is None
        else WriteAhead(journal, plan.table.name, plan.key_of, _images_of(plan, assignments))
    )

    def write_one(target: dict[str, Any]) -> Outcome:
        if journal is None or ahead is None:
            try:
                return write(writer, plan, assignments, target)
            except DynosqlError as err:
                if refusal(err) is None:
                    raise
                raise _naming(err, plan, assignments, target) from err
        ahead.start(target)
        try:
            return write(writer, plan, assignments, target)
        except DynosqlError as err:
            why = refusal(err)  # DynamoDB said no: not applied (else: outcome unknown)
            if why is not None:
                journal.refused(plan.table.name, plan.key_of(target), why)
                raise _naming(err, plan, assignments, target) from err
            raise

    try:
        writer.run(targets if ahead is None else ahead(targets), write_one, done)
    finally:
        if ahead is not None:
            ahead.close()  # intents of writes never started: not sent
    images.extend(returned[i] for i in sorted(returned))


def _naming(
    err: DynosqlError, plan: WritePlan, assignments: tuple[ast.Assignment, ...], target: Any
) -> DynosqlError:
    """A write DynamoDB refused, its message naming the item (and, when it lacked an attribute
    the SET reads, the attributes that SET reads)."""
    key = key_text(plan, plan.key_of(target))
    message = err.message
    if LACKS_ATTRIBUTE in message:
        reads = dict.fromkeys(p.text for a in assignments for p in paths_read(a.value))
        message = message.replace(
            LACKS_ATTRIBUTE,
            f"the item lacks {' or '.join(reads) or 'an attribute'}, which the SET reads",
        )
    return type(err)(f"{message} (item {key})", err.line, err.col)


def _source_items(ctx: Context, plan: WritePlan, stats: WriteStats) -> Iterator[dict[str, Any]]:
    """INSERT … SELECT's items: the source rows the SELECT gives, each key once."""
    statement = cast(ast.Insert, plan.statement)  # INSERT's record alone names this
    source = plan.source
    assert statement.select is not None and source is not None
    rows = select_rows(
        statement.select, source.table.keys.names, ctx.read(source, stats), source.sort
    )
    seen: set[Any] = set()
    for row in rows:
        item = source_item(statement, row)
        key = tuple(repr(item.get(k)) for k in plan.table.keys.names)
        if key in seen:
            raise PlanError(
                f"INSERT … SELECT: two source rows have the key {dict(zip(plan.table.keys.names, key, strict=True))}"
            )
        seen.add(key)
        yield check_item(item, plan.table)


def _no_source(_ctx: Context, _plan: WritePlan, _stats: WriteStats) -> Iterator[dict[str, Any]]:
    raise PlanError("only INSERT … SELECT reads its rows from a source")


def _images_of(
    plan: WritePlan, assignments: tuple[ast.Assignment, ...]
) -> Callable[[dict[str, Any]], Images | None] | None:
    """Each write's images for its intent line, when its read returned the whole item: the item
    as read and as the write will leave it (DELETE: absent). Should the answer be lost or the
    process be killed in flight, undo can then tell from the item whether the write applied
    and restore it, rather than list it as unknown. None when the read returned keys only."""
    if not plan.whole_items:
        return None

    each = EACH[plan.kind]

    def images(item: dict[str, Any]) -> Images | None:
        try:
            return item, each.after(item, item, assignments)
        except UpdateFailed:
            return None  # DynamoDB will refuse this write: nothing to restore, no image

    return images


# --- the kinds -----------------------------------------------------------------------------


def explain(ctx: Context, planned: Planned[ast.Write], analyze: bool) -> Steps[Result]:
    """EXPLAIN [ANALYZE] of a write: the read that finds the keys, the writes it would send, the
    estimated items, RCU and WCU. EXPLAIN ANALYZE runs the statement (the Session has guarded
    it as the statement itself) and adds what it really did."""
    plan = planned.plan
    read = plan.source if plan.source is not None else plan.read
    lines = plan.lines(explain_lines(read) if read is not None else None)
    lines.extend(f"note: {note}" for note in ctx.capabilities.notes())
    document = plan.document(read.document() if read is not None else None)
    if not analyze:
        return Result.plan(lines, document)
    result = yield from run_write(ctx, planned)
    result.all()
    stats = result.stats
    lines.append(f"actual: {stats.footer(rows=False)}")
    document["actual"] = {"summary": stats.footer(rows=False)}
    return Result.plan(lines, document, stats)


# --- the kinds: INSERT, UPDATE and DELETE share everything above but what WriteClass says --


@dataclass(frozen=True)
class WriteClass:
    """What one class of write statement does differently from the others: its verb, its
    effects, why its extent may be known only by reading, the assignments it applies, the
    table INSERT … SELECT reads, what it checks before its first write and after its last."""

    label: Callable[[Any], str]
    effects: Callable[[Any], Effects]
    unbounded: Callable[[Any, WritePlan], str | None]
    assignments: Callable[[Any], tuple[ast.Assignment, ...]] = lambda _statement: ()
    source: Callable[[Any], str | None] = lambda _statement: None
    check: Callable[[Any, WritePlan, list[dict[str, Any]]], None] = lambda *_: None
    finish: Callable[[Any, WriteStats], None] = lambda *_: None
    # how many items it changes is decided by its read (UPDATE, DELETE), not its own rows or
    # keys: then --confirm-over applies (INSERT … SELECT's source decides too: read_decides)
    read_decides: bool = False
    preposition: str = "in"  # in the question: "UPDATE 5 items in t", "DELETE 5 items from t"
    source_items: Callable[[Context, WritePlan, WriteStats], Iterator[dict[str, Any]]] = _no_source


def _keyed_unbounded(
    statement: ast.Update | ast.Delete | ast.ConditionCheck, plan: WritePlan
) -> str | None:
    """UPDATE, DELETE: no WHERE, or a WHERE no key serves (a Scan)."""
    if statement.where is None:
        return "has no WHERE"
    return "reads the whole table (Scan)" if plan.is_scan else None


def _insert_unbounded(statement: ast.Insert, plan: WritePlan) -> str | None:
    source = plan.source
    return "reads the whole source table (Scan)" if source and source.is_scan else None


def _insert_effects(statement: ast.Insert) -> Effects:
    reads = statement.select is not None  # INSERT … SELECT writes as many rows as it reads
    return Effects(reads=reads, writes=True, many=reads)


def _keyed_effects(deletes: bool) -> Callable[[ast.Update | ast.Delete], Effects]:
    def effects(statement: ast.Update | ast.Delete) -> Effects:
        return Effects(
            reads=True,
            writes=True,
            deletes=deletes,
            unbounded=statement.where is None,  # a Scan adds to it: Planned.unbounded
            many=True,  # as many items as the read finds
        )

    return effects


def _existing(statement: ast.Insert, stats: WriteStats) -> None:
    """INSERT (not UPSERT, REPLACE) of keys that exist: an error saying how many, unless ON
    CONFLICT DO NOTHING."""
    if not statement.replace and stats.skipped and not statement.ignore_existing:
        n = stats.skipped
        raise WriteError(
            f"{n:,} row{'s' if n != 1 else ''} already exist{'s' if n == 1 else ''} "
            f"(not overwritten; ON CONFLICT DO NOTHING skips them quietly): {_so_far(stats)}"
        )


INSERT = WriteClass(
    lambda statement: statement.verb,
    _insert_effects,
    _insert_unbounded,
    source=lambda statement: statement.select.table if statement.select is not None else None,
    finish=_existing,
    source_items=_source_items,
)
UPDATE = WriteClass(
    lambda _statement: "UPDATE",
    _keyed_effects(deletes=False),
    _keyed_unbounded,
    assignments=lambda statement: normalize(statement.assignments),
    check=_refuse_before_writing,
    read_decides=True,
)
DELETE = WriteClass(
    lambda _statement: "DELETE",
    _keyed_effects(deletes=True),
    _keyed_unbounded,
    read_decides=True,
    preposition="from",
)
# PartiQL's EXISTS(SELECT …) between BEGIN and COMMIT: a transaction's condition check
CHECK = WriteClass(
    lambda _statement: "EXISTS",
    lambda _statement: Effects(reads=True, writes=True, many=True),
    _keyed_unbounded,
)
CLASSES: dict[type, WriteClass] = {
    ast.Insert: INSERT,
    ast.Update: UPDATE,
    ast.Delete: DELETE,
    ast.ConditionCheck: CHECK,
}


def effects(statement: ast.Write | ast.ConditionCheck) -> Effects:
    return CLASSES[type(statement)].effects(statement)


def _planned(ctx: Context, statement: ast.Write, _explaining: bool) -> Planned[ast.Write]:
    return planned(ctx, statement)


def _kind(cls: WriteClass, example: str) -> Kind[Any]:
    return Kind(
        cls.label,
        run_write,
        cls.effects,
        explain,
        plan=_planned,
        transactional=True,
        example=(example,),
    )


KINDS = {
    ast.Insert: _kind(INSERT, "INSERT INTO {t} (pk, sk) VALUES ('q', 9)"),
    ast.Update: _kind(UPDATE, "UPDATE {t} SET v = 5"),
    ast.Delete: _kind(DELETE, "DELETE FROM {t} WHERE pk = 'p'"),
}
