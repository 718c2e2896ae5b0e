"""Hints: the likely fix for a statement that runs but probably does not say what its author
meant (a common SQL habit that DynamoDB reads differently), in one line each.

Pure: the table's description (``TableInfo``) and, where one was read, a sample of its items
in; strings out. ``Session`` decides when a sample is worth reading and shows the hints as
warnings before the read (or in the ``--fail-on-scan`` refusal) and as notes after an empty
result. The rules (see docs/hints.md):

- A name that is no key and no sampled attribute, but matches one ignoring case, a select-list
  alias, a double-quoted text that looks like a value, or a close spelling, is named with its
  likely fix.
- A comparison whose literal's type is none of the types the sample saw for the attribute
  (``ok = 1`` on a boolean, ``latencyMs > '100'``) can match no item of those types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from dynosql import values
from dynosql.plan.schema import TableInfo
from dynosql.sql import ast
from dynosql.sql.spelling import closest

TYPE_NAMES = {
    "S": "string",
    "N": "number",
    "B": "binary",
    "BOOL": "boolean",
    "NULL": "NULL",
    "L": "list",
    "M": "map",
    "SS": "string set",
    "NS": "number set",
    "BS": "binary set",
}
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --- what is known about a table -----------------------------------------------------------------


def key_roles(table: TableInfo) -> dict[str, str]:
    """Every key attribute of the table and its indexes, with what it is."""
    roles: dict[str, str] = {}
    for path in table.access_paths:
        where = "" if path.name is None else f" of index {path.name}"
        roles.setdefault(path.keys.pk, f"the partition key{where}")
        if path.keys.sk:
            roles.setdefault(path.keys.sk, f"the sort key{where}")
    return roles


def key_types(table: TableInfo) -> dict[str, str]:
    types: dict[str, str] = {}
    for path in table.access_paths:
        types.setdefault(path.keys.pk, path.keys.pk_type)
        if path.keys.sk and path.keys.sk_type:
            types.setdefault(path.keys.sk, path.keys.sk_type)
    return types


def sampled_types(sample: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    """Top-level attribute name → the type codes seen for it in the sample."""
    types: dict[str, set[str]] = {}
    for item in sample:
        for name, value in item.items():
            types.setdefault(name, set()).add(values.type_of(value) or "")
    return types


# --- what a statement names -------------------------------------------------------------------


def names_attributes(statement: ast.Select, table: TableInfo, where_only: bool = False) -> bool:
    """Whether the statement (its WHERE, with `where_only`) names any attribute that is no key
    (else a sample adds nothing)."""
    keys = key_roles(table)
    return any(p.root not in keys and (w or not where_only) for p, w in _paths(statement))


_last_paths: tuple[Any, tuple[tuple[ast.Path, bool], ...]] = (None, ())


def _paths(statement: ast.Select) -> tuple[tuple[ast.Path, bool], ...]:
    """Every path of the statement, with whether it stands in the WHERE. The checks of one
    statement ask several times: the last statement's paths are kept (the statement itself is
    held, so its id cannot be reused)."""
    global _last_paths
    held, paths = _last_paths
    if held is not statement:
        paths = tuple(_walk_paths(statement))
        _last_paths = (statement, paths)
    return paths


def _walk_paths(statement: ast.Select) -> Iterator[tuple[ast.Path, bool]]:
    for item in statement.items or ():
        yield from ((p, False) for p in _paths_in(item.expr))
    yield from ((p, True) for p in _paths_in(statement.where))
    for p in statement.group_by:  # a path, or an expression over paths
        yield from ((x, False) for x in _paths_in(p))
    for order in statement.order_by:
        yield from ((p, False) for p in _paths_in(order.expr))


def _paths_in(node: Any) -> Iterator[ast.Path]:
    if isinstance(node, ast.Path):
        yield node
    elif isinstance(node, tuple):
        for x in node:
            yield from _paths_in(x)
    else:
        for name in ast.field_names(type(node)):
            yield from _paths_in(getattr(node, name))


# --- the hints -----------------------------------------------------------------------------------


def hints(
    statement: ast.Select,
    table: TableInfo,
    sample: list[dict[str, Any]] | None = None,
    only: set[str] | None = None,
    seen_in: str | None = None,
    where_only: bool = False,
) -> list[str]:
    """One line per likely mistake, in the order the names appear; ``sample`` (items read
    from the table) adds the checks against attribute names and types seen. ``only`` limits
    the checks to these top-level names (the columns a non-empty result never filled).
    ``seen_in`` says what the items are (default: "a 100-item sample"); ``where_only``: the
    names in the WHERE alone (a column no row fills shows as blank anyway)."""
    where_seen = seen_in or f"a {len(sample or ())}-item sample"
    roles = key_roles(table)
    types = sampled_types(sample) if sample is not None else None
    known = set(roles) | set(types or ())
    aliases = {i.alias: i.expr for i in statement.items or () if i.alias}
    found: list[str] = []
    for path, in_where in _paths(statement):
        if (only is not None and path.root not in only) or (where_only and not in_where):
            continue
        hint = _name_hint(path, in_where, roles, types, known, aliases, where_seen)
        if hint and hint not in found:
            found.append(hint)
    if types is not None and only is None:
        for hint in _type_hints(statement.where, table, types, where_seen):
            if hint not in found:
                found.append(hint)
    return found


def _name_hint(
    path: ast.Path,
    in_where: bool,
    roles: dict[str, str],
    types: dict[str, set[str]] | None,
    known: set[str],
    aliases: dict[str, Any],
    where_seen: str,
) -> str | None:
    name = path.root
    if name in known:
        return None
    for key, role in roles.items():
        if key.lower() == name.lower():
            return f"no attribute {name}; {role} is {key} (names are case-sensitive)"
    for seen in sorted(types or ()):
        if seen.lower() == name.lower():
            return f"no attribute {name}; the items have {seen} (names are case-sensitive)"
    if (
        in_where
        and path.quoted
        and path.is_attribute
        and (types is not None or _looks_like_value(name))
    ):
        quoted = "'" + name.replace("'", "''") + "'"
        return (
            f'"{name}" in double quotes names an attribute, and no item has one: '
            f"did you mean the string {quoted}?"
        )
    if in_where and path.is_attribute and name in aliases:
        target = aliases[name]
        return f"{name} is a select-list alias; WHERE sees only attributes: write {target.text}"
    if types is None:
        return None
    near = closest(name, known)
    seen = f"no item of {where_seen} has {name}"
    return f"{seen}; closest: {', '.join(near)}" if near else seen


def _looks_like_value(name: str) -> bool:
    """A double-quoted text that could not be written as a bare name (DRIVE#alice, a b, 2026)."""
    return not _PLAIN.match(name)


def _type_hints(
    where: ast.Condition | None, table: TableInfo, types: dict[str, set[str]], where_seen: str
) -> Iterator[str]:
    keys = key_types(table)
    for path, op, literal in _comparisons(where):
        if not path.is_attribute or path.root in keys or path.root not in types:
            continue
        seen = types[path.root] - {"NULL"}
        code = values.type_of(literal.value)
        if not seen or code in seen:
            continue
        seen_text = " and ".join(TYPE_NAMES.get(t, t) for t in sorted(seen))
        written = _literal_sql(literal.value)
        suggestion = _converted(literal.value, seen) if op != "BETWEEN" else None
        guess = f" (did you mean {path.text} {op} {suggestion}?)" if suggestion else ""
        yield (
            f"{path.text} holds {seen_text} values in {where_seen}, and {written} is a "
            f"{TYPE_NAMES.get(code or '', code)}: no item of the seen types can match{guess}"
        )


def _comparisons(node: Any) -> Iterator[tuple[ast.Path, str, ast.Literal]]:
    """(path, operator, literal) of every comparison of an attribute with a literal, except
    ``<>`` (true across types) and NULL literals."""
    if isinstance(node, ast.And | ast.Or):
        for c in node.items:
            yield from _comparisons(c)
    elif isinstance(node, ast.Not):
        yield from _comparisons(node.item)
    elif isinstance(node, ast.Compare) and node.op != "<>":
        left, right = node.left, node.right
        if isinstance(left, ast.Literal) and isinstance(right, ast.Path):
            left, right = right, left
        if (
            isinstance(left, ast.Path)
            and isinstance(right, ast.Literal)
            and right.value is not None
        ):
            yield left, node.op, right
    elif isinstance(node, ast.Between) and isinstance(node.operand, ast.Path):
        for bound in (node.low, node.high):
            if isinstance(bound, ast.Literal) and bound.value is not None:
                yield node.operand, "BETWEEN", bound
                return


def _literal_sql(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if values.type_of(value) == "N":
        return values.format_number(value)
    return repr(value)


def _converted(value: Any, seen: set[str]) -> str | None:
    """The literal written as the type the attribute holds, where that reads naturally."""
    code = values.type_of(value)
    if "BOOL" in seen and code == "S" and value.lower() in ("true", "false"):
        return value.upper()
    if "BOOL" in seen and code == "N" and value in (0, 1):
        return "TRUE" if value == 1 else "FALSE"
    if "N" in seen and code == "S":
        try:
            return values.format_number(values.number(value.strip()))
        except ValueError:
            return None
    if "S" in seen and code in ("N", "BOOL"):
        text = values.format_number(value) if code == "N" else str(value).lower()
        return f"'{text}'"
    return None


# --- sort-key prefixes ---------------------------------------------------------------------------

SEPARATORS = "#/:|"


def child_prefix(key: str, parent: str) -> str:
    """The next level of a hierarchical key under ``parent``: ``root/photos/`` of
    ``root/photos/2026/a.jpg`` under ``root/``; the whole key when no separator follows."""
    rest = key[len(parent) :]
    for i, ch in enumerate(rest):
        if ch in SEPARATORS:
            return parent + rest[: i + 1]
    return key


def parent_prefix(prefix: str) -> str:
    """The prefix cut back to its last separator (``root/foto/`` → ``root/``)."""
    body = prefix[:-1] if prefix and prefix[-1] in SEPARATORS else prefix
    cut = max(body.rfind(ch) for ch in SEPARATORS)
    return body[: cut + 1] if cut >= 0 else ""


def begins_with_probe(
    statement: ast.Select, table: TableInfo, index: str | None
) -> tuple[str, Any, str, str] | None:
    """(partition key, its value, sort key, prefix) when the WHERE reads a key prefix:
    ``pk = v AND begins_with(sk, 'p')`` (or ``LIKE 'p%'``) on the path read."""
    path = table.index(index) if index else table.base
    if path.keys.sk is None or path.keys.sk_type != "S":
        return None
    where = statement.where
    conjuncts = where.items if isinstance(where, ast.And) else (where,)
    pk_value, prefix = None, None
    for c in conjuncts:
        if (
            isinstance(c, ast.Compare)
            and c.op == "="
            and isinstance(c.left, ast.Path)
            and c.left.elements == (path.keys.pk,)
            and isinstance(c.right, ast.Literal)
        ):
            pk_value = c.right.value
        if (
            isinstance(c, ast.Function)
            and c.name == "begins_with"
            and c.path.elements == (path.keys.sk,)
            and isinstance(c.arg, ast.Literal)
            and isinstance(c.arg.value, str)
        ):
            prefix = c.arg.value
    if pk_value is None or not prefix:
        return None
    return path.keys.pk, pk_value, path.keys.sk, prefix


def empty_prefix_hint(
    pk: str, pk_value: Any, sk: str, prefix: str, existing: list[str], complete: bool, cost: str
) -> str | None:
    """After a begins_with that matched nothing: the prefixes that do exist at that level."""
    if not existing:
        return None
    more = "" if complete else ", …"
    near = closest(prefix, existing, n=1)
    guess = f"; did you mean '{near[0]}'?" if near else ""
    return (
        f"no {sk} under {pk} = {_literal_sql(pk_value)} begins with {_literal_sql(prefix)}; "
        f"existing prefixes: {', '.join(existing)}{more}{guess} ({cost})"
    )


def collision_hint(sk: str, prefix: str, children: list[str]) -> str | None:
    """``begins_with(sk, 'USER')`` where ``USERGROUP#…`` keys share the partition."""
    types = sorted({c for c in children if c[-1:] in SEPARATORS})
    if len(types) < 2:
        return None
    exact = next((t for t in types if t[:-1] == prefix), None)
    fix = f": use {_literal_sql(exact)}" if exact else ""
    listed = ", ".join(f"{t}…" for t in types)
    return (
        f"begins_with({sk}, {_literal_sql(prefix)}) matches more than one entity type "
        f"({listed}){fix}"
    )
