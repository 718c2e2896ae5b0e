"""Our own typed statements: what the planner reads, free of sqlglot's tree.

Paths are tuples of attribute names (str) and list indexes (int): ``a.b[2].c`` is
``("a", "b", 2, "c")``. Every node keeps its source position for error messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from dynosql import values
from dynosql.position import NOWHERE as NOWHERE
from dynosql.position import Pos as Pos
from dynosql.sql.keywords import ITEM_MEASURES

if TYPE_CHECKING:
    from dataclasses import dataclass

    from dynosql.entity_model import Entity
else:

    def dataclass(**options: Any) -> Callable[[type], type]:
        """``dataclasses.dataclass(frozen=True)`` whose ``__eq__``, ``__hash__`` and
        ``__repr__`` are made on a class's first call of each rather than at import.

        Python 3.11's dataclasses compiles each generated method on its own, six per frozen
        class: for the ~50 classes here, the largest part of what importing dynosql costs a
        ``dynosql -e`` (this module loaded in 37 ms of CPU on the busy test machine, 23 ms
        with three of the six deferred), mostly for methods a run never calls. The deferred
        three are dataclasses' own, generated for the class by ``make_dataclass`` from its
        fields' compare/hash/repr flags when first needed, so they behave (and run) exactly
        as before; type checkers see the plain decorator."""
        if options != {"frozen": True}:
            return dataclasses.dataclass(**options)
        return _frozen_deferred


_C = TypeVar("_C", bound=type)
_DEFERRED = ("__eq__", "__hash__", "__repr__")


def _frozen_deferred(cls: _C) -> _C:
    dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)  # changes cls itself
    for name in _DEFERRED:
        setattr(cls, name, _deferred(name))
    return cls


def _deferred(name: str) -> Callable[..., Any]:
    def first_call(self: Any, *args: Any) -> Any:
        _make_methods(type(self))
        return getattr(type(self), name)(self, *args)

    first_call.__name__ = name
    return first_call


def _make_methods(cls: type) -> None:
    """Install ``@dataclass(frozen=True)``'s ``__eq__``, ``__hash__`` and ``__repr__`` on
    `cls`: made by dataclasses itself for a twin with the same fields and flags (they never
    name their class: ``other.__class__ is self.__class__``, ``self.__class__.__qualname__``)."""
    spec = [
        (f.name, Any, field(repr=f.repr, hash=f.hash, compare=f.compare))
        for f in dataclasses.fields(cls)
    ]
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    for name in _DEFERRED:
        setattr(cls, name, twin.__dict__[name])


MAX_LIMIT = 2**31 - 1  # DynamoDB's Limit is a 32-bit integer (bind checks it too)


class Statement:
    """Every statement class: ``class Undo(Statement, kind="undo")`` names the module of
    ``dynosql/statements/`` whose ``KINDS`` runs it (imported on the first statement of the
    class a session runs); a class defined in that package is run by its own module's."""

    kind_module: ClassVar[str] = ""
    # ``table_only=True``: a statement about a table itself, which an entity's name cannot
    # stand for (SHOW HOT KEYS FROM invoice is refused, naming invoice's table; see
    # statements/entity_resolve.py); its `table` names the table
    table_only: ClassVar[bool] = False

    def __init_subclass__(cls, kind: str = "", table_only: bool = False, **options: Any) -> None:
        super().__init_subclass__(**options)
        cls.kind_module = f"dynosql.statements.{kind}" if kind else cls.__module__
        cls.table_only = table_only


@dataclass(frozen=True)
class Path:
    elements: tuple[str | int, ...]
    text: str  # as written, used as the column name
    pos: Pos = field(default=NOWHERE, compare=False)
    quoted: bool = field(default=False, compare=False)  # one "double-quoted" name (hints)

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
    """``:name``, or a ``?``: the n-th ``?`` of a statement is named ``n`` (positional)."""

    name: str
    pos: Pos = field(default=NOWHERE, compare=False)

    @property
    def positional(self) -> bool:
        """A ``?`` (a ``:name`` never starts with a digit)."""
        return self.name.isdigit()


@dataclass(frozen=True)
class Collection:
    """A list, map or set written in a write statement that holds a :parameter somewhere
    (``[:a, 1]``, ``{'k': :b}``, ``{:x, :y}``): its value is known only when the statement is
    bound (dynosql/sql/bind.py), which turns it into a Literal. A collection of plain literals
    is a Literal from the start."""

    kind: str  # "L" (a list), "M" (a map) or "set" (its type comes from the bound elements)
    items: tuple[Any, ...]  # Literal | Param | Collection, in the order written
    keys: tuple[str, ...] = ()  # a map's keys, one per item
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Size:
    """``size(path)``."""

    path: Path
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Scalar:
    """A scalar expression DynamoDB never evaluates, computed client-side
    (dynosql/evaluate/scalar.py): arithmetic (`func` ``+ - * / %``, ``NEG``), ``||``,
    ``CONCAT``, ``ROUND``, ``SUBSTR``, ``DATE_TRUNC``, ``CAST_NUMBER``, ... over operands,
    other scalars and (in the select list, HAVING and ORDER BY of an aggregate) aggregates.
    Two scalars are equal when they compute the same thing (``GROUP BY substr(a, 1, 2)``
    matches ``SELECT SUBSTR(a, 1, 2)``): the text and the name as typed do not count."""

    func: str
    args: tuple[Any, ...]
    text: str = field(default="", compare=False)  # the SQL as written: the column's name
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Case:
    """``CASE WHEN c THEN v … [ELSE d] END`` (the simple form ``CASE x WHEN v …`` becomes
    ``WHEN x = v``): the first branch whose condition holds, else `default` (NULL)."""

    whens: tuple[tuple[Any, Any], ...]  # (Condition, operand)
    default: Any
    text: str = field(default="", compare=False)
    pos: Pos = field(default=NOWHERE, compare=False)


Value = Literal | Param | Collection  # a Collection only in writes
Operand = Path | Literal | Param | Size | Scalar | Case


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
class LikeParam:
    """``subject LIKE pattern [ESCAPE e]`` whose pattern or escape holds a :parameter
    (``SK LIKE :p``; SQLAlchemy's ``startswith`` is ``SK LIKE :p || '%'``). What it means is
    known only from the bound value: binding (dynosql/sql/bind.py) makes it the condition the
    same pattern written as a literal gives (dynosql/sql/like.py), so the plan is chosen from
    the value, not from the parameter's shape. Never seen by the planner."""

    subject: Any  # Path, or an expression checked client-side
    parts: tuple[Any, ...]  # Literal | Param, concatenated: the pattern
    escape: Any = None  # Literal | Param | None
    pos: Pos = field(default=NOWHERE, compare=False)
    at: Pos = field(default=NOWHERE, compare=False)  # the pattern's position


@dataclass(frozen=True)
class IsDistinct:
    """``left IS [NOT] DISTINCT FROM right`` holding a :parameter: which conditions it is
    depends on the bound value (dynosql/sql/distinct.py), so binding lowers it. Never seen by
    the planner."""

    left: Any
    right: Any
    distinct: bool  # IS DISTINCT FROM; False: IS NOT DISTINCT FROM
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


Condition = (
    Compare | Between | In | Function | Like | LikeParam | IsDistinct | IsNull | And | Or | Not
)


# --- select ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Aggregate:
    """``COUNT(*)`` (path None), ``COUNT([DISTINCT] p)``, ``SUM/AVG/MIN/MAX(p)``."""

    func: str  # COUNT SUM AVG MIN MAX
    path: Path | None
    distinct: bool = False
    text: str = ""  # canonical (upper-case name): one computation per distinct aggregate
    pos: Pos = field(default=NOWHERE, compare=False)
    written: str = field(default="", compare=False)  # the column name: as the user wrote it
    # an expression argument (``SUM(price * qty)``): then `path` is None, and this is no
    # COUNT(*) (`counts_items` says which)
    arg: Any = None

    @property
    def counts_items(self) -> bool:
        """``COUNT(*)``: every item counts, whatever it holds."""
        return self.path is None and self.arg is None


@dataclass(frozen=True)
class AllColumns:
    """``o.*`` in the select list of a join: every column of the source named ``o`` (its
    entity's columns, or the whole item of a table). A join's ``SELECT *`` is one per source,
    each column named ``alias.column`` (`prefix`) so that two sources' columns never clash."""

    alias: str
    prefix: str = ""  # the output columns' names begin with it
    pos: Pos = field(default=NOWHERE, compare=False)
    # attributes the source's row holds but ``o.*`` leaves out: an entity's composed keys and
    # constants (named, ``o.pk``, they are read as in a SELECT of the entity alone)
    omit: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        return f"{self.alias}.*"


Expr = Path | Aggregate | Scalar | Case | AllColumns


def aggregates_in(node: Any) -> list[Aggregate]:
    """Every aggregate in an expression or condition, in order (``ROUND(AVG(t), 2)``)."""
    if isinstance(node, Aggregate):
        return [node]
    if isinstance(node, tuple):
        return [a for x in node for a in aggregates_in(x)]
    if isinstance(node, Scalar | Case | Compare | Between | In | And | Or | Not | Function):
        return [a for name in field_names(type(node)) for a in aggregates_in(getattr(node, name))]
    return []


def item_measures(node: Any) -> list[Scalar]:
    """Every ``ITEM_SIZE()``, ``ITEM_RCU()``, ``ITEM_WCU()`` in a statement or expression:
    each sizes the whole item as stored, so a plan that holds one must read whole items."""
    found: list[Scalar] = []

    def visit(n: Any) -> Any:
        if isinstance(n, Scalar) and n.func in ITEM_MEASURES:
            found.append(n)
            return n  # nothing inside to look at
        return None

    rewrite(node, visit)
    return found


def key_of(expr: Any) -> Any:
    """A hashable identity of an expression, for grouping: a path is its elements (as
    before expressions), anything else what it computes."""
    if isinstance(expr, Path):
        return expr.elements
    return ("expr", _canonical(expr))


def _canonical(node: Any) -> Any:
    if isinstance(node, Path):
        return ("path", node.elements)
    if isinstance(node, Literal):
        return ("lit", values.type_of(node.value), values.hashable(node.value))
    if isinstance(node, Scalar):
        return (node.func, tuple(_canonical(a) for a in node.args))
    if isinstance(node, Case):
        whens = tuple((repr(c), _canonical(v)) for c, v in node.whens)
        return ("CASE", whens, _canonical(node.default))
    if isinstance(node, Aggregate):
        return ("agg", node.text)
    if isinstance(node, Size):
        return ("size", node.path.elements)
    return ("other", repr(node))


@dataclass(frozen=True)
class Sample:
    """``TABLESAMPLE (p PERCENT) [REPEATABLE (seed)]`` or ``SHOW HOT KEYS … SAMPLE p PERCENT``:
    read a seeded random p% of the parallel-Scan segments (see dynosql/plan/sample.py)."""

    percent: Any  # Decimal in (0, 100]
    seed: int | None = None  # None until the session draws one (shown by EXPLAIN)
    pos: Pos = field(default=NOWHERE, compare=False)


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
        if isinstance(self.expr, Aggregate) and self.expr.written:
            return self.expr.written
        if isinstance(self.expr, Path) and self.expr.is_attribute:
            return str(self.expr.root)
        return self.expr.text


@dataclass(frozen=True)
class OrderItem:
    expr: Expr
    desc: bool = False
    nulls: str | None = None  # "FIRST" or "LAST": where missing values and NULLs go


@dataclass(frozen=True)
class Join:
    """``[INNER | LEFT [OUTER]] JOIN source [[AS] alias] ON condition``: one more source of a
    SELECT, joined to the sources before it (dynosql/plan/join.py decides how it is read)."""

    table: str
    index: str | None
    alias: str | None
    on: Condition
    left: bool = False  # LEFT JOIN: every row of the sources before it is kept
    pos: Pos = field(default=NOWHERE, compare=False)  # the JOIN keyword (LEFT, INNER)
    table_pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Select(Statement, kind="select"):
    table: str
    index: str | None
    items: tuple[SelectItem, ...] | None  # None means SELECT *
    where: Condition | None = None
    distinct: bool = False
    group_by: tuple[Any, ...] = ()  # paths and expressions (Scalar, Case)
    having: Any = None  # a Condition over output columns / aggregates
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None  # a Param until bound
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)
    sample: Sample | None = None  # TABLESAMPLE: a seeded sample of Scan segments
    export: str | None = None  # FROM EXPORT 's3://bucket/prefix/' (or an export ARN) AS t
    alias: str | None = field(default=None, compare=False)  # FROM drive d: d.PK is PK
    joins: tuple[Join, ...] = ()  # FROM a JOIN b ON …: the sources after the first

    @property
    def aggregates(self) -> tuple[Aggregate, ...]:
        """The aggregates of the select list and ORDER BY, inside expressions too."""
        found: list[Aggregate] = []
        for item in self.items or ():
            found.extend(aggregates_in(item.expr))
        for order in self.order_by:
            found.extend(aggregates_in(order.expr))
        return tuple(found)

    @property
    def is_aggregate(self) -> bool:
        return bool(self.group_by) or bool(self.aggregates)


@dataclass(frozen=True)
class SelectValues(Statement, kind="select_values"):
    """``SELECT expression, … [WHERE condition] [LIMIT n]`` without FROM: one row computed
    client-side from values alone (``SELECT 1 + 1``, ``SELECT CAST('5' AS INTEGER)``), no
    request; none when the WHERE does not hold (or LIMIT 0). Each column is a value, a
    parameter or an expression over them (dynosql/sql/tableless.py)."""

    items: tuple[SelectItem, ...]
    where: Condition | None = None
    limit: int | None = None  # a Param until bound
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Explain(Statement, kind="explain"):
    statement: Statement  # a Select, a write (or BEGIN/COMMIT/UNDO) or a table statement
    analyze: bool = False
    rate: Decimal | None = None  # EXPLAIN … AT <rate> PER SECOND: priced per month at that rate
    program: bool = False  # EXPLAIN (FORMAT PYTHON): the plan as a runnable boto3 program
    partiql: bool = False  # EXPLAIN (FORMAT PARTIQL): the PartiQL statements that do the same


# --- entities (dynosql/entities/, dynosql/statements/entity_defs.py) ----------------------------


@dataclass(frozen=True)
class CreateEntity(Statement, kind="entity_defs"):
    """``CREATE ENTITY name ON table (KEY (…), INDEX idx (…) [WHERE …]…, attr = constant…)``:
    `entity` is the definition as written, checked against the table when the statement
    runs; `source` is the statement as written."""

    entity: Entity
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)
    source: str = field(default="", compare=False)


@dataclass(frozen=True)
class DropEntity(Statement, kind="entity_defs"):
    name: str
    missing_ok: bool = False  # DROP ENTITY IF EXISTS
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ShowDeclaredEntities(Statement, kind="entity_defs"):
    """``SHOW ENTITIES`` without FROM: the entities this session declared."""


@dataclass(frozen=True)
class ShowCreateEntity(Statement, kind="entity_defs"):
    name: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class DescribeEntity(Statement, kind="entity_defs"):
    """``DESCRIBE ENTITY e`` (and ``DESCRIBE e`` where e names an entity)."""

    name: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class EntitySelect(Statement, kind="entity_select"):
    """A SELECT from an entity, resolved when it runs: `read` is the entity statement and the
    physical SELECT it compiles to (a ``dynosql.plan.entity_read.EntityRead``)."""

    read: Any


@dataclass(frozen=True)
class EntityWrite(Statement, kind="entity_write"):
    """An INSERT, UPDATE or DELETE of an entity, resolved when it runs: `write` is the entity
    statement and the physical write it runs as (a ``dynosql.entities.write.EntityWrite``)."""

    write: Any


@dataclass(frozen=True)
class JoinSelect(Statement, kind="join_select"):
    """A SELECT that joins sources, told apart when it is resolved: its kind plans it
    (``dynosql.plan.join``: how each source is read and how the rows meet)."""

    select: Select


def has_join(statement: Any) -> bool:
    """Whether a statement holds a SELECT with a JOIN (itself, an EXPLAIN's, an INSERT …
    SELECT's or a COPY (SELECT …) TO's): it is resolved before it runs."""
    if isinstance(statement, Explain):
        return has_join(statement.statement)
    if isinstance(statement, Insert):
        statement = statement.select
    elif isinstance(statement, CopyTo):
        statement = statement.query
    return isinstance(statement, Select) and bool(statement.joins)


# --- writes (issue 12) -------------------------------------------------------------------------


@dataclass(frozen=True)
class Arith:
    """``path + value`` / ``path - value`` on the right of SET (numbers; sets for + and -)."""

    op: str  # + or -
    left: Any  # Path | Literal | Param | IfNotExists
    right: Any
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class IfNotExists:
    """``if_not_exists(path, value)``: the attribute's value, or `value` when it is absent."""

    path: Path
    value: Any  # Literal | Param
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ListAppend:
    """``list_append(a, b)``: either side a path or a list value."""

    left: Any
    right: Any
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Assignment:
    """One change of an UPDATE. `action` is ``set`` (value holds the new value), ``add``
    (``tags = tags + {'x'}`` on a set, or a number added with ADD semantics), ``delete``
    (``tags = tags - {'x'}`` on a set) or ``remove`` (``REMOVE path``: the attribute is
    deleted, which is not the same as storing NULL)."""

    action: str
    path: Path
    value: Any = None
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ReturnColumn:
    """One column of ``RETURNING a, old.b AS was, m.x[0], …``: a path of the item after the
    write (DELETE: the item deleted), or with ``old.`` of the item before it. Named as a
    select-list column would be (its alias, else the path without ``old.``/``new.``)."""

    path: Path
    alias: str | None = None
    old: bool = False

    @property
    def name(self) -> str:
        return SelectItem(self.path, self.alias).name


@dataclass(frozen=True)
class Returning:
    """``RETURNING *`` (the item after the write), ``RETURNING old.*`` (before it), or a list
    of columns (`columns`: then `old` is unused, each column says which image it reads).
    PartiQL's ``RETURNING ALL NEW *`` / ``ALL OLD *`` are ``*`` / ``old.*``; its ``MODIFIED
    NEW *`` / ``MODIFIED OLD *`` (`modified`) keep only the attributes the UPDATE changed."""

    old: bool = False
    columns: tuple[ReturnColumn, ...] | None = None
    modified: bool = False


@dataclass(frozen=True)
class Insert(Statement, kind="write"):
    """``INSERT INTO t (cols) VALUES …`` (never overwrites: each row's key must be new) and
    ``UPSERT``/``REPLACE INTO`` (overwrites whole items). `select` is ``INSERT … SELECT``."""

    table: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]  # Literal | Param, one tuple per row
    replace: bool = False  # UPSERT / REPLACE
    ignore_existing: bool = False  # ON CONFLICT DO NOTHING
    select: Select | None = None
    returning: Returning | None = None
    verb: str = "INSERT"
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)
    source: str = field(default="", compare=False)  # as written (the journal's header)
    # INSERT INTO an entity: `prepare` composes each row's item (dynosql.entities.write), and
    # ON MISSING INDEX KEY SKIP writes a row that lacks an index's columns without its keys
    skip_missing_index_keys: bool = False
    prepare: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class Update(Statement, kind="write"):
    table: str
    assignments: tuple[Assignment, ...]
    where: Condition | None = None
    returning: Returning | None = None
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)
    source: str = field(default="", compare=False)  # as written (the journal's header)


@dataclass(frozen=True)
class Delete(Statement, kind="write"):
    table: str
    where: Condition | None = None
    returning: Returning | None = None
    pos: Pos = field(default=NOWHERE, compare=False)
    table_pos: Pos = field(default=NOWHERE, compare=False)
    source: str = field(default="", compare=False)  # as written (the journal's header)


@dataclass(frozen=True)
class ConditionCheck(Statement, kind="transaction"):
    """PartiQL's ``EXISTS(SELECT … FROM t WHERE <the full primary key> [AND …])``, between
    BEGIN and COMMIT: a TransactWriteItems ConditionCheck, so the transaction is cancelled,
    nothing written, unless the item exists and matches the rest of the WHERE."""

    select: Select
    pos: Pos = field(default=NOWHERE, compare=False)
    source: str = field(default="", compare=False)  # as written (the journal's header)

    @property
    def table(self) -> str:
        return self.select.table

    @property
    def where(self) -> Condition | None:
        return self.select.where


@dataclass(frozen=True)
class Transaction(Statement, kind="transaction"):
    """``BEGIN`` (start), ``COMMIT`` (send the writes as one TransactWriteItems) or
    ``ROLLBACK`` (discard them)."""

    action: str  # begin | commit | rollback
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class Undo(Statement, kind="undo"):
    """``UNDO 'journal file'`` or ``UNDO LAST`` (the newest journal of a write), with ``FORCE
    TARGET`` (undo on another endpoint/region than the journal's) and ``FORCE DAMAGED`` (undo
    what can be read of a journal with lines missing or edited)."""

    path: str
    pos: Pos = field(default=NOWHERE, compare=False)
    last: bool = False
    force_target: bool = False
    force_damaged: bool = False


# --- tables (DDL) and files (COPY): dynosql/plan/ddl.py, dynosql/statements/table.py, dynosql/statements/copy.py --------


@dataclass(frozen=True)
class Projection:
    """An index projection: ALL, KEYS_ONLY or INCLUDE (with its non-key attributes)."""

    kind: str = "ALL"
    include: tuple[str, ...] = ()


@dataclass(frozen=True)
class Throughput:
    """PROVISIONED (rcu, wcu)."""

    rcu: int
    wcu: int


@dataclass(frozen=True)
class IndexDef:
    """``WITH GSI|LSI name (hash [, range]) [PROJECTION …] [PROVISIONED (r, w)]``."""

    kind: str  # "gsi" or "lsi"
    name: str
    hash: str
    range: str | None = None
    projection: Projection = Projection()
    throughput: Throughput | None = None


@dataclass(frozen=True)
class CreateTable(Statement, kind="table"):
    """``CREATE TABLE t (a S, b N, PRIMARY KEY (a, b)) [BILLING …] [WITH GSI/LSI …] [TTL a]
    [DELETION PROTECTION]``: `attributes` are the declared (name, type) pairs."""

    table: str
    attributes: tuple[tuple[str, str], ...]
    hash: str
    range: str | None = None
    throughput: Throughput | None = None  # None: PAY_PER_REQUEST
    indexes: tuple[IndexDef, ...] = ()
    ttl: str | None = None
    deletion_protection: bool = False
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class CreateIndex(Statement, kind="table", table_only=True):
    """``CREATE INDEX name ON t (hash [type] [, range [type]]) [PROJECTION …] [PROVISIONED …]``:
    a GSI added with UpdateTable. A type is needed only for attributes the table has not
    declared."""

    table: str
    index: IndexDef
    types: tuple[tuple[str, str], ...] = ()
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class DropIndex(Statement, kind="table", table_only=True):
    table: str
    index: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class AlterTable(Statement, kind="table", table_only=True):
    """``ALTER TABLE t SET BILLING …`` | ``SET TTL a`` | ``SET TTL OFF`` |
    ``SET DELETION PROTECTION ON|OFF``: exactly one of the fields is set."""

    table: str
    billing: Throughput | str | None = None  # "PAY_PER_REQUEST" or a Throughput
    ttl: str | None = None  # an attribute name
    ttl_off: bool = False
    deletion_protection: bool | None = None
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class SetPointInTimeRecovery(Statement, kind="backups", table_only=True):
    """``ALTER TABLE t SET POINT IN TIME RECOVERY ON|OFF`` (UpdateContinuousBackups)."""

    table: str
    enabled: bool
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class DropTable(Statement, kind="table", table_only=True):
    table: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class ShowCreateTable(Statement, kind="table", table_only=True):
    table: str
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class CopyTo(Statement, kind="copy"):
    """``COPY t TO 'file'`` or ``COPY (SELECT …) TO 'file'`` [FORMAT f]."""

    path: str
    format: str  # jsonl, csv, json or dynamodb
    table: str | None = None
    query: Select | None = None
    pos: Pos = field(default=NOWHERE, compare=False)


@dataclass(frozen=True)
class CopyFrom(Statement, kind="copy"):
    """``COPY t FROM 'file' [FORMAT f] [START AT LINE n] [SKIP BAD ['side file']]``."""

    table: str
    path: str
    format: str  # jsonl, csv or dynamodb
    start_line: int = 1
    skip_bad: bool = False
    bad_path: str | None = None
    pos: Pos = field(default=NOWHERE, compare=False)
    # COPY an entity FROM a file: `table` is its table, `entity` the name written, and
    # `prepare` composes each line's item (dynosql.entities.write)
    entity: str | None = None
    prepare: Any = field(default=None, compare=False)
    # items given rather than read from `path` (IMPORT MODEL: a model's TableData, `path` the
    # model file), and what continues a load of them that stopped
    items: Any = field(default=None, compare=False)
    again: str = ""


Ddl = CreateTable | CreateIndex | DropIndex | AlterTable | DropTable

Write = Insert | Update | Delete


def rewrite(
    node: Any,
    replace: Callable[[Any], Any],
    finish: Callable[[Any], Any] | None = None,
) -> Any:
    """`node` with every sub-node for which `replace` gives something other than None replaced
    by it (statements are frozen: changed nodes are rebuilt, unchanged ones kept). `finish`, if
    given, sees each rebuilt dataclass after its fields. One walker for binding parameters and
    for resolving table-qualified columns."""
    new = replace(node)
    if new is not None:
        return new
    if isinstance(node, Literal):  # a value holds no statement nodes (VALUES: 10,000s of them)
        return finish(node) if finish is not None else node
    if isinstance(node, tuple):
        items = tuple(rewrite(x, replace, finish) for x in node)
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    names = field_names(type(node))
    if names and not isinstance(node, Pos):
        changes = {}
        for name in names:
            current = getattr(node, name)
            if current is None or isinstance(current, Pos | str):
                continue
            changed = rewrite(current, replace, finish)
            if changed is not current:
                changes[name] = changed
        rebuilt = dataclasses.replace(node, **changes) if changes else node
        return finish(rebuilt) if finish is not None else rebuilt
    return node


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a dataclass type, () for any other type (worked out once per type:
    walking a statement asks for every node)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields)
    return names
