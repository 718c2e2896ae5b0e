"""Our own typed statements: what the planner reads, free of sqlglot's tree.

Paths are tuples of attribute names (str) and list indexes (int): ``a.b[2].c`` is
``("a", "b", 2, "c")``. Every node keeps its source position for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Pos:
    """1-based line and column in the script the statement came from."""

    line: int = 1
    col: int = 1


NOWHERE = Pos(0, 0)


@dataclass(frozen=True)
class Path:
    elements: tuple[str | int, ...]
    text: str  # as written, used as the column name
    pos: Pos = field(default=NOWHERE, compare=False)

    @property
    def root(self) -> str:
        return self.elements[0]  # type: ignore[return-value]

    @property
    def is_attribute(self) -> bool:
        """A top-level attribute (no nesting): the only kind that can be a key."""
        return len(self.elements) == 1


@dataclass(frozen=True)
class Literal:
    value: Any  # a decoded DynamoDB value (see dynosql.values)
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Param:
    name: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Size:
    """``size(path)``."""

    path: Path
    pos: Pos = field(default=NOWHERE, compare=False)


Value = Literal | Param
Operand = Path | Literal | Param | Size


# --- conditions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compare:
    op: str  # one of = <> < <= > >=
    left: Operand
    right: Operand
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Between:
    operand: Operand
    low: Operand
    high: Operand
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class In:
    operand: Operand
    values: tuple[Operand, ...]
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Function:
    """``begins_with``, ``contains``, ``attribute_exists``, ``attribute_not_exists``,
    ``attribute_type``: DynamoDB's condition functions, same names and arguments."""

    name: str
    path: Path
    arg: Operand | None = None
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Like:
    """A LIKE that is not a plain prefix (those become begins_with): evaluated client-side."""

    path: Path
    pattern: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class IsNull:
    """``p IS NULL``: the attribute holds the NULL type (a missing attribute is not NULL)."""

    path: Path
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class And:
    items: tuple[Condition, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Condition, ...]


@dataclass(frozen=True)
class Not:
    item: Condition


Condition = Compare | Between | In | Function | Like | IsNull | And | Or | Not


# --- select ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Aggregate:
    """``COUNT(*)`` (path None), ``COUNT([DISTINCT] p)``, ``SUM/AVG/MIN/MAX(p)``."""

    func: str  # COUNT SUM AVG MIN MAX
    path: Path | None
    distinct: bool = False
    text: str = ""
    pos: Pos = field(default=NOWHERE, compare=False)


Expr = Path | Aggregate


@dataclass(frozen=True)
class SelectItem:
    expr: Expr
    alias: str | None = None

    @property
    def name(self) -> str:
        """The output column's name: the alias, else the attribute's own name (``"a.b"`` is
        the attribute a.b, no quotes), else the expression as written."""
        if self.alias:
            return self.alias
        if isinstance(self.expr, Path) and self.expr.is_attribute:
            return str(self.expr.root)
        return self.expr.text


@dataclass(frozen=True)
class OrderItem:
    expr: Expr
    desc: bool = False


@dataclass(frozen=True)
class Select:
    table: str
    index: str | None
    items: tuple[SelectItem, ...] | None  # None means SELECT *
    where: Condition | None = None
    distinct: bool = False
    group_by: tuple[Path, ...] = ()
    having: Any = None  # a Condition over output columns / aggregates
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None  # a Param until bound
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)

    @property
    def aggregates(self) -> tuple[Aggregate, ...]:
        found: list[Aggregate] = []
        for item in self.items or ():
            if isinstance(item.expr, Aggregate):
                found.append(item.expr)
        for order in self.order_by:
            if isinstance(order.expr, Aggregate):
                found.append(order.expr)
        return tuple(found)

    @property
    def is_aggregate(self) -> bool:
        return bool(self.group_by) or bool(self.aggregates)


@dataclass(frozen=True)
class Explain:
    statement: Select
    analyze: bool = False


@dataclass(frozen=True)
class ShowTables:
    pass


@dataclass(frozen=True)
class Describe:
    table: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ShowHotKeys:
    table: str
    index: str | None = None
    limit: int | None = None  # a Param until bound
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class SetOption:
    """``SET name = value``: a session setting (segments, consistent, format, ...)."""

    name: str
    value: str
    pos: Pos = field(default=NOWHERE, compare=False)


Statement = Select | Explain | ShowTables | Describe | ShowHotKeys | SetOption
