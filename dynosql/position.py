"""Where a piece of SQL stands in its script.

A module of its own so that what is built from SQL but means more than SQL (an entity's
templates) carries positions without importing the SQL package, whose parser builds it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pos:
    """1-based line and column in the script the statement came from."""

    line: int = 1
    col: int = 1


NOWHERE = Pos(0, 0)
