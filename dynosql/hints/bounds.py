"""A string upper bound that is a strict prefix of the values it ranges over:
``readingTs BETWEEN '2026-05-04' AND '2026-05-05'`` on ISO-8601 timestamps reads every reading
of the 4th and none of the 5th, since '2026-05-05T08:00:00Z' sorts after '2026-05-05'. SQL
users expect a date to cover its day; DynamoDB compares strings byte by byte.

Pure: the statement and the values of the bounded attribute that the statement itself read
(no other read) in; hints out. The evidence: values read are longer than the bound and begin
with text of the bound's shape (digits where it has digits, the same separators), so values
beginning with the bound itself sort after it and are left out.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Iterator

from dynosql.sql import ast

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def upper_bounds(where: ast.Condition | None) -> Iterator[tuple[ast.Path, str, str]]:
    """(path, how the bound is written, bound) of each required ``p BETWEEN 'a' AND 'b'``
    (``BETWEEN 'a' AND``) and ``p <= 'b'`` (``<=``) on a top-level attribute."""
    if isinstance(where, ast.And):
        for c in where.items:
            yield from upper_bounds(c)
    elif isinstance(where, ast.Between):
        if isinstance(where.operand, ast.Path) and where.operand.is_attribute:
            low, high = where.low, where.high
            if isinstance(high, ast.Literal) and isinstance(high.value, str) and high.value:
                written = "BETWEEN … AND"
                if isinstance(low, ast.Literal) and isinstance(low.value, str):
                    written = f"BETWEEN '{low.value}' AND"
                yield where.operand, written, high.value
    elif isinstance(where, ast.Compare) and where.op in ("<=", ">="):
        path, bound = where.left, where.right
        if where.op == ">=":  # 'b' >= p
            path, bound = bound, path
        if (
            isinstance(path, ast.Path)
            and path.is_attribute
            and isinstance(bound, ast.Literal)
            and isinstance(bound.value, str)
            and bound.value
        ):
            yield path, "<=", bound.value


def _shape(text: str) -> str:
    return re.sub(r"\d", "9", text)


def prefix_bound_hints(statement: ast.Select, seen: dict[str, list[str]]) -> list[str]:
    """`seen`: attribute name → string values of it that the statement read."""
    found = []
    for path, op, bound in upper_bounds(statement.where):
        example = _longer_of_same_shape(bound, seen.get(str(path.root), ()))
        if example is None:
            continue
        fix = _fix(path.text, op, bound, example)
        found.append(
            f"{path.text} values are longer than '{bound}' (e.g. '{example}'): every value "
            f"that begins with '{bound}' sorts after it, so {path.text} {op} '{bound}' "
            f"leaves them all out; {fix}"
        )
    return found


def _longer_of_same_shape(bound: str, values: Iterable[str]) -> str | None:
    shape = _shape(bound)
    for value in values:
        if len(value) > len(bound) and _shape(value[: len(bound)]) == shape:
            return value
    return None


def _fix(name: str, op: str, bound: str, example: str) -> str:
    """``< next day`` for an ISO date; else the bound followed by ``~``, which sorts after
    every printable ASCII character (said only when the values seen continue with one)."""
    low = op[len("BETWEEN ") : -len(" AND")] if op.startswith("BETWEEN '") else None
    if _ISO_DATE.match(bound):
        try:
            day = datetime.date.fromisoformat(bound)
        except ValueError:
            day = None
        if day is not None:
            after = (day + datetime.timedelta(days=1)).isoformat()
            since = f"{name} >= {low} AND " if low else ""
            return f"to include {bound} write {since}{name} < '{after}'"
    if example[len(bound)] < "~":
        return f"to include them write {name} {op} '{bound}~' (~ sorts after them)"
    return f"to include them compare with the next value after the ones that begin with '{bound}'"
