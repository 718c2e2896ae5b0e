"""Every refusal and question, in one place, decided from what a statement declares it does.

Each statement kind declares its `Effects`; the Session runs the pipeline for every statement,
so no kind can skip a stage. Stages 1 to 4 run before its first request (the first two before
it is even planned); a statement that changes something then reads what it needs and hands
the pipeline an `Ask` (how many items, what they cost, how to ask) at each point where it is
about to change it: the pipeline answers with a `Verdict` (go on, stop here as a dry run, or
keep what it was about to destroy) or refuses. Every setting read here that the command line
gives is a limit: SET may only tighten it (tests/test_settings.py checks that each has a
direction); the REPL's question before a large Scan reads its own threshold.

The pipeline, in order:
1. transaction membership: a statement that changes something and cannot be rolled back
   (DDL, COPY FROM, IMPORT MODEL, UNDO) is refused inside BEGIN … COMMIT;
2. ``--read-only`` refuses any change before any request;
3. ``--fail-on-scan`` and ``--max-rcu`` refuse a Scan on its plan, before it is sent (keeping
   the hint that says how to avoid it); a statement a person typed at the REPL asks before a
   large Scan, or one a hint says a key would serve;
4. a write whose extent is unknown until it reads (no WHERE, or a Scan) needs a way to ask
   (a terminal, or ``--yes``) before it reads;
5. ``--dry-run`` stops a change after its reads: counts reported, nothing changed;
6. ``--max-wcu`` refuses what cannot stop half-way (a transaction, an index backfill) priced
   over it; more than ``--confirm-over`` items, or an unbounded write, asks (or needs ``--yes``);
7. a change that loses data or a protection (DROP TABLE, DROP INDEX, SET TTL, DELETION
   PROTECTION OFF, POINT IN TIME RECOVERY OFF), and UNDO LAST, asks whatever its size.

Before stages 5 to 7, an `Ask` may carry a refusal the kind's reads found (UNDO of a damaged
journal, of another target's, into a recreated table) or an offer only a person is asked
(CREATE ENTITY's "append to the schema file?"). The port refuses any change sent before the
pipeline's first go: a kind cannot change something without asking.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol, TypeVar

from dynosql.errors import Declined, GuardError
from dynosql.plan.model import Plan
from dynosql.settings import Settings

R = TypeVar("R")


class Doors(Protocol):
    """What the guards use of the front door (`dynosql.context.Doors` is one)."""

    @property
    def confirm(self) -> Callable[[str], bool] | None: ...

    @property
    def assume_yes(self) -> bool: ...

    @property
    def interactive(self) -> bool: ...


class Context(Protocol):
    """What the guards see of a statement's context (`dynosql.context.Context` is one): the
    settings, the open transaction, and the front door's way to ask and to tell."""

    @property
    def settings(self) -> Settings: ...

    @property
    def transaction(self) -> Any: ...

    @property
    def doors(self) -> Doors: ...

    @property
    def can_confirm(self) -> bool: ...

    def confirmed(self, question: str, refusal: str) -> bool: ...

    def tell(self, text: str) -> None: ...


@dataclass(frozen=True)
class Effects:
    """What a statement may do, declared by its kind (before anything is planned): the
    pipeline decides every refusal and question from these."""

    reads: bool = False  # reads items (keyed, through an index, or a Scan: see Planned.scans)
    writes: bool = False  # puts, updates or deletes items
    schema: bool = False  # creates, changes or drops a table or an index
    deletes: bool = False  # may delete data: DELETE, DROP TABLE/INDEX, TTL on past times
    protection_off: bool = False  # turns a protection off (deletion protection, PITR)
    rollback: bool = True  # can be undone by ROLLBACK (queued until COMMIT)
    ends_transaction: bool = False  # COMMIT, ROLLBACK: the transaction is over, however it ends
    # stage 4: its extent is known only once it has read (no WHERE; a plan may add a Scan)
    unbounded: bool = False
    # stage 6: writes as many items as a read finds: more than --confirm-over asks
    many: bool = False
    # stage 6: cannot stop half-way (a transaction, an index backfill): --max-wcu refuses it
    all_or_nothing: bool = False
    # stage 7: asks whatever its size (it loses data or a protection; UNDO LAST)
    destructive: bool = False

    @property
    def changes(self) -> bool:
        return self.writes or self.schema or self.deletes or self.protection_off

    @property
    def dry_run(self) -> bool:
        """Stage 5: --dry-run stops it after its reads (every change does)."""
        return self.changes


NOTHING = Effects()
READS = Effects(reads=True)


@dataclass(frozen=True)
class ScanCheck:
    """The Scan a statement would send (for --fail-on-scan, --max-rcu and the REPL's question
    before a large Scan), with the hints that name the likely mistake."""

    plan: Plan
    hints: list[str] = field(default_factory=list)
    what: str = "statement"


@dataclass(frozen=True)
class Ask:
    """Where a statement, having read what it needs, is about to change something: what the
    pipeline's stages 5 to 7 decide on. `items` it will write (and `question`, how to ask
    about that many, ending in "?"); `unbounded`: their number was known only by reading;
    `wcu`, what an all-or-nothing change will cost (`why` it cannot stop half-way); for a
    destructive change, `question` and `refusal` (where nobody can be asked), and `declined`:
    the error when the answer is no (None: the statement keeps what it was about to change:
    `Verdict.KEPT`); `told`: said when the question is not asked (--yes, --dry-run)."""

    items: int = 0
    question: str = ""
    unbounded: bool = False
    wcu: Decimal | None = None
    why: str = ""
    refusal: str = ""
    declined: str | None = "not confirmed: nothing was written"
    told: str = ""
    what: str = ""  # names the change in a refusal, where the statement's label says less
    # what the kind's reads found that forbids the change (a damaged journal, another target,
    # a table recreated since): refused here, dry run or not
    refused: str = ""
    # a question only a person at a terminal is offered (append to the schema file?): yes is
    # GO, anything else (no, nobody to ask) KEPT; never a refusal
    offer: str = ""


class Verdict(enum.Enum):
    GO = "go"  # change it
    DRY = "dry"  # --dry-run: report what the reads found, change nothing
    KEPT = "kept"  # the person said no to a destructive change: nothing was changed


# a statement's run that asks: it yields an Ask at each change, receives the Verdict, and
# returns its Result (Session.run_statement drives it through `drive`)
Steps = Generator[Ask, Verdict, R]


def admit(ctx: Context, label: str, effects: Effects) -> None:
    """Stages 1 and 2, before any request (not even DescribeTable)."""
    if ctx.transaction is not None and effects.changes and not effects.rollback:
        raise GuardError(
            f"refused: {label} cannot be rolled back, so it cannot run inside BEGIN … COMMIT "
            "(nothing was sent); COMMIT or ROLLBACK first"
        )
    if ctx.settings.read_only and effects.changes:
        raise GuardError(f"refused: read_only is on, so {label} was not sent (nothing was changed)")


def reads(
    ctx: Context,
    label: str,
    checks: Sequence[ScanCheck],
    unbounded: str | None = None,
    typed: bool = False,
) -> None:
    """Stages 3 and 4, run by the Session on every statement's plan before its first read:
    each Scan it would send is refused by --fail-on-scan or --max-rcu, and, for a statement a
    person typed at the REPL (`typed`), a large one (or one a hint says a key would serve) is
    asked about first: no means nothing is read (`Declined`). A write whose extent only its
    read tells (`unbounded`: why) needs someone who can say yes."""
    for check in checks:
        scan(ctx, check.plan, check.hints, check.what)
    if unbounded is not None and not ctx.settings.dry_run and not ctx.can_confirm:
        raise GuardError(
            f"refused: this {label} {unbounded}; in a script it needs --yes (try EXPLAIN or "
            "--dry-run)"
        )
    if typed:
        for check in checks:
            _ask_before_scan(ctx, check)


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


def _ask_before_scan(ctx: Context, check: ScanCheck) -> None:
    """The REPL's question before a Scan over ``scan_confirm_rcu`` (or of unknown size: a size
    DynamoDB has not measured yet is 0), or one whose hint says a key would have served."""
    plan, threshold = check.plan, ctx.settings.scan_confirm_rcu
    if not plan.is_scan or not threshold or ctx.doors.confirm is None:
        return  # never asked (the setting is off, or nobody can be asked)
    large = not plan.estimate.known or plan.estimate.rcu > threshold
    if not large and not check.hints:
        return
    said = f"{plan.label} reads {plan.estimate.text()}" + "".join(
        f"; hint: {h}" for h in check.hints
    )
    ended = said if said.endswith(("?", ".", "!")) else said + "."  # a hint may ask already
    if not ctx.doors.confirm(f"{ended} Run it?"):
        raise Declined("cancelled: nothing was read")


def may_sample(ctx: Context) -> bool:
    """Whether a small Scan page may be read beside a statement's plan (a sample for the hints
    or the catalog; COPY FROM's look at whether its table is empty): under --fail-on-scan no
    Scan of any size is sent."""
    return not ctx.settings.fail_on_scan


def drive(ctx: Context, label: str, effects: Effects, steps: Steps[R], go: Callable[[], None]) -> R:
    """Run a statement that asks: each `Ask` it yields is decided (`decide`) and the verdict
    sent back; its return value is the statement's. `go` lets its changes through (the
    port refuses any sent before the first `Verdict.GO`: a kind cannot change something
    without asking)."""
    try:
        ask = next(steps)
        while True:
            try:
                verdict = decide(ctx, label, effects, ask)
            except BaseException as refused:  # stops the statement where it asked
                _stop(steps, refused)
                raise
            if verdict is Verdict.GO:
                go()
            ask = steps.send(verdict)
    except StopIteration as done:
        result: R = done.value
        return result


def _stop(steps: Steps[Any], refused: BaseException) -> None:
    """A refusal (or Ctrl-C at a question) raised where the statement asked, as an error of
    its own would be: its `dynosql.result.carried` blocks hand the error what it changed in
    the session so far (a partition its read found whole), which the Session applies, and its
    `finally` blocks run now."""
    try:
        steps.throw(refused)
    except StopIteration:
        pass
    except BaseException as err:
        if err is not refused:
            raise


def decide(ctx: Context, label: str, effects: Effects, ask: Ask) -> Verdict:
    """Stages 5 to 7 for one change a statement is about to make (see the module docstring);
    first, a refusal the kind's reads found, and an offer made to a person."""
    if ask.refused:
        raise GuardError(ask.refused)
    if ask.offer:
        confirm = ctx.doors.confirm
        accepted = ctx.doors.interactive and confirm is not None and confirm(ask.offer)
        return Verdict.GO if accepted else Verdict.KEPT
    settings = ctx.settings
    if effects.dry_run and settings.dry_run:
        if ask.told:
            ctx.tell(ask.told)
        return Verdict.DRY
    if effects.all_or_nothing and ask.wcu is not None:
        cap = settings.max_wcu
        if cap is not None and ask.wcu > cap:
            raise GuardError(
                f"refused: {ask.what or label} would consume ~{ask.wcu:,} WCU, more than "
                f"--max-wcu {cap}; "
                f"{ask.why} (nothing was written)"
            )
    if effects.destructive and ask.question:
        if ctx.doors.assume_yes and ask.told:
            ctx.tell(ask.told)
        if not ctx.confirmed(ask.question, ask.refusal):
            if ask.declined is None:
                return Verdict.KEPT
            raise GuardError(ask.declined)
        return Verdict.GO
    many = effects.many and ask.items > settings.confirm_over
    if ask.question and ask.items and (many or ask.unbounded):
        refusal = f"refused: {ask.question[:-1]} needs a confirmation; run it with --yes"
        if not ctx.confirmed(ask.question, refusal):
            raise GuardError(ask.declined or "not confirmed: nothing was written")
    return Verdict.GO
