"""What a statement kind is: how to plan it (once), how to run and EXPLAIN what was planned,
what it does (its `Effects`, which the guard pipeline reads), and whether BEGIN … COMMIT
queues it.

One `Planned` statement flows from the front door to execution: the Session binds it, the
kind plans it once (`Kind.plan`: DescribeTable at most, and the hints the table alone gives),
the guards read the plan (the Scan it would send, `Planned.scan`), and the kind runs that same
plan. Nothing plans a statement twice."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from dynosql.guards import NOTHING, Effects, ScanCheck, Steps

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.result import Result

S = TypeVar("S")

__all__ = ["Kind", "Planned", "ScanCheck", "as_steps", "named", "unplanned"]


@dataclass(frozen=True)
class Planned(Generic[S]):
    """A bound statement and what its kind planned for it (`plan`: the kind's own, None for
    a kind that plans nothing): the one object the guards judge and the kind runs. `scans`:
    the reads it would send, with the hints that name the likely mistake (--fail-on-scan,
    --max-rcu and the REPL's question judge the Scans among them); `hints`: what the table
    alone says about the statement, shown before anything is read."""

    statement: S
    plan: Any = None
    scans: tuple[ScanCheck, ...] = ()
    hints: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()  # what planning read (the REPL's sample), a line each
    unbounded: str | None = None  # why its writes' extent is known only by reading (stage 4)


def _nothing(_statement: Any) -> Effects:
    return NOTHING


def _as_is(_ctx: Context, statement: Any, _explaining: bool = False) -> Planned[Any]:
    return Planned(statement)


def unplanned(
    run: Callable[[Context, S], Result | Steps[Result]],
) -> Callable[[Context, Planned[S]], Result | Steps[Result]]:
    """The `run` of a kind that plans nothing: it takes the bound statement."""
    return lambda ctx, planned: run(ctx, planned.statement)


@dataclass(frozen=True)
class Kind(Generic[S]):
    """One statement kind. `label` names a statement in messages ("DROP TABLE", "COPY FROM");
    `plan` plans it once, before the guards (no item read, but for the REPL's sample a SELECT
    naming table-qualified columns may read; `explaining`: for EXPLAIN, which reads nothing but
    table descriptions); `run` and `explain` take what it planned; a `run` that changes
    something is a generator: it yields a `guards.Ask` before each change and acts on the
    verdict (the pipeline decides dry runs, questions and refusals, never the kind);
    `transactional` kinds are queued inside BEGIN … COMMIT instead of run."""

    label: Callable[[S], str]
    run: Callable[[Context, Planned[S]], Result | Steps[Result]]
    effects: Callable[[S], Effects] = _nothing
    explain: Callable[[Context, Planned[S], bool], Result | Steps[Result]] | None = None
    plan: Callable[[Context, S, bool], Planned[S]] = _as_is
    transactional: bool = False
    # a statement of this kind, after the statements it needs first (run with no guard): the
    # guard walk (tests/test_guard_pipeline.py) runs it under every guard. It may name ``{t}``,
    # a table (pk S, sk N) of three items ('p', 1..3) with v = sk and one item ('A#x', 1) in its
    # sparse GSI ``gix`` (g S), and ``{dir}``, an empty directory for the files it writes
    example: tuple[str, ...] = ()


# the entity an entity kind's example declares first (its prelude)
EXAMPLE_ENTITY = "CREATE ENTITY e_{t} ON {t} (KEY (pk = 'A#' || a, sk = n))"


def as_steps(ran: Result | Steps[Result]) -> Steps[Result]:
    """A kind's run as steps, whether it asks (a generator) or not (its Result): for a kind
    that runs another kind's run inside its own (EXPLAIN ANALYZE, an entity's statement)."""
    if not isinstance(ran, Generator):
        return ran
    return (yield from ran)


def named(text: str) -> Callable[[Any], str]:
    """A `label` that is always `text`."""
    return lambda _statement: text
