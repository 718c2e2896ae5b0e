"""The row of a SELECT without FROM: its values and expressions computed once, by the rules
every expression follows (evaluate/scalar.py); none when its WHERE does not hold or LIMIT 0."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dynosql.evaluate.predicate import matches, operand_value
from dynosql.sql import ast

_NO_ITEM: dict[str, Any] = {}  # nothing is read: no attribute has a value


def values_rows(statement: ast.SelectValues) -> Iterator[dict[str, Any]]:
    if statement.limit == 0 or not matches(statement.where, _NO_ITEM):
        return
    yield {item.name: operand_value(item.expr, _NO_ITEM) for item in statement.items}
