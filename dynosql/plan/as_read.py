"""Conditions that require an item to be as a read saw it.

A write that follows a read (UPDATE/DELETE … WHERE, a transaction's actions) is exact only if
the item it changes is still the one the read judged. Its ConditionExpression can say so for
the paths that matter: each ``p = :as_read`` (a list or a map element by element, as undo
checks items: some DynamoDB implementations cannot compare whole documents), a path the read
found missing ``attribute_not_exists(p)``. Three callers, one rule:

- a non-idempotent UPDATE (``n = n + 1``) requires what it reads and writes, so a retried
  write that had applied fails instead of applying twice (statements.exactly_once);
- a WHERE part DynamoDB cannot evaluate (``grp LIKE '%1'``, checked client-side when reading)
  requires the paths that part reads, so an item that stopped matching after the read is
  skipped, never written (plan.write: ``WritePlan.as_read``);
- a transaction's action requires every attribute of the item its GetItem read (or its
  absence), so the old image journaled for undo is the item the transaction changed
  (statements.transaction).

A condition cannot say "and no other attribute": an attribute *added* in between is not seen.
"""

from __future__ import annotations

from typing import Any

from dynosql.evaluate.predicate import resolve
from dynosql.plan.expressions import Placeholders, equal_text
from dynosql.sql import ast
from dynosql.values import MISSING


def require_as_read(
    request: dict[str, Any], item: dict[str, Any] | None, paths: tuple[ast.Path, ...]
) -> dict[str, Any]:
    """`request` (a write's parameters) with its condition also requiring each of `paths` to
    hold the value it has in `item` (None: the item did not exist). A new dict."""
    request = dict(request)
    ph = Placeholders.of(request)
    parts = []
    for path in paths:
        value = MISSING if item is None else resolve(item, path)
        text = ph.path(path)
        parts.append(
            f"attribute_not_exists({text})" if value is MISSING else equal_text(text, value, ph)
        )
    if not parts:
        return request
    existing = request.get("ConditionExpression")
    joined = " AND ".join(parts)
    request["ConditionExpression"] = f"{existing} AND {joined}" if existing else joined
    return ph.into(request)


def attribute_paths(item: dict[str, Any]) -> tuple[ast.Path, ...]:
    """Every top-level attribute of `item`, as paths."""
    return tuple(ast.Path((name,), name) for name in item)


__all__ = ["attribute_paths", "require_as_read"]
