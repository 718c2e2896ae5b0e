"""Choosing between a read whose cost is bounded by LIMIT and one whose cost grows with the
partition (pure; the planner's estimates in, a decision out).

``ORDER BY k [DESC] LIMIT n`` under a partition key has two kinds of plan. Reading a path whose
sort key is k, in order with ``Limit n``, costs at most a bound B (n index entries, plus n
fetches from the base table when the index lacks attributes), *whatever the partition holds*.
Reading the partition through another path and sorting client-side costs U(s) for a partition
of s items: little for a small partition, the whole path's size if one key holds it all. The
planner's per-partition guess (the square root of the item count) is an average, and item
collections are skewed (the partition someone asks for is often the heavy one), so comparing B
with that average picks the unbounded read exactly where it hurts most.

The rule is minimax regret in read units, which are money: the bounded read can overspend the
partition read by at most B - U(n) (a partition of just n items), and the partition read can
overspend the bounded one by at most U(N) - B (one partition holding all N items of its path).
The bounded read is chosen unless its worst overspend is the larger one. Without a fetch B is
about U(n) (n entries against n items) and the bounded read wins; with a fetch it wins except
where the LIMIT is large for the table. A read continued with the rows its sparse index lacks
(ORDER BY … NULLS LAST) can waste its whole bound, so it is compared as ``Range(0, U(N))``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Range:
    """What the unbounded read costs: `least` for a partition of LIMIT items (per branch),
    `most` when one partition holds every item under its path."""

    least: Decimal
    most: Decimal


def bounded_wins(bound: Decimal, unbounded: Range) -> bool:
    """Whether a read costing at most `bound` (whatever the partition's size) should be
    chosen over a read whose cost lies in `unbounded` (by the partition's size)."""
    return bound - unbounded.least <= unbounded.most - bound
