"""The read cost model: how DynamoDB bills a read, in one place for the planner's estimates,
the executor's estimated capacity (on backends that report none) and SHOW HOT KEYS.

A read is billed in 4 KB units, rounded up, at least one; an eventually consistent read costs
half. GetItem and BatchGetItem round each item on its own; a Query or Scan page rounds the total
size of the items it evaluated (before any filter) once.
"""

from __future__ import annotations

import math
from decimal import Decimal

READ_UNIT_BYTES = 4096


def read_units(size: float, consistent: bool = False) -> Decimal:
    """RCU for reading `size` bytes billed as one unit (an item, or a Query/Scan page)."""
    units = Decimal(max(1, math.ceil(size / READ_UNIT_BYTES)))
    return units if consistent else units / 2


WRITE_UNIT_BYTES = 1024


def write_units(size: float) -> Decimal:
    """WCU for writing one item (or index entry) of `size` bytes: 1 KB units, rounded up, at
    least one (the larger of the old and new image on an update is the caller's to pass)."""
    return Decimal(max(1, math.ceil(size / WRITE_UNIT_BYTES)))
