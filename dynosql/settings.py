"""The settings a user can change (flags, `SET name = value`, the REPL), and the one place
their values are checked, so the command line and SET accept exactly the same values.

Cheap to import: the command line uses it while parsing its arguments.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

BOOLEAN_WORDS = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}

SETTINGS_HELP = {
    "consistent": "strongly consistent reads (on/off)",
    "segments": "parallel Scan workers (a number, or auto)",
    "max_rcu": "stop a statement that consumes more RCU than this (a number, or off)",
    "rate_limit": "read at most this many RCU per second (a number, or off)",
    "fail_on_scan": "refuse statements that would Scan (on/off)",
    "format": "output format of the front end (table, csv, tsv, json, jsonl, markdown, vertical)",
}


@dataclasses.dataclass
class Settings:
    consistent: bool = False
    segments: int | None = None
    max_rcu: Decimal | None = None
    rate_limit: Decimal | None = None
    fail_on_scan: bool = False
    format: str = "table"


def positive_int(raw: str) -> int:
    """A count of workers (1 to 1000000); ValueError says what is expected."""
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1 or n > 1000000:
        raise ValueError("a whole number from 1 to 1000000")
    return n


def positive_decimal(raw: str) -> Decimal:
    """A capacity in RCU (positive, finite); ValueError says what is expected."""
    try:
        d = Decimal(raw)
    except Exception:
        raise ValueError("a positive number") from None
    if not d.is_finite() or d <= 0:
        raise ValueError("a positive number")
    return d
