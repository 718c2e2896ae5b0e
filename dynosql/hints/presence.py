"""``p IS NULL`` that finds nothing because the items *lack* p (a SQL habit: a table shows a
missing value as a blank cell, and SQL calls a blank NULL). In DynamoDB a missing attribute is
not NULL (NULL is a stored type), so the fix is PartiQL's ``p IS MISSING``.

Pure: the statement, how many items the read evaluated, and the sample (when the front door
allowed one) in; one line out. Without a sample the hint says what is certain (nothing read
is NULL) and what to write if absence was meant; with one, how many sampled items lack p.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dynosql.evaluate.predicate import resolve
from dynosql.sql import ast
from dynosql.values import MISSING


def is_null_paths(where: ast.Condition | None) -> Iterator[ast.Path]:
    """The paths of ``p IS NULL`` that the WHERE requires (conjuncts, not under NOT or OR)."""
    if isinstance(where, ast.And):
        for c in where.items:
            yield from is_null_paths(c)
    elif isinstance(where, ast.IsNull):
        yield where.path


def is_null_hints(
    statement: ast.Select, scanned: int, sample: list[dict[str, Any]] | None
) -> list[str]:
    """For an empty result: one hint per required ``p IS NULL`` (see the module docstring)."""
    found = []
    for path in is_null_paths(statement.where):
        fix = f"write {path.text} IS MISSING for items without {path.text}"
        if sample:
            lacking = sum(1 for item in sample if resolve(item, path) is MISSING)
            if not lacking:
                continue
            found.append(
                f"{path.text} IS NULL matches only a stored NULL, and {lacking} of a "
                f"{len(sample)}-item sample have no {path.text} at all: {fix}"
            )
        elif scanned:
            found.append(
                f"{path.text} IS NULL matched none of the {scanned:,} items read: it matches "
                f"only a stored NULL, never a missing attribute; {fix}"
            )
    return found
