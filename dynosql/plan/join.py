"""A SELECT that joins sources, planned: how each source is read and how the rows meet. Pure.

A join is read in one of two ways, and no other:

- an *item collection*: entities (or a table joined to itself) whose partition-key templates
  coincide on one table or index, joined ON those templates' columns, live under one
  partition key: the single-table design's pre-joined item collection. They are read together,
  by ONE Query on the partition key (one per key for an IN; one Scan when the WHERE fixes
  none), its sort key condition the narrowest range that covers every member's own (none when
  one member has none); the items are split by each member's membership and conditions
  (`Side.predicate`), and joined in the client;
- a *lookup*: a source whose key the ON gives from the rows before it is read by key, for
  the distinct keys of those rows: BatchGetItem when the ON (with the source's own conditions)
  gives its whole table key, 100 keys a call and several calls side by side; one Query per key
  when it gives a partition key (the table's, or an index's that holds every item of the
  source).

Any other join is refused in one line that says which of the two forms would serve. The
sources are joined left to right (an item collection's members first); a join of two sources
without LEFT may be read the other way round when only that way is a lookup.

Conditions go where they are exact: a WHERE condition on one source is that source's own (not
on a LEFT JOINed source, whose missing row the WHERE must see); the ON's conditions on the
joined source alone are its own too; its equalities with the rows before it are the join's
keys, and the rest of ON is checked on each pair. An equality that fixes a column (``o.orderId
= '12345'``) is carried across the ON's equalities to the sources that must share the value,
so that ``s`` is read by its partition key too. Whatever joins several sources is checked on
the joined rows.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.entity_model import Template, TemplateError
from dynosql.errors import PlanError
from dynosql.evaluate.join import hashed
from dynosql.evaluate.predicate import operand_value
from dynosql.plan import keys as K
from dynosql.plan.entity_read import EntityRead, rewrite_select
from dynosql.plan.join_sources import Keys, Source, aliases_in, unqualified
from dynosql.plan.model import Estimate, Plan
from dynosql.plan.planner import Options, plan_gets, plan_select
from dynosql.sql import ast
from dynosql.sql.text import sql_text
from dynosql.values import MISSING

FIRST_CHUNK_KEYS = 100  # a lookup's first keys: one BatchGetItem, the first rows soon
MAX_CHUNK_KEYS = 1000  # then doubling up to ten calls (or 1,000 Queries) sent side by side


# --- what is read, and how rows meet ----------------------------------------------------------


@dataclass
class Side:
    """One source as it is read: its own conditions, rewritten for its table (an entity's
    through its templates), as the physical SELECT * whose WHERE an item must pass to be one
    of the source's rows (`predicate`: membership and the source's own conditions)."""

    source: Source
    conditions: list[ast.Condition]  # its own, qualified
    physical: ast.Select
    read: EntityRead | None = None

    @property
    def predicate(self) -> ast.Condition | None:
        return self.physical.where

    @property
    def alias(self) -> str:
        return self.source.alias


@dataclass(frozen=True)
class Match:
    """How the rows of one source meet the rows before it: ``alias.column = operand`` for each
    of `keys` (the operand over the rows before it), then `residual` on the joined pair."""

    alias: str
    keys: tuple[tuple[str, Any], ...]
    residual: ast.Condition | None = None
    left: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(column for column, _operand in self.keys)

    def text(self) -> str:
        parts = [f"{self.alias}.{c} = {sql_text(o, nested=True)}" for c, o in self.keys]
        if self.residual is not None:
            parts.append(sql_text(self.residual, nested=True))
        return " AND ".join(parts) or "every pair"

    def key(self, row: dict[str, Any]) -> tuple[Any, ...] | None:
        """The values a joined row gives the keys (None when one is missing: no match)."""
        found = tuple(operand_value(operand, row) for _column, operand in self.keys)
        return None if any(v is MISSING for v in found) else found

    def own_key(self, side_row: dict[str, Any]) -> tuple[Any, ...] | None:
        """The same values from a row of the source itself."""
        found = tuple(side_row.get(column, MISSING) for column in self.columns)
        return None if any(v is MISSING for v in found) else found


@dataclass
class Read:
    """The first read: one source, or an item collection (several sides, one plan)."""

    sides: list[Side]
    plan: Plan
    matches: list[Match] = field(default_factory=list)  # how sides[1:] meet the rows before
    keys: Keys | None = None  # a collection's partition: the access path its members share
    cover: str = ""  # how the collection's sort key range was chosen

    @property
    def collection(self) -> bool:
        return len(self.sides) > 1


@dataclass
class Lookup:
    """A source read by key for the distinct keys of the rows before it."""

    side: Side
    match: Match
    keys: Keys  # the access path read by key
    full: bool  # its whole table key: BatchGetItem; else one Query per partition key
    fixed: dict[str, Any]  # key columns its own conditions fix to one value
    options: Options
    sample: Plan  # the plan of one key (EXPLAIN shows its request)
    expected_keys: int  # at most: the rows before it, as estimated
    estimate: Estimate  # for every expected key

    @property
    def requests(self) -> int:
        n = self.expected_keys
        return math.ceil(n / 100) if self.full else n * max(1, len(self.sample.requests))

    @property
    def strategy(self) -> str:
        table = self.side.source.table.name
        if self.full:
            return f"BatchGetItem {table}, 100 keys a call"
        target = table if self.keys.index is None else f"{table}.{self.keys.index}"
        return f"one Query {target} per key"

    def plan(self, keys: list[tuple[Any, ...]]) -> Plan:
        """The reads of these distinct keys (values in `match.columns` order)."""
        rows = [{**self.fixed, **dict(zip(self.match.columns, k, strict=True))} for k in keys]
        return _lookup_plan(self.side, self.keys, self.full, self.options, rows)


def _lookup_plan(
    side: Side, keys: Keys, full: bool, options: Options, rows: list[dict[str, Any]]
) -> Plan:
    """The reads of the keys these rows of column values compose: BatchGetItem of the whole
    keys, or one Query per partition key (with the sort key's known leading columns)."""
    table = side.source.table
    if full:
        found: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in rows:
            key = _composed(keys, row)
            if key is not None:
                found.setdefault(hashed(tuple(key.values())), key)
        return plan_gets(table, list(found.values()), options.consistent, side.predicate)
    branches: dict[str, ast.Condition] = {}
    for row in rows:
        branch = _partition_branch(keys, row)
        if branch is not None:
            branches.setdefault(sql_text(branch), branch)
    if not branches:
        return plan_gets(table, [], options.consistent)
    chosen = list(branches.values())
    keyed = chosen[0] if len(chosen) == 1 else ast.Or(tuple(chosen))
    extra = [*K.conjuncts(side.predicate), *_index_present(side, keys)]
    physical = ast.Select(
        table=table.name, index=keys.index, items=None, where=K.all_of([keyed, *extra])
    )
    return plan_select(physical, table, options)


@dataclass
class JoinPlan:
    """A join's plan: the first read, the lookups in order, what is checked on the joined
    rows, and the statement (its names qualified) whose select list, grouping, order and
    LIMIT shape the joined rows into the result."""

    statement: ast.Select
    sources: list[Source]
    first: Read
    lookups: list[Lookup]
    where: ast.Condition | None
    hints: list[str] = field(default_factory=list)

    @property
    def estimate(self) -> Estimate:
        first = self.first.plan.estimate
        rcu = first.rcu + sum((x.estimate.rcu for x in self.lookups), Decimal(0))
        items = first.items + sum(x.estimate.items for x in self.lookups)
        return Estimate(items, rcu, known=first.known)

    @property
    def requests(self) -> int:
        """Requests expected, the lookups' for as many keys as there are rows before them."""
        return len(self.first.plan.requests) + sum(x.requests for x in self.lookups)

    @property
    def columns(self) -> list[str]:
        """The result's columns: the select list's, and for ``o.*`` the columns known
        without reading (more may follow, open)."""
        by_alias = {s.alias: s for s in self.sources}
        out: list[str] = []
        for item in self.statement.items or ():
            if isinstance(item.expr, ast.AllColumns):
                source = by_alias[item.expr.alias]
                known = source.entity.columns if source.entity else source.table.keys.names
                out.extend(item.expr.prefix + c for c in known)
            else:
                out.append(item.name)
        return out

    @property
    def open_columns(self) -> bool:
        return any(isinstance(i.expr, ast.AllColumns) for i in self.statement.items or ())


# --- planning ----------------------------------------------------------------------------------


def plan_join(statement: ast.Select, sources: list[Source], options: Options) -> JoinPlan:
    """The plan of a join whose names are qualified (`join_sources.qualify`) and whose
    parameters are bound: the sources in their order, read as an item collection where they
    form one, else by lookups; where that first read would be a Scan, the lookups are tried
    instead, and an inner join of two the other way round, for a plan without a Scan (a Scan
    where a key serves is a bug). Refused when no way is a join of the two forms."""
    _refuse_what_joins_cannot(statement)
    orders = [sources]
    if len(sources) == 2 and not sources[1].left:  # inner: either may be read first
        orders.append(
            [
                dataclasses.replace(sources[1], on=None),
                dataclasses.replace(sources[0], on=sources[1].on),
            ]
        )
    refused: _NoForm | None = None
    scanning: list[JoinPlan] = []
    for order in orders:
        for collection in (True, False):
            try:
                join = _plan(statement, order, options, collection)
            except _NoForm as no:
                refused = refused or no
                continue
            if not join.first.plan.is_scan:
                return join
            scanning.append(join)
            if not join.first.collection:
                break  # without a collection the lookups are the same plan
    if scanning:
        return scanning[0]  # an item collection's one Scan, else the first way that scans
    assert refused is not None
    raise refused.error


class _NoForm(Exception):
    def __init__(self, error: PlanError):
        self.error = error


def _refuse_what_joins_cannot(statement: ast.Select) -> None:
    if statement.export is not None:
        raise PlanError("FROM EXPORT reads one table's export: it is not supported in a join")
    measures = ast.item_measures(statement)
    if measures:
        pos = measures[0].pos
        raise PlanError(
            f"{measures[0].func}() sizes one table's items: a join's rows are made of several",
            pos.line or None,
            pos.col or None,
        )


def _plan(
    statement: ast.Select, sources: list[Source], options: Options, collection: bool
) -> JoinPlan:
    conditions = _distribute(statement, sources)
    _carry_fixed(sources, conditions)
    matches = {s.alias: _match(s, conditions.on[s.alias]) for s in sources[1:]}
    members, keys = _collection(sources, matches) if collection else ([sources[0]], None)
    hints: list[str] = []
    if len(members) > 1:
        assert keys is not None
        first = _collection_read(members, keys, conditions, matches, options)
    else:
        side = _side(sources[0], conditions.own[sources[0].alias], index=sources[0].index)
        first = Read([side], plan_select(side.physical, side.source.table, options))
    for side in first.sides:
        hints.extend(h for h in (side.read.hints if side.read else ()) if h not in hints)
    rows = first.plan.estimate.items
    lookups = []
    for source in sources[len(members) :]:
        lookup = _lookup(source, conditions, matches[source.alias], rows, options, sources)
        lookups.append(lookup)
        rows = lookup.estimate.items if not lookup.full else rows
    return JoinPlan(statement, sources, first, lookups, K.and_of(conditions.after), hints)


# --- where each condition goes ---------------------------------------------------------------


@dataclass
class _Conditions:
    own: dict[str, list[ast.Condition]]  # alias -> its own conditions
    on: dict[str, list[ast.Condition]]  # alias -> its join's conditions on the rows before it
    after: list[ast.Condition]  # checked on the joined rows


def _distribute(statement: ast.Select, sources: list[Source]) -> _Conditions:
    order = {s.alias: i for i, s in enumerate(sources)}
    by_alias = {s.alias: s for s in sources}
    c = _Conditions({s.alias: [] for s in sources}, {s.alias: [] for s in sources}, [])
    where = K.conjuncts(statement.where)
    for source in sources[1:]:
        for condition in K.conjuncts(source.on):
            named = aliases_in(condition)
            if named <= {source.alias}:
                c.own[source.alias].append(condition)
            elif source.alias in named or source.left:
                c.on[source.alias].append(condition)
            else:  # an inner join's ON about the rows before it: as good as the WHERE
                where.append(condition)
    for condition in where:
        named = aliases_in(condition)
        if not named:  # nothing of any source (NOW() > …): checked on the joined rows
            c.after.append(condition)
            continue
        latest = max(named, key=order.__getitem__)
        if len(named) == 1 and not by_alias[latest].left:
            c.own[latest].append(condition)
        elif len(named) > 1 and not by_alias[latest].left and order[latest] > 0:
            c.on[latest].append(condition)  # an inner join: its ON and the WHERE are one
        else:
            c.after.append(condition)
    return c


def _column_of(node: Any, alias: str | None = None) -> tuple[str, str] | None:
    """(alias, column) of a qualified top-level column path (``s.orderId``)."""
    if (
        isinstance(node, ast.Path)
        and len(node.elements) == 2
        and isinstance(node.elements[1], str)
        and (alias is None or node.root == alias)
    ):
        return str(node.root), node.elements[1]
    return None


def _pairs(conditions: _Conditions, alias: str) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The ON's equalities between a column of `alias` and a column of another source."""
    out = []
    for c in conditions.on[alias]:
        if isinstance(c, ast.Compare) and c.op == "=":
            a, b = _column_of(c.left), _column_of(c.right)
            if a is not None and b is not None and a[0] != b[0] and alias in (a[0], b[0]):
                out.append((a, b) if a[0] == alias else (b, a))
    return out


def _fixing(condition: ast.Condition) -> tuple[tuple[str, str], list[Any]] | None:
    """``o.orderId = 'x'`` / ``o.orderId IN (…)``: the column and the values it allows."""
    if isinstance(condition, ast.Compare) and condition.op == "=":
        for path, value in ((condition.left, condition.right), (condition.right, condition.left)):
            column = _column_of(path)
            if column is not None and isinstance(value, ast.Literal):
                return column, [value.value]
    if isinstance(condition, ast.In):
        column = _column_of(condition.operand)
        if column is not None and all(isinstance(v, ast.Literal) for v in condition.values):
            return column, [v.value for v in condition.values if isinstance(v, ast.Literal)]
    return None


def _carry_fixed(sources: list[Source], conditions: _Conditions) -> None:
    """Carry each equality that fixes a column across the ON's equalities to the source that
    must share its value: from a source whose rows the result keeps only when they match (the
    first, an inner join's) to its partner; from an inner-joined source to the rows it
    joins, which are dropped when they do not match it."""
    keeps = {s.alias for s in sources if not s.left}
    moves = []
    for source in sources[1:]:
        for own, other in _pairs(conditions, source.alias):
            moves.append((other, own))  # the rows before -> the joined source
            if not source.left:
                moves.append((own, other))
    changed = True
    while changed:
        changed = False
        for (a, ca), (b, cb) in moves:
            if a not in keeps:
                continue
            present = {sql_text(x) for x in conditions.own[b]}
            for condition in list(conditions.own[a]):
                found = _fixing(condition)
                if found is None or found[0] != (a, ca):
                    continue
                path = ast.Path((b, cb), f"{b}.{cb}")
                values_ = [ast.Literal(v) for v in found[1]]
                carried: ast.Condition = (
                    ast.Compare("=", path, values_[0])
                    if len(values_) == 1
                    else ast.In(path, tuple(values_))
                )
                if sql_text(carried) not in present:
                    conditions.own[b].append(carried)
                    present.add(sql_text(carried))
                    changed = True


def _match(source: Source, on: list[ast.Condition]) -> Match:
    keys: list[tuple[str, Any]] = []
    rest: list[ast.Condition] = []
    for c in on:
        pair = None
        if isinstance(c, ast.Compare) and c.op == "=":
            for mine, other in ((c.left, c.right), (c.right, c.left)):
                column = _column_of(mine, source.alias)
                if (
                    column is not None
                    and not isinstance(other, ast.Literal | ast.Param)
                    and source.alias not in aliases_in(other)
                ):
                    pair = (column[1], other)
                    break
        if pair is not None and pair[0] not in dict(keys):
            keys.append(pair)
        else:
            rest.append(c)
    return Match(source.alias, tuple(keys), K.and_of(rest), source.left)


# --- one source's own read ---------------------------------------------------------------------


def _side(
    source: Source, conditions: list[ast.Condition], index: str | None = None, keyed: bool = False
) -> Side:
    """A source with its own conditions, as the physical SELECT * that reads them."""
    own = [unqualified(c, source.alias) for c in conditions]
    statement = ast.Select(
        table=source.name,
        index=index,
        items=None,
        where=K.and_of(own),
        pos=source.pos,
        table_pos=source.pos,
    )
    if source.entity is None:
        return Side(source, conditions, statement)
    read = rewrite_select(statement, source.entity, keyed=keyed)
    return Side(source, conditions, read.physical, read)


# --- item collections --------------------------------------------------------------------------


def _collection(
    sources: list[Source], matches: dict[str, Match]
) -> tuple[list[Source], Keys | None]:
    """The sources, from the first, that form one item collection, and the access path whose
    partition key they share (the table's first); the first source alone when none joins it."""
    members = [sources[0]]
    shared: Keys | None = None
    for source in sources[1:]:
        found = _joins_collection(source, members, matches[source.alias], shared)
        if found is None:
            break
        members.append(source)
        shared = found
    return members, shared


def _access(source: Source, index: str | None) -> Keys | None:
    """The source's exact access path `index` (None: the table's key), if it may read it."""
    if source.index is not None and source.index != index:
        return None  # FROM t.idx: the items of that index, read through it
    return next((k for k in source.keys() if k.index == index and k.exact), None)


def _joins_collection(
    source: Source, members: list[Source], match: Match, shared: Keys | None
) -> Keys | None:
    """The access path on which `source` joins the collection: its partition key template
    the same as a member's (literals, types, the columns in the same places), each column
    equated to that member's by the ON."""
    if source.table.name != members[0].table.name:
        return None
    paired = set()
    for column, operand in match.keys:
        other = _column_of(operand)
        if other is not None:
            paired.add((column, other))
    candidates = [k for k in source.keys() if k.exact]
    if shared is not None:
        candidates = [k for k in candidates if k.index == shared.index]
    for mine in sorted(candidates, key=lambda k: k.index is not None):
        accesses = [_access(m, mine.index) for m in members]
        if _access(source, mine.index) is None or any(a is None for a in accesses):
            continue
        for member, theirs in zip(members, accesses, strict=True):
            assert theirs is not None
            if _coincide(mine.pk, theirs.pk, source.alias, member.alias, paired):
                return mine
    return None


def _coincide(
    mine: Template,
    theirs: Template,
    alias: str,
    other: str,
    paired: set[tuple[str, tuple[str, str]]],
) -> bool:
    if mine.attribute != theirs.attribute or mine.key_type != theirs.key_type:
        return False
    if len(mine.parts) != len(theirs.parts):
        return False
    for a, b in zip(mine.parts, theirs.parts, strict=True):
        if isinstance(a, str) or isinstance(b, str):
            if a != b:
                return False
        elif (a.name, (other, b.name)) not in paired:
            return False
    return bool(mine.columns)


def _collection_read(
    members: list[Source],
    keys: Keys,
    conditions: _Conditions,
    matches: dict[str, Match],
    options: Options,
) -> Read:
    sides = [_side(m, conditions.own[m.alias], keyed=i > 0) for i, m in enumerate(members)]
    table = members[0].table
    path = table.base if keys.index is None else table.index(keys.index)
    pk, sk, sk_type = path.keys.pk, path.keys.sk, path.keys.sk_type or "S"
    where: list[ast.Condition] = []
    partition = _partition_values([s for s in sides if not s.source.left], pk)
    cover = ""
    if partition is not None:
        attr = ast.Path((pk,), pk)
        if len(partition) == 1:
            where.append(ast.Compare("=", attr, ast.Literal(partition[0])))
        else:
            where.append(ast.In(attr, tuple(ast.Literal(v) for v in partition)))
        if sk is not None:
            ranges = [_sort_range(s, sk, sk_type) for s in sides]
            covering = _cover([r for r in ranges if r is not _EMPTY])
            if covering is not None:
                where.append(_sort_condition(sk, covering))
                cover = (
                    f"{sql_text(where[-1])}: the narrowest sort key range that holds every "
                    f"member's ({', '.join(s.alias for s in sides)})"
                )
            else:
                cover = "no sort key condition: a member has none (the whole partition)"
    else:
        prefix = keys.pk.parts[0] if keys.pk.parts and isinstance(keys.pk.parts[0], str) else ""
        if prefix:
            where.append(ast.Function("begins_with", ast.Path((pk,), pk), ast.Literal(prefix)))
    physical = ast.Select(table=table.name, index=keys.index, items=None, where=K.and_of(where))
    plan = plan_select(physical, table, options)
    return Read(sides, plan, [matches[m.alias] for m in members[1:]], keys, cover)


def _partition_values(sides: list[Side], pk: str) -> list[Any] | None:
    """The partition key values the members' conditions fix (the first member that fixes
    them; the ON makes them the same for all)."""
    for side in sides:
        conjuncts = K.conjuncts(side.predicate)
        found, value, _c = K.equality_value(conjuncts, pk)
        if found:
            return [value]
        for c in conjuncts:
            listed = K.in_values(c, pk)
            if listed is not None:
                return list(listed)
    return None


class _Empty:
    pass


_EMPTY: Any = _Empty()  # a member whose conditions can match no sort key


def _sort_range(side: Side, sk: str, sk_type: str) -> K.SortKeyCondition | None | Any:
    """The tightest sort key condition of a member (None: unbounded; _EMPTY: none holds);
    an IN of sort keys (an IN of orders: ``sk IN ('ORDER#1', 'ORDER#2')``) is the range from
    the least to the greatest."""
    found = []
    try:
        for c in K.conjuncts(side.predicate):
            sc = K.sort_condition_of(c, sk, sk_type) or _listed_range(c, sk, sk_type)
            if sc is not None:
                found.append(sc)
        return K.tightest(found)
    except K.Empty:
        return _EMPTY


def _listed_range(c: ast.Condition, sk: str, sk_type: str) -> K.SortKeyCondition | None:
    listed = K.in_values(c, sk)
    if not listed or any(values.type_of(v) != sk_type for v in listed):
        return None
    low, high = min(listed, key=_key), max(listed, key=_key)
    return K.SortKeyCondition("BETWEEN", (low, high))


def _cover(ranges: list[K.SortKeyCondition | None]) -> K.SortKeyCondition | None:
    """The narrowest single sort key condition that holds every range (None: no bound)."""
    if not ranges or any(r is None for r in ranges):
        return None
    conditions = [r for r in ranges if r is not None]
    prefixes = {c.values[0] for c in conditions if c.op == "begins_with"}
    if len(prefixes) == 1 and all(c.op == "begins_with" for c in conditions):
        return conditions[0]
    lows = [c.lower() for c in conditions]
    highs = [_inclusive_upper(c) for c in conditions]
    low = None if any(b is None for b in lows) else min(lows, key=_bound_order)
    high = None if any(b is None for b in highs) else max(highs, key=_bound_order)
    if low is not None and high is not None:
        if _key(low.value) == _key(high.value):
            return K.SortKeyCondition("=", (low.value,))
        return K.SortKeyCondition("BETWEEN", (low.value, high.value))
    if low is not None:
        return K.SortKeyCondition(">=" if low.inclusive else ">", (low.value,))
    if high is not None:
        return K.SortKeyCondition("<=" if high.inclusive else "<", (high.value,))
    return None


def _inclusive_upper(c: K.SortKeyCondition) -> K.Bound | None:
    """A range's upper end; a prefix's is its greatest key (BETWEEN takes it exactly)."""
    if c.op == "begins_with":
        last = K.last_with_prefix(c.values[0])
        return K.Bound(last, True) if last is not None else None
    return c.upper()


def _key(value: Any) -> Any:
    return values.scalar_key(value)


def _bound_order(bound: K.Bound | None) -> Any:
    assert bound is not None
    return _key(bound.value)


def _sort_condition(sk: str, c: K.SortKeyCondition) -> ast.Condition:
    attr = ast.Path((sk,), sk)
    if c.op == "begins_with":
        return ast.Function("begins_with", attr, ast.Literal(c.values[0]))
    if c.op == "BETWEEN":
        return ast.Between(attr, ast.Literal(c.values[0]), ast.Literal(c.values[1]))
    return ast.Compare(c.op, attr, ast.Literal(c.values[0]))


# --- lookups -----------------------------------------------------------------------------------


def _lookup(
    source: Source,
    conditions: _Conditions,
    match: Match,
    rows: int,
    options: Options,
    sources: list[Source],
) -> Lookup:
    side = _side(source, conditions.own[source.alias], keyed=True)
    fixed = _fixed(side)
    bound = set(match.columns)
    known = bound | set(fixed)
    chosen: tuple[Keys, bool] | None = None
    # an access path whose partition key the ON gives from the rows before it (its own
    # conditions may fix the rest): a key per row, not one read for every row
    usable = [
        k
        for k in source.keys()
        if k.exact
        and not (options.consistent and _is_gsi(source, k.index))
        and set(k.pk.columns) & bound
    ]
    for k in usable:
        if k.index is None and all(c in known for t in k.templates for c in t.columns):
            chosen = (k, True)
            break
    if chosen is None:
        chosen = next(((k, False) for k in usable if set(k.pk.columns) <= known), None)
    if chosen is None:
        raise _NoForm(_refusal(source, match, sources, options))
    keys, full = chosen
    sample = _lookup_plan(side, keys, full, options, [_placeholder_row(keys, match, fixed)])
    per_key = sample.estimate
    estimate = Estimate(rows * max(1, per_key.items), per_key.rcu * rows, known=per_key.known)
    return Lookup(side, match, keys, full, fixed, options, sample, rows, estimate)


def _is_gsi(source: Source, index: str | None) -> bool:
    return index is not None and source.table.index(index).kind == "gsi"


def _fixed(side: Side) -> dict[str, Any]:
    """Key columns the source's own conditions fix to one value (``p.sk = 'PRODUCT'``)."""
    out: dict[str, Any] = {}
    for condition in side.conditions:
        found = _fixing(condition)
        if found is not None and len(found[1]) == 1:
            out.setdefault(found[0][1], found[1][0])
    return out


def _placeholder_row(keys: Keys, match: Match, fixed: dict[str, Any]) -> dict[str, Any]:
    """One key's values for EXPLAIN's request: each bound column shows where its value comes
    from (``{o.productRef}``), or a zero for a number key."""
    row = dict(fixed)
    types = {c: t.key_type for t in keys.templates for c in t.columns if t.single is not None}
    for column, operand in match.keys:
        kind = types.get(column, "S")
        row[column] = {"N": Decimal(0), "B": b"\x00"}.get(kind, "{" + sql_text(operand) + "}")
    try:
        for template in keys.templates:
            template.compose(row)
    except TemplateError:  # the text holds a template's delimiter: a plain value instead
        row.update({c: "x" for c, _o in match.keys if isinstance(row.get(c), str)})
    return row


def _composed(keys: Keys, row: dict[str, Any]) -> dict[str, Any] | None:
    """The whole physical key a row of column values composes (None: no stored key can be
    it: a column missing, of another type, holding its delimiter, or too long)."""
    out = {}
    for template, limit in ((keys.pk, K.MAX_PK_BYTES), (keys.sk, K.MAX_SK_BYTES)):
        if template is None:
            continue
        try:
            value = template.compose(row)
        except TemplateError:
            return None
        if value is MISSING or not K.key_value_ok(value, template.key_type, limit):
            return None
        out[template.attribute] = value
    return out


def _partition_branch(keys: Keys, row: dict[str, Any]) -> ast.Condition | None:
    """``pk = X`` and the sort key condition the known columns give (= when all are known,
    begins_with for the leading ones), for one key's Query."""
    try:
        pk = keys.pk.compose(row)
    except TemplateError:
        return None
    if pk is MISSING or not K.key_value_ok(pk, keys.pk.key_type, K.MAX_PK_BYTES):
        return None
    condition: ast.Condition = ast.Compare(
        "=", ast.Path((keys.pk.attribute,), keys.pk.attribute), ast.Literal(pk)
    )
    sk = keys.sk
    if sk is None:
        return condition
    attr = ast.Path((sk.attribute,), sk.attribute)
    try:
        whole = sk.compose(row)
    except TemplateError:
        return None
    if whole is not MISSING:
        if not K.key_value_ok(whole, sk.key_type, K.MAX_SK_BYTES):
            return None
        return ast.And((condition, ast.Compare("=", attr, ast.Literal(whole))))
    if sk.key_type != "S":
        return condition
    prefix, _count = sk.prefix({c: v for c, v in row.items() if isinstance(v, str)})
    if not prefix:
        return condition
    return ast.And((condition, ast.Function("begins_with", attr, ast.Literal(prefix))))


def _index_present(side: Side, keys: Keys) -> list[ast.Condition]:
    """An entity's index holds every item of it (its INSERT writes the index's keys): said
    as the index keys' presence, so that the planner reads through it without hedging."""
    if keys.index is None or side.source.entity is None:
        return []
    return [
        ast.Function("attribute_exists", ast.Path((t.attribute,), t.attribute))
        for t in keys.templates
    ]


# --- refusals --------------------------------------------------------------------------------


def _refusal(source: Source, match: Match, sources: list[Source], options: Options) -> PlanError:
    """Why `source` cannot be joined, and the two forms that would serve."""
    alias = source.alias
    gives = [f"{alias}.{c}" for c in match.columns]
    said = f"the ON gives {', '.join(gives)}" if gives else "the ON gives none of its columns"
    forms = []
    for keys in source.keys():
        if options.consistent and _is_gsi(source, keys.index):
            continue
        need = " AND ".join(f"{alias}.{c} = …" for c in keys.pk.columns)
        if not keys.exact:
            forms.append(
                f"{need} through {keys.label}, named (JOIN {source.name}.{keys.index} {alias}: "
                "it holds only the items that have its keys)"
            )
            continue
        if keys.index is None and keys.sk is None:
            forms.append(f"{need} (the table's key: BatchGetItem)")
        elif keys.index is None:
            whole = " AND ".join(f"{alias}.{c} = …" for t in keys.templates for c in t.columns)
            forms.append(f"{whole} (the table's key: BatchGetItem)")
            forms.append(f"{need} (one Query per key)")
        else:
            forms.append(f"{need} ({keys.label}: one Query per key)")
    lookup = "a lookup by key needs ON " + " or ".join(forms)
    collection = _collection_hint(source, sources)
    message = (
        f"cannot join {alias} ({source.what}) to the rows before it: {said}; {lookup}; {collection}"
    )
    pos = source.pos
    return PlanError(message, pos.line or None, pos.col or None)


def _collection_hint(source: Source, sources: list[Source]) -> str:
    """The ON that would make `source` an item collection with an earlier source, if any."""
    alias = source.alias
    for other in sources:
        if other is source or other.table.name != source.table.name:
            continue
        for mine in source.keys():
            theirs = _access(other, mine.index)
            if theirs is None or not mine.exact or len(mine.pk.parts) != len(theirs.pk.parts):
                continue
            pairs = [
                f"{alias}.{a.name} = {other.alias}.{b.name}"
                for a, b in zip(mine.pk.parts, theirs.pk.parts, strict=True)
                if not isinstance(a, str) and not isinstance(b, str)
            ]
            same = all(
                (isinstance(a, str) and a == b)
                or (not isinstance(a, str) and not isinstance(b, str))
                for a, b in zip(mine.pk.parts, theirs.pk.parts, strict=True)
            )
            if same and pairs and mine.pk.attribute == theirs.pk.attribute:
                shape = mine.pk.text()
                return (
                    f"an item collection needs ON {' AND '.join(pairs)} (their partition keys "
                    f"coincide: {shape}), with the collection's sources first"
                )
    return (
        "an item collection joins sources of one table whose partition keys coincide, and "
        f"{source.name} shares none with the sources before it"
    )
