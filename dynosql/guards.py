"""Every refusal and question, in one place, from what a statement declares it does.

Each statement kind declares its `Effects`; the Session runs `admit` (and `scan`, from the
kind's scan plan) for every statement before its first request, so no kind can skip them. The
stages a kind reaches later (after the read that counts the items; before a destructive schema
change) call the functions below; they read the settings nowhere else. Every setting read here
is a limit: given on the command line, SET may only tighten it (tests/test_settings.py checks
that each has a direction).

The pipeline, in order:
1. transaction membership: a statement that changes something and cannot be rolled back
   (DDL, COPY FROM, UNDO) is refused inside BEGIN … COMMIT;
2. ``--read-only`` refuses any change before any request;
3. ``--fail-on-scan`` and ``--max-rcu`` refuse a Scan on its plan, before it is sent;
4. a write whose extent is unknown until it reads (no WHERE, or a Scan) needs a way to ask
   (a terminal, or ``--yes``) before it reads;
5. ``--dry-run`` stops after the reads: counts reported, nothing changed;
6. ``--max-wcu`` refuses an all-or-nothing write (a transaction) priced over it; more than
   ``--confirm-over`` items, or an unbounded write, asks (or needs ``--yes``);
7. a destructive schema change (DROP TABLE, DROP INDEX, SET TTL, DELETION PROTECTION OFF) asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from dynosql.errors import Declined, GuardError
from dynosql.plan.model import Plan
from dynosql.settings import Settings


class Doors(Protocol):
    """What the guards use of the front door (`dynosql.context.Doors` is one)."""

    @property
    def confirm(self) -> Callable[[str], bool] | None: ...


class Context(Protocol):
    """What the guards see of a statement's context (`dynosql.context.Context` is one): the
    settings, the open transaction, and the front door's way to ask."""

    @property
    def settings(self) -> Settings: ...

    @property
    def transaction(self) -> Any: ...

    @property
    def doors(self) -> Doors: ...

    @property
    def can_confirm(self) -> bool: ...

    def confirmed(self, question: str, refusal: str) -> bool: ...


@dataclass(frozen=True)
class Effects:
    """What a statement may do, declared by its kind (before anything is planned)."""

    reads: bool = False  # reads items (keyed, through an index, or a Scan: see scan_plan)
    writes: bool = False  # puts, updates or deletes items
    schema: bool = False  # creates, changes or drops a table or an index
    deletes: bool = False  # may delete data: DELETE, DROP TABLE/INDEX, TTL on past times
    protection_off: bool = False  # turns a protection off (deletion protection)
    rollback: bool = True  # can be undone by ROLLBACK (queued until COMMIT)
    ends_transaction: bool = False  # COMMIT, ROLLBACK: the transaction is over, however it ends

    @property
    def changes(self) -> bool:
        return self.writes or self.schema or self.deletes or self.protection_off


NOTHING = Effects()
READS = Effects(reads=True)


@dataclass(frozen=True)
class ScanCheck:
    """The Scan a statement would send (for --fail-on-scan, --max-rcu and the REPL's question
    before a large Scan), with the hints that name the likely mistake."""

    plan: Plan
    hints: list[str] = field(default_factory=list)
    what: str = "statement"


def reads(ctx: Context, checks: Sequence[ScanCheck], typed: bool = False) -> None:
    """Stage 3, run by the Session on every statement's plan before its first read: each Scan
    it would send is refused by --fail-on-scan or --max-rcu, and, for a statement a person
    typed at the REPL (`typed`), a large one (or one a hint says a key would serve) is asked
    about first: no means nothing is read (`Declined`)."""
    for check in checks:
        scan(ctx, check.plan, check.hints, check.what)
    if typed:
        for check in checks:
            _ask_before_scan(ctx, check)


def _ask_before_scan(ctx: Context, check: ScanCheck) -> None:
    """The REPL's question before a Scan over ``scan_confirm_rcu`` (or of unknown size: a size
    DynamoDB has not measured yet is 0), or one whose hint says a key would have served."""
    plan, threshold = check.plan, ctx.settings.scan_confirm_rcu
    if not plan.is_scan or not threshold or ctx.doors.confirm is None:
        return  # never asked (the setting is off, or nobody can be asked)
    large = not plan.estimate.known or plan.estimate.rcu > threshold
    if not large and not check.hints:
        return
    hinted = "".join(f"; hint: {h}" for h in check.hints)
    if not ctx.doors.confirm(f"{plan.label} reads {plan.estimate.text()}{hinted}. Run it?"):
        raise Declined("cancelled: nothing was read")


def may_sample(ctx: Context) -> bool:
    """Whether a hint or the catalog may read a sample page: under --fail-on-scan no Scan of
    any size is sent."""
    return not ctx.settings.fail_on_scan


def admit(ctx: Context, label: str, effects: Effects) -> None:
    """Stages 1 and 2, before any request (not even DescribeTable)."""
    if ctx.transaction is not None and effects.changes and not effects.rollback:
        raise GuardError(
            f"refused: {label} cannot be rolled back, so it cannot run inside BEGIN … COMMIT "
            "(nothing was sent); COMMIT or ROLLBACK first"
        )
    if ctx.settings.read_only and effects.changes:
        raise GuardError(f"refused: read_only is on, so {label} was not sent (nothing was changed)")


def scan(ctx: Context, plan: Plan, hints: Sequence[str] = (), what: str = "statement") -> None:
    """Stage 3: refuse a Scan when --fail-on-scan is set (naming the likely mistake, when a
    hint has one), or when its estimate (a known table size) already exceeds --max-rcu."""
    if not plan.is_scan:
        return
    settings = ctx.settings
    if settings.fail_on_scan:
        hinted = "".join(f"; hint: {h}" for h in hints)
        raise GuardError(
            f"refused: this {what} would Scan {plan.table.name} ({plan.estimate.text()}) "
            f"and --fail-on-scan is set{hinted}"
        )
    cap = settings.max_rcu
    if cap is not None and plan.estimate.items and plan.estimate.rcu > cap:
        raise GuardError(
            f"refused: this {what} would Scan {plan.table.name} ({plan.estimate.text()}), "
            f"more than --max-rcu {cap}; add a key condition or a LIMIT, or raise the limit"
        )


def unbounded(ctx: Context, verb: str, why: str) -> None:
    """Stage 4: a write whose extent only the read tells needs someone who can say yes."""
    if not ctx.settings.dry_run and not ctx.can_confirm:
        raise GuardError(
            f"refused: this {verb} {why}; in a script it needs --yes (try EXPLAIN or --dry-run)"
        )


def dry_run(ctx: Context) -> bool:
    """Stage 5: whether the statement stops after its reads (nothing changed)."""
    return bool(ctx.settings.dry_run)


def all_or_nothing(ctx: Context, label: str, wcu: Decimal, why: str) -> None:
    """Stage 6 for what cannot stop half-way (a transaction, an index backfill): --max-wcu
    refuses it whole, before anything is sent."""
    cap = ctx.settings.max_wcu
    if cap is not None and wcu > cap:
        raise GuardError(
            f"refused: {label} would consume ~{wcu:,} WCU, more than --max-wcu {cap}; "
            f"{why} (nothing was written)"
        )


def confirm_writes(ctx: Context, question: str, items: int, unbounded: bool) -> None:
    """Stage 6: more than --confirm-over items, or an unbounded write, asks first."""
    if items and (unbounded or items > ctx.settings.confirm_over):
        refusal = f"refused: {question[:-1]} needs a confirmation; run it with --yes"
        if not ctx.confirmed(question, refusal):
            raise GuardError("not confirmed: nothing was written")


def destructive(ctx: Context, question: str, refusal: str) -> bool:
    """Stage 7: a schema change that loses data asks; in a script it needs --yes."""
    return ctx.confirmed(question, refusal)
