"""An entity's definition: templates over its columns, the constants it writes, and what they
mean for an item (compose, decode, membership). Pure, no I/O.

A *template* composes one key attribute from string literals and the entity's columns, joined
with ``||``: ``sk = 'SHIP#' || status || '#' || shippedAt``. Two columns are always separated
by a literal (CREATE ENTITY refuses adjacent columns), and a column's value may not hold the
literal that follows it in the template (its *delimiter*: refused on write) unless that literal
closes the template, so every composed
value reads back into the same columns: each column ends at the first occurrence of its
delimiter, and the last column takes the rest, whatever it holds: nothing follows it, or only
the template's closing literal (``SK = path || '/'``), which is read from the value's end.

A template composes a string. A number or binary key attribute (N, B) can only be one column
alone (``gsi2sk = amount``): the column then takes the attribute's type.

An item *belongs* to an entity when every template of the table's own key reads back (the
constant parts match) and every constant holds. Index templates say nothing about membership:
an index may hold only some of the entity's items (``INDEX … WHERE``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dynosql import values
from dynosql.position import NOWHERE, Pos
from dynosql.values import MISSING


class TemplateError(ValueError):
    """A row whose columns cannot be composed into a key (the message says why)."""


@dataclass(frozen=True)
class Column:
    """A column in a template."""

    name: str


Part = str | Column


def column_text(name: str) -> str:
    """A column or attribute name as CREATE ENTITY takes it back: bare when a plain word."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.upper() not in _WORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


# the words a bare name could be taken for inside CREATE ENTITY
_WORDS = frozenset({"KEY", "INDEX", "WHERE", "ON", "ENTITY"})


def literal_text(value: Any) -> str:
    """A value as SQL (a constant, a template's literal)."""
    return values.sql_literal(value)


@dataclass(frozen=True)
class Template:
    """``attribute = part || part || …``: one key attribute composed from literals and columns."""

    attribute: str
    parts: tuple[Part, ...]
    key_type: str = "S"  # the attribute's type: S, or N/B for one column alone
    pos: Pos = field(default=NOWHERE, compare=False)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parts if isinstance(p, Column))

    @property
    def single(self) -> str | None:
        """The column, when the template is one column alone (the attribute is that column)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Column):
            return self.parts[0].name
        return None

    @property
    def constant(self) -> str | None:
        """The value, when the template has no column (every item has the same one)."""
        if self.columns:
            return None
        return "".join(p for p in self.parts if isinstance(p, str))

    def text(self) -> str:
        """The template as CREATE ENTITY writes it: ``pk = 'TENANT#' || tenantId``."""
        shown = " || ".join(
            column_text(p.name) if isinstance(p, Column) else literal_text(p) for p in self.parts
        )
        return f"{column_text(self.attribute)} = {shown}"

    def delimiter_after(self, column: str) -> str | None:
        """The literal that ends `column` where it stands (None: the column takes the rest of
        the value: nothing follows it, or only the closing literal, read from the end)."""
        for i, part in enumerate(self.parts):
            if isinstance(part, Column) and part.name == column:
                return self._delimiter(i)
        return None

    def _delimiter(self, i: int) -> str | None:
        following = self.parts[i + 1] if i + 1 < len(self.parts) else None
        closing = i + 2 == len(self.parts)
        return following if isinstance(following, str) and not closing else None

    def compose(self, row: Mapping[str, Any]) -> Any:
        """The attribute's value for a row of column values, MISSING when a column is missing
        (or NULL); TemplateError for a value the template cannot hold."""
        single = self.single
        if single is not None:
            value = row.get(single, MISSING)
            if value is MISSING or value is None:
                return MISSING
            if values.type_of(value) != self.key_type:
                raise TemplateError(_type_message(single, value, self))
            return value
        out = []
        for i, part in enumerate(self.parts):
            if isinstance(part, str):
                out.append(part)
                continue
            value = row.get(part.name, MISSING)
            if value is MISSING or value is None:
                return MISSING
            if not isinstance(value, str):
                raise TemplateError(_type_message(part.name, value, self))
            delimiter = self._delimiter(i)
            if delimiter is not None and delimiter in value:
                raise TemplateError(
                    f"{part.name} = {literal_text(value)} holds {literal_text(delimiter)}, the "
                    f"delimiter after {part.name} in {self.attribute}: it could not be read back"
                )
            out.append(value)
        return "".join(out)

    def decode(self, value: Any) -> dict[str, Any] | None:
        """The columns a stored value holds, or None when it does not fit the template (its
        constant parts do not match: the item is of another kind)."""
        single = self.single
        if single is not None:
            return {single: value} if values.type_of(value) == self.key_type else None
        if not isinstance(value, str):
            return None
        found: dict[str, Any] = {}
        at = 0
        n = len(self.parts)
        for i, part in enumerate(self.parts):
            if isinstance(part, str):
                if not value.startswith(part, at):
                    return None
                at += len(part)
                continue
            following = self.parts[i + 1] if i + 1 < n else None
            if not isinstance(following, str):  # nothing after it (columns never touch)
                end = len(value)
            elif i + 2 == n:  # the template's last literal: it ends the value
                end = len(value) - len(following)
                if end < at or not value.endswith(following):
                    return None
            else:
                end = value.find(following, at)
                if end < 0:
                    return None
            found[part.name] = value[at:end]
            at = end
        return found if at == len(value) else None

    def prefix(self, fixed: Mapping[str, Any]) -> tuple[str, int]:
        """The composed text every value with these columns begins with: the leading literals
        and leading fixed columns, each fixed column followed by its delimiter; and how many
        leading columns it fixes."""
        out: list[str] = []
        count = 0
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            if part.name not in fixed:
                break
            out.append(fixed[part.name])
            count += 1
        return "".join(out), count

    def like_pattern(self) -> str | None:
        """The template as a LIKE pattern (each column ``%``), or None when a literal holds
        ``%`` or ``_`` (LIKE has no escape here)."""
        literals = [p for p in self.parts if isinstance(p, str)]
        if any("%" in p or "_" in p for p in literals):
            return None
        return "".join("%" if isinstance(p, Column) else p for p in self.parts)


def _type_message(column: str, value: Any, template: Template) -> str:
    got = values.type_of(value) or "nothing"
    if template.single is not None and template.key_type != "S":
        want = {"N": "a number", "B": "binary"}[template.key_type]
        return f"{column} is {template.attribute} ({template.key_type}): it takes {want}, not {got}"
    return (
        f"{column} composes {template.attribute}, a string: it takes a string, not {got} "
        f"({literal_text(value) if got in ('S', 'N', 'BOOL', 'NULL') else got})"
    )


@dataclass(frozen=True)
class Access:
    """The templates of the table's own key (`index` None) or of one index the entity lives in;
    an index's `where` says which of the entity's items it holds (None: all of them)."""

    index: str | None
    pk: Template
    sk: Template | None = None
    # the parsed condition (a dynosql.sql.ast.Condition): the definition holds it without
    # importing the SQL package, whose parser builds definitions
    where: Any = field(default=None, compare=False)
    where_text: str = ""
    pos: Pos = field(default=NOWHERE, compare=False)

    @property
    def templates(self) -> tuple[Template, ...]:
        return (self.pk,) if self.sk is None else (self.pk, self.sk)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for t in self.templates for c in t.columns))

    @property
    def label(self) -> str:
        return "the table's key" if self.index is None else f"index {self.index}"

    def text(self) -> str:
        inner = ", ".join(t.text() for t in self.templates)
        if self.index is None:
            return f"KEY ({inner})"
        where = f" WHERE {self.where_text}" if self.where_text else ""
        return f"INDEX {column_text(self.index)} ({inner}){where}"


@dataclass(frozen=True)
class Entity:
    """``CREATE ENTITY name ON table (KEY (…), INDEX idx (…)…, attr = constant…)``."""

    name: str
    table: str
    key: Access
    indexes: tuple[Access, ...] = ()
    constants: tuple[tuple[str, Any], ...] = ()

    @property
    def accesses(self) -> tuple[Access, ...]:
        return (self.key, *self.indexes)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every key column, in the order the templates name them (the table's key first)."""
        return tuple(dict.fromkeys(c for a in self.accesses for c in a.columns))

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The columns of the table's own key: read back from the key, never changed."""
        return self.key.columns

    @property
    def attributes(self) -> tuple[str, ...]:
        """The physical attributes the definition owns: every template's and constant's."""
        names = [t.attribute for a in self.accesses for t in a.templates]
        names += [name for name, _value in self.constants]
        return tuple(dict.fromkeys(names))

    def access(self, index: str | None) -> Access | None:
        return next((a for a in self.accesses if a.index == index), None)

    def templates_of(self, column: str) -> list[tuple[Access, Template]]:
        """Every template that holds `column`."""
        return [(a, t) for a in self.accesses for t in a.templates if column in t.columns]

    def belongs(self, item: Mapping[str, Any]) -> bool:
        """Whether an item is one of this entity's (membership)."""
        for template in self.key.templates:
            if template.decode(item.get(template.attribute, MISSING)) is None:
                return False
        return all(
            values.values_equal(item.get(name, MISSING), value) for name, value in self.constants
        )

    def decode(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The item as a row of the entity: the table key's columns read back from the key,
        then every other attribute by its own name, less the attributes the definition owns
        (composed keys and constants)."""
        row: dict[str, Any] = {}
        for template in self.key.templates:
            row.update(template.decode(item.get(template.attribute, MISSING)) or {})
        owned = set(self.attributes)
        for name in self.columns:
            if name not in row and name in item:
                row[name] = item[name]
        for name in sorted(item):
            if name not in row and name not in owned:
                row[name] = item[name]
        return row

    def text(self) -> str:
        """The statement that declares it (SHOW CREATE ENTITY, schema files)."""
        parts = [a.text() for a in self.accesses]
        parts += [f"{column_text(n)} = {literal_text(v)}" for n, v in self.constants]
        body = ",\n  ".join(parts)
        return (
            f"CREATE ENTITY {column_text(self.name)} ON {column_text(self.table)} (\n  {body}\n);"
        )


# --- two entities that can hold the same item ----------------------------------------------------

_ANY = ("any",)  # one character of a column
_STAR = ("star",)  # the rest of a column: any text


def _flatten(template: Template, nonempty: bool) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for part in template.parts:
        if isinstance(part, Column):
            out.extend((_ANY, _STAR) if nonempty else (_STAR,))
        else:
            out.extend(("lit", ch) for ch in part)
    return out


def common_value(a: Template, b: Template) -> str | None:
    """A value both templates can compose, or None when none exists. Columns are any text
    (the witness shown gives each column at least one character when it can: ``x``). A number
    or binary key (one column alone) matches any value of its type."""
    if a.key_type != "S":  # one attribute of one table: both are one column of its type
        return "…"
    for nonempty in (True, False):
        found = _common(_flatten(a, nonempty), _flatten(b, nonempty))
        if found is not None:
            return found
    return None


def _common(p: list[tuple[str, ...]], q: list[tuple[str, ...]]) -> str | None:
    """A breadth-first walk over positions in both flattened templates."""
    seen: dict[tuple[int, int], str] = {(0, 0): ""}
    queue = [(0, 0)]
    while queue:
        i, j = queue.pop(0)
        text = seen[(i, j)]
        if i == len(p) and j == len(q):
            return text
        x = p[i] if i < len(p) else None
        y = q[j] if j < len(q) else None
        moves: list[tuple[int, int, str]] = []
        if x is _STAR:
            moves.append((i + 1, j, ""))  # the column ends here
        if y is _STAR:
            moves.append((i, j + 1, ""))
        if x is not None and y is not None:
            one = {_ANY, _STAR}
            if x[0] == "lit" and y[0] == "lit":
                if x == y:
                    moves.append((i + 1, j + 1, x[1]))
            elif x[0] == "lit":  # b's column takes a's character
                moves.append((i + 1, j + (y is _ANY), x[1]))
            elif y[0] == "lit":
                moves.append((i + (x is _ANY), j + 1, y[1]))
            elif x in one and y in one:
                moves.append((i + (x is _ANY), j + (y is _ANY), "x"))
        for ni, nj, ch in moves:
            if (ni, nj) not in seen:
                seen[(ni, nj)] = text + ch
                queue.append((ni, nj))
    return None


def collision(a: Entity, b: Entity) -> str | None:
    """Why an item of `b` could be read as one of `a` (both key templates can compose the same
    key and no constant tells them apart), or None."""
    if a.table != b.table:
        return None
    common = []
    for ta, tb in zip(a.key.templates, b.key.templates, strict=True):
        value = common_value(ta, tb)
        if value is None:
            return None
        common.append(f"{ta.attribute} = {literal_text(value)}")
    mine = dict(a.constants)
    for name, value in b.constants:
        if name in mine and not values.values_equal(mine[name], value):
            return None
    return (
        f"{a.name} and {b.name} can hold the same item ({', '.join(common)}): reads of either "
        "would take the other's items as their own; tell them apart with a constant "
        f"(e.g. kind = {literal_text(a.name)} and kind = {literal_text(b.name)}) or distinct "
        "key prefixes"
    )


def collisions(entity: Entity, others: Iterable[Entity]) -> list[str]:
    return [why for other in others if (why := collision(entity, other)) is not None]
