"""What a statement kind is: how to run it, how to EXPLAIN it, whether it may Scan, what it
does (its `Effects`, which the guard pipeline reads), and whether BEGIN … COMMIT queues it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from dynosql.guards import NOTHING, Effects, ScanCheck

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.result import Result

S = TypeVar("S")

__all__ = ["Kind", "ScanCheck", "named"]


def _nothing(_statement: Any) -> Effects:
    return NOTHING


@dataclass(frozen=True)
class Kind(Generic[S]):
    """One statement kind. `label` names a statement in messages ("DROP TABLE", "COPY FROM");
    `scan_plan` gives the Scan it would send, if any, without reading items; `transactional`
    kinds are queued inside BEGIN … COMMIT instead of run."""

    label: Callable[[S], str]
    run: Callable[[Context, S], Result]
    effects: Callable[[S], Effects] = _nothing
    explain: Callable[[Context, S, bool], Result] | None = None
    scan_plan: Callable[[Context, S], ScanCheck | None] | None = None
    transactional: bool = False


def named(text: str) -> Callable[[Any], str]:
    """A `label` that is always `text`."""
    return lambda _statement: text
