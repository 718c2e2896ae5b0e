"""Table-qualified columns, resolved where a statement is bound to its table: ``drive.PK`` and
``d.PK`` (``FROM drive d``) name the column ``PK`` when the first name is the table's name or
its alias and not an attribute (a key of the table or of an index, or a name seen in the
table's sample: then ``drive.PK`` stays the document path it spells). Pure: the table's
description and, where one was read, the attribute names of a sample in."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from dynosql.plan.schema import TableInfo
from dynosql.sql import ast


def qualifiers(statement: ast.Select) -> set[str]:
    """The names a column may be qualified with: the table's, and its alias."""
    return {q for q in (statement.table, statement.alias) if q}


def has_qualified_paths(statement: ast.Select) -> bool:
    names = qualifiers(statement)
    return any(_qualified(p, names) for p in _paths(statement))


def resolve_qualified(
    statement: ast.Select, table: TableInfo, sampled: Iterable[str] = ()
) -> ast.Select:
    """The statement with its table-qualified columns unqualified (see the module docstring);
    `sampled`: the attribute names a sample of the table holds."""
    keys = {name for path in table.access_paths for name in path.keys.names}
    names = qualifiers(statement) - keys - set(sampled)
    if not any(_qualified(p, names) for p in _paths(statement)):
        return statement

    def strip(node: Any) -> Any:
        if not isinstance(node, ast.Path) or not _qualified(node, names):
            return None
        rest = node.elements[1:]
        head = f"{node.root}."
        text = node.text[len(head) :] if node.text.startswith(head) else _text(rest)
        return ast.Path(rest, text, node.pos, node.quoted)

    fields = ("items", "where", "group_by", "order_by")
    return dataclasses.replace(
        statement, **{f: ast.rewrite(getattr(statement, f), strip) for f in fields}
    )


def _qualified(path: ast.Path, names: set[str]) -> bool:
    return len(path.elements) > 1 and path.root in names and isinstance(path.elements[1], str)


def _paths(statement: ast.Select) -> Iterator[ast.Path]:
    """Every path of the select list, WHERE, GROUP BY and ORDER BY."""
    found: list[ast.Path] = []

    def visit(node: Any) -> Any:
        if isinstance(node, ast.Path):
            found.append(node)
            return node  # kept as it is, not walked into
        return None

    for field in ("items", "where", "group_by", "order_by"):
        ast.rewrite(getattr(statement, field), visit)
    return iter(found)


def _text(elements: tuple[str | int, ...]) -> str:
    out = ""
    for el in elements:
        out += f"[{el}]" if isinstance(el, int) else (f".{el}" if out else str(el))
    return out
