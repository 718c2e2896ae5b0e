"""Sort-key health: encodings in a sort key that do not sort as their values (month/day/year
dates, numbers without zero padding), named with a pair of keys that sorts wrongly. Used by the
hints after a ranged read and by SHOW ENTITIES."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_US_DATE = re.compile(r"(?<!\d)(\d{1,2})/(\d{1,2})/(\d{4})(?!\d)")
_NUMBER_TAIL = re.compile(r"(\d+(?:\.\d+)?)$")


def sort_key_health(name: str, keys: Iterable[str]) -> list[str]:
    """Encodings in a sort key that do not sort as their values: a pair that sorts wrongly."""
    found = []
    us_dates: list[tuple[tuple[int, int, int], str]] = []
    numbers: dict[str, list[tuple[Decimal, str]]] = {}
    for key in keys:
        m = _US_DATE.search(key)
        if m:
            month, day, year = (int(g) for g in m.groups())
            us_dates.append(((year, month, day), key))
        n = _NUMBER_TAIL.search(key)
        if n and not TIMESTAMP.match(key):
            head = key[: n.start()]
            numbers.setdefault(head, []).append((Decimal(n.group(1)), key))
    pair = _wrong_pair(us_dates)
    if pair:
        found.append(
            f"{name} holds dates written month/day/year, which do not sort by date: "
            f"{pair[0]!r} sorts before {pair[1]!r} (write dates as YYYY-MM-DD)"
        )
    for head, seen in sorted(numbers.items()):
        lengths = {len(k) for _, k in seen}
        pair = _wrong_pair(seen) if len(lengths) > 1 else None
        if pair:
            found.append(
                f"{name} holds numbers without zero padding after {head!r}: {pair[0]!r} sorts "
                f"before {pair[1]!r} (pad them to one width)"
            )
            break
    return found


def _wrong_pair(seen: list[tuple[Any, str]]) -> tuple[str, str] | None:
    """Two keys whose string order (UTF-8 bytes) contradicts their value order: the first
    sorts before the second though its value is larger."""
    ordered = sorted(seen, key=lambda v: v[1].encode("utf-8"))
    best = None
    for (va, ka), (vb, kb) in zip(ordered, ordered[1:], strict=False):
        if va > vb:
            best = (ka, kb)
            break
    if best is None:
        for i, (va, ka) in enumerate(ordered):
            for vb, kb in ordered[i + 1 :]:
                if va > vb:
                    return ka, kb
        return None
    return best
