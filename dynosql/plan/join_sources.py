"""The sources of a join and whose every name is. Pure, no I/O.

A join names its sources by alias (``FROM orders o JOIN shipment s``; without an alias, by its
own name), and every column reference is made *qualified*: ``o.orderId`` stays as written; an
unqualified ``carrier`` becomes ``s.carrier`` when s is the one source that knows a column of
that name (an entity's key columns; a table's key attributes, of the table and its indexes). A
name two sources know is ambiguous, and a name none knows is refused: any other attribute may
be stored on any item, so only a qualifier says whose it is.

The rows of a join are maps of maps: ``{"o": <o's row>, "s": <s's row>}``, so that a qualified
path (``s.carrier``, ``o.address.city``) is a document path into the joined row, and every
client-side evaluator (conditions, expressions, sorting, grouping) works on joined rows as on
items. A source whose LEFT JOIN found nothing has no entry: its columns are missing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dynosql.entity_model import Column, Entity, Template
from dynosql.errors import SqlError
from dynosql.evaluate.pipeline import whole_item_row
from dynosql.plan.schema import TableInfo
from dynosql.sql import ast
from dynosql.sql.convert import check_grouped
from dynosql.sql.spelling import closest


@dataclass(frozen=True)
class Keys:
    """The key templates of one access path (the table, or an index) as a source names them:
    an entity's own templates; for a table, each key attribute a column of its own name."""

    index: str | None
    pk: Template
    sk: Template | None
    exact: bool = True  # the path holds every item of the source (an entity's index: no WHERE)

    @property
    def templates(self) -> tuple[Template, ...]:
        return (self.pk,) if self.sk is None else (self.pk, self.sk)

    @property
    def label(self) -> str:
        return "the table's key" if self.index is None else f"index {self.index}"


@dataclass(frozen=True)
class Source:
    """One source of a join: a table or an entity, by the alias the SELECT gives it."""

    alias: str
    name: str  # as written: an entity's name or a table's
    table: TableInfo
    entity: Entity | None = None
    index: str | None = None  # FROM t.idx / JOIN t.idx: read through that index
    left: bool = False  # LEFT JOINed: a row before it is kept when nothing of it matches
    on: ast.Condition | None = None  # the ON of its JOIN (None: the first source)
    pos: ast.Pos = field(default=ast.NOWHERE, compare=False)

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns known without reading: an entity's key columns, a table's keys."""
        if self.entity is not None:
            return self.entity.columns
        return tuple(self.table.key_types)

    @property
    def what(self) -> str:
        """``entity shipment`` / ``table products``, for messages."""
        return f"entity {self.name}" if self.entity is not None else f"table {self.name}"

    @property
    def owned(self) -> frozenset[str]:
        """The attributes an entity's definition owns (composed keys, constants): in its
        rows, named only (``o.pk``), never in ``o.*``."""
        if self.entity is None:
            return frozenset()
        return frozenset(self.entity.attributes) - set(self.entity.columns)

    def row(self, item: dict[str, Any]) -> dict[str, Any]:
        """An item read for this source as its row: an entity's columns (its key columns
        read back from the key) and the attributes its definition owns, as a SELECT of the
        entity alone reads them; or a table's whole item with its key attributes first."""
        if self.entity is not None:
            row = self.entity.decode(item)
            row.update((name, item[name]) for name in sorted(self.owned) if name in item)
            return row
        return whole_item_row(item, self.table.keys.names)

    def keys(self) -> list[Keys]:
        """Every access path this source can be read by key through, the table's first."""
        if self.entity is not None:
            return [Keys(a.index, a.pk, a.sk, exact=a.where is None) for a in self.entity.accesses]
        types = self.table.key_types
        out = []
        for path in self.table.access_paths:
            if self.index is not None and path.name not in (None, self.index):
                continue
            k = path.keys
            sk = None if k.sk is None else _single(k.sk, types[k.sk])
            # a table's index holds only the items that have its keys: exact when the user
            # names it (FROM t.idx), or when its sort key is the table's own (always there)
            exact = (
                path.name is None
                or self.index == path.name
                or k.sk in (None, *self.table.keys.names)
            )
            out.append(Keys(path.name, _single(k.pk, types[k.pk]), sk, exact))
        return out


def _single(attribute: str, key_type: str) -> Template:
    return Template(attribute, (Column(attribute),), key_type)


# --- the sources of a SELECT ---------------------------------------------------------------------


def resolved(
    statement: ast.Select, find: Callable[[str], tuple[TableInfo, Entity | None]]
) -> tuple[ast.Select, list[Source]]:
    """A join's sources, each name an entity or a table (`find` gives its table and its
    entity, None for a table), and the statement with every name qualified (`qualify`)."""
    firsts = [
        (statement.alias or statement.table, statement.table, statement.index, statement.table_pos)
    ]
    named = firsts + [(j.alias or j.table, j.table, j.index, j.table_pos) for j in statement.joins]
    sources = []
    for (alias, name, index, pos), join in zip(named, (None, *statement.joins), strict=True):
        table, entity = find(name)
        if index is not None and entity is None:
            table.index(index)  # refuses an index the table does not have
        elif index is not None and entity is not None and entity.access(index) is None:
            names = ", ".join(str(a.index) for a in entity.indexes) or "none"
            raise SqlError(
                f"{name} does not live in index {index} (its indexes: {names})",
                pos.line or None,
                pos.col or None,
            )
        left = join is not None and join.left
        sources.append(Source(alias, name, table, entity, index, left, None, pos))
    qualified = qualify(statement, sources)
    ons = (None, *(j.on for j in qualified.joins))
    return qualified, [dataclasses.replace(s, on=on) for s, on in zip(sources, ons, strict=True)]


# --- names ---------------------------------------------------------------------------------------


def qualify(statement: ast.Select, sources: list[Source]) -> ast.Select:
    """The statement with every path qualified by its source's alias (see the module's
    docstring), ``*`` and ``o.*`` made one `AllColumns` per source, and each selected path
    named by what follows its qualifier (``o.orderId`` is the column ``orderId``; two of one
    name keep their qualifier: ``o.orderId``, ``s.orderId``)."""
    by_alias = {s.alias: s for s in sources}

    def visit(node: Any) -> Any:
        if isinstance(node, ast.Path):
            return _qualified(node, sources, by_alias)
        if isinstance(node, ast.AllColumns):
            if node.alias not in by_alias:
                raise _error(
                    f"{node.alias}.*: no source is named {node.alias} (the sources: "
                    f"{', '.join(by_alias)})",
                    node.pos,
                )
            return dataclasses.replace(node, omit=by_alias[node.alias].owned)
        return None

    if statement.items is None:
        items: tuple[ast.SelectItem, ...] = tuple(
            ast.SelectItem(ast.AllColumns(s.alias, f"{s.alias}.", omit=s.owned)) for s in sources
        )
    else:
        items = _named(statement.items, sources)
    joins = tuple(dataclasses.replace(j, on=ast.rewrite(j.on, visit)) for j in statement.joins)
    rest = dataclasses.replace(statement, items=items, joins=())
    qualified: ast.Select = ast.rewrite(rest, visit)
    qualified = dataclasses.replace(qualified, joins=joins)
    if qualified.is_aggregate:
        check_grouped(qualified)
    return qualified


def _named(items: tuple[ast.SelectItem, ...], sources: list[Source]) -> tuple[ast.SelectItem, ...]:
    """Each selected path without an alias named by its text after the qualifier."""
    aliases = {s.alias for s in sources}
    names: list[str | None] = []
    for item in items:
        expr = item.expr
        if item.alias is None and isinstance(expr, ast.Path):
            names.append(_bare(expr, aliases))
        else:
            names.append(None)
    counts: dict[str, int] = {}
    for name in names:
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    out = []
    for item, name in zip(items, names, strict=True):
        if name is not None and counts[name] == 1:
            item = ast.SelectItem(item.expr, name)
        out.append(item)
    return tuple(out)


def _bare(path: ast.Path, aliases: set[str]) -> str:
    """A path's text without its qualifier (``o.address.city`` → ``address.city``)."""
    if len(path.elements) > 1 and path.root in aliases and isinstance(path.elements[1], str):
        return path.text.split(".", 1)[1] if "." in path.text else path.text
    return path.text


def _qualified(path: ast.Path, sources: list[Source], by_alias: dict[str, Source]) -> ast.Path:
    root = path.root
    if len(path.elements) > 1 and root in by_alias and isinstance(path.elements[1], str):
        return path
    knowing = [s for s in sources if root in s.columns]
    if len(knowing) == 1:
        alias = knowing[0].alias
        return ast.Path((alias, *path.elements), f"{alias}.{path.text}", path.pos, path.quoted)
    aliases = [s.alias for s in sources]
    if len(knowing) > 1:
        both = " and ".join(s.alias for s in knowing)
        raise _error(
            f"{root} is a column of {'both ' if len(knowing) == 2 else ''}{both}: write "
            f"{_options([s.alias for s in knowing], str(root))}",
            path.pos,
        )
    if len(path.elements) > 1 and isinstance(path.elements[1], str):
        raise _error(
            f"{path.text}: no source is named {root} (the sources: {', '.join(aliases)})",
            path.pos,
        )
    whose = (
        f"neither {aliases[0]} nor {aliases[1]}"
        if len(aliases) == 2
        else ("none of " + ", ".join(aliases))
    )
    guess = _guess(str(root), sources)
    raise _error(
        f"{root} is a column of {whose}: write {_options(aliases, str(root))} (without a "
        f"qualifier a name must be a key column of one source){guess}",
        path.pos,
    )


def _guess(name: str, sources: list[Source]) -> str:
    known = {f"{s.alias}.{c}": c for s in sources for c in s.columns}
    near = closest(name, known.values(), n=1, cutoff=0.8)
    if not near:
        return ""
    found = next(q for q, c in known.items() if c == near[0])
    return f"; did you mean {found}?"


def _options(aliases: list[str], name: str) -> str:
    written = [f"{a}.{name}" for a in aliases]
    return written[0] if len(written) == 1 else f"{', '.join(written[:-1])} or {written[-1]}"


def _error(message: str, pos: ast.Pos) -> SqlError:
    return SqlError(message, pos.line or None, pos.col or None)


def aliases_in(node: Any) -> set[str]:
    """The sources a qualified condition or expression names."""
    found: set[str] = set()

    def visit(n: Any) -> Any:
        if isinstance(n, ast.Path):
            found.add(str(n.root))
            return n
        if isinstance(n, ast.AllColumns):
            found.add(n.alias)
        return None

    ast.rewrite(node, visit)
    return found


def unqualified(node: Any, alias: str) -> Any:
    """A condition of one source with its qualifier removed: as a SELECT of that source alone
    would write it (``s.status = 'SENT'`` → ``status = 'SENT'``)."""

    def strip(n: Any) -> Any:
        if isinstance(n, ast.Path) and n.root == alias and len(n.elements) > 1:
            return ast.Path(n.elements[1:], n.text.split(".", 1)[1], n.pos, n.quoted)
        return None

    return ast.rewrite(node, strip)
