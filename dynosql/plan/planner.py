"""The planner: a bound SELECT and a table description in, the cheapest plan out. No I/O.

For each access path (the table, its LSIs, its GSIs) it asks: can a key serve the WHERE
(partition-key equality, IN, or an OR of keyed branches)? Which sort-key condition is the
tightest? Does the path hold every item the WHERE can match (sparse indexes) and every
attribute the statement needs (projections)? Then it prices each candidate from the table's
size and picks the cheapest; a Scan only when no key serves, and never silently.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.errors import PlanError
from dynosql.evaluate.aggregate import collect_aggregates
from dynosql.plan import keys as K
from dynosql.plan.choice import Range, bounded_wins
from dynosql.plan.cost import paced_page_items, paced_page_units, scan_estimate
from dynosql.plan.ddl import quote
from dynosql.plan.expressions import (
    MAX_EXPRESSION_BYTES,
    Placeholders,
    condition_text,
    expressible,
    paths_in,
    projection_text,
)
from dynosql.plan.fallback import fallback, priced
from dynosql.plan.model import SIZE_UNKNOWN, Estimate, Plan, Request
from dynosql.plan.observed import Guess, Observed, partition_guess
from dynosql.plan.rewrite import key_friendly
from dynosql.plan.sample import apply_sample
from dynosql.plan.schema import IndexInfo, TableInfo
from dynosql.result import format_duration, format_figure, plural
from dynosql.sql import ast
from dynosql.sql.text import expression_text, sql_text
from dynosql.values import READ_UNIT_BYTES, read_units

MAX_BRANCHES = 1000  # keyed branches (one Query each, or 100 full keys per BatchGetItem)
BATCH_GET_KEYS = 100
SCAN_SEGMENT_BYTES = 256 * 1024 * 1024  # one parallel-scan worker per 256 MB, when not given
MAX_AUTO_SEGMENTS = 8
FREE_SEGMENTS = 64  # any table may be scanned in this many segments; more need as many items


@dataclass(frozen=True)
class Options:
    consistent: bool = False
    segments: int | None = None  # None: choose from the table size
    # False for a backend (moto) that fails on valid filters comparing values of different
    # types: ordering comparisons and size() are then evaluated client-side (same cost)
    typed_filters: bool = True
    # False for a backend (moto) that fails on valid projections of irregular items (a path
    # through a non-map, huge numbers): whole items are read instead (same cost)
    projections: bool = True
    # False: a Scan reads the table, never a smaller index (TABLESAMPLE: its estimates scale
    # by the table's item count, and an index's count may be unknown)
    index_scans: bool = True
    # the partitions the session has read whole: what a keyed read's estimate stands on
    observed: Observed | None = field(default=None, compare=False, hash=False)
    # --rate-limit (RCU a second): Query and Scan pages are cut to it, and priced as cut
    rate_limit: Decimal | None = None
    # False under --fail-on-scan, and for a write's read (its guards are decided from the plan
    # before it reads): a keyed read is never replaced by a Scan, however many keys it reads
    # one by one (`_cheaper_scan`) or finds through an index that fetches (plan.fallback)
    scan_instead: bool = True
    # True: no path that fetches from the table (the read a Fallback switches to)
    no_fetch: bool = False

    def on_dynamodb(self) -> Options:
        """These options with DynamoDB's own capabilities, whatever the endpoint: a program
        written from the plan (EXPLAIN (FORMAT PYTHON)) runs on DynamoDB, not on moto."""
        return replace(self, typed_filters=True, projections=True)


@dataclass
class _Branch:
    """One keyed part of the WHERE: the conjuncts that hold for the items it reads."""

    items: list[ast.Condition]
    pk_value: Any = None
    sk_condition: K.SortKeyCondition | None = None
    empty: bool = False
    reason: str | None = None  # why no item can match, for a warning


@dataclass
class _Candidate:
    path: IndexInfo
    operation: str
    branches: list[_Branch]
    disjoint: bool  # no item can be read by two branches (distinct key values)
    fetch: bool
    est_items: int
    rcu: Decimal
    serves_order: bool
    rank: int
    notes: list[str] = field(default_factory=list)
    # read in the ORDER BY's order with its LIMIT pushed down: costs at most `bound`,
    # whatever the partition holds (plan/choice.py)
    bounded: bool = False
    bound: Decimal = Decimal(0)
    # a read that sorts client-side under ORDER BY … LIMIT: what it costs by partition size
    range: Range | None = None
    # a sparse LSI read in order, continued with the items it lacks if it falls short
    continued: bool = False
    basis: str = ""  # what the estimate stands on (EXPLAIN says it)
    # a Scan chosen over a keyed read that costs more: why (`_cheaper_scan`)
    instead_of: str = ""


def plan_select(statement: ast.Select, table: TableInfo, options: Options = Options()) -> Plan:
    """The cheapest plan for a SELECT whose parameters are bound. Under --rate-limit its
    estimate prices the pages cut to the rate, and says how they are cut and what the
    statement would cost without the limit (`_pacing`)."""
    if statement.joins:  # every caller resolves a join first (dynosql.plan.join)
        raise PlanError("a SELECT with JOIN reads several sources: it is planned as a join")
    plan = _plan_select(statement, table, options)
    if options.rate_limit and plan.operation in ("Query", "Scan") and plan.estimate.known:
        whole = _plan_select(statement, table, replace(options, rate_limit=None))
        plan.estimate.paced = _pacing(plan, options.rate_limit, whole.estimate.rcu)
    return plan


def _pacing(plan: Plan, rate: Decimal, unlimited: Decimal) -> str:
    """How --rate-limit cuts the plan's pages, or "" when the read fits in one of them."""
    consistent = plan.consistent
    items = paced_page_items(rate, _avg_size(plan.access, plan.table), consistent)
    if plan.estimate.items <= items * max(1, plan.segments) and unlimited == plan.estimate.rcu:
        return ""
    page = read_units(paced_page_units(rate, consistent) * READ_UNIT_BYTES, consistent)
    return (
        f"--rate-limit {format_figure(rate)} RCU/s cuts the pages to at most "
        f"{items:,} items ({format(page.normalize(), 'f')} RCU, "
        f"{format_duration(page / rate)} of the rate, each); "
        f"without it ~{format(unlimited.normalize(), 'f')} RCU"
    )


def _plan_select(statement: ast.Select, table: TableInfo, options: Options) -> Plan:
    where = key_friendly(statement.where)
    if where is not statement.where:
        statement = replace(statement, where=where)
    if statement.sample is not None:
        # the statement's own Scan, then sampled (a keyed statement refuses TABLESAMPLE)
        plan = apply_sample(
            plan_select(
                dataclasses.replace(statement, sample=None),
                table,
                dataclasses.replace(options, index_scans=False),
            ),
            statement.sample,
        )
        plan.statement = statement
        return plan
    extreme = _first_in_key_order(statement, table)
    if extreme is not None:
        plan = plan_select(extreme, table, options)
        if plan.operation == "Query" and not plan.sort and all(r.max_items for r in plan.requests):
            aggregate = statement.items[0].expr if statement.items else None
            plan.statement = statement
            plan.steps.append(
                f"{getattr(aggregate, 'text', 'the value')}: the first item in key order "
                "(Limit 1) holds it"
            )
            return plan
    needed = _needed_paths(statement)
    if statement.index is not None:
        path = table.index(statement.index)
        if options.consistent and path.kind == "gsi":
            raise PlanError(
                f"index {path.name} is a GSI: GSIs only support eventually consistent reads "
                f"(drop --consistent, or read the table {table.name})"
            )
        paths = [path]
    else:
        paths = [p for p in table.access_paths if not (options.consistent and p.kind == "gsi")]

    candidates = [c for p in paths if (c := _keyed_candidate(statement, table, p, needed, options))]
    # an explicitly named index may lack items; say so, but honour the choice
    notes: list[str] = []
    if statement.index is not None:
        path = paths[0]
        missing = _sparse_gaps(statement, path, table)
        if missing:
            notes.append(
                f"index {path.name} holds only items that have {' and '.join(missing)}: "
                "items without them are not read"
            )
    if candidates:
        best = _choose(candidates)
        if statement.index is None and options.scan_instead:
            best = _cheaper_scan(best, statement, table, paths, needed, options)
    elif statement.index is not None:
        best = _scan_candidate(statement, table, paths[0], needed, options)
    else:
        best = _cheapest_scan(statement, table, paths, needed, options)
    plan = _build(statement, table, best, needed, options)
    if best.continued:
        _continue_with_missing(plan, statement, options)
    plan.warnings[:0] = notes
    if plan.is_scan and best.instead_of:
        plan.warnings.insert(0, f"Scan of {plan.target}: {best.instead_of}")
    elif plan.is_scan:
        warning, plan.scan_hint = _scan_warning(statement, table, plan, options)
        plan.warnings.insert(0, warning)
    if plan.fetch is not None and statement.index is None and not options.no_fetch:
        _fall_back(plan, statement, table, options)
    return plan


def _fall_back(plan: Plan, statement: ast.Select, table: TableInfo, options: Options) -> None:
    """An index read that fetches each item, given the read it switches to when its index key
    holds more items than fetching them is worth (plan/fallback.py), priced so."""
    instead = _plan_select(statement, table, replace(options, no_fetch=True))
    # a Scan's cost is DescribeTable's figure; another Query's would be a guess as well
    if not instead.is_scan or not options.scan_instead:
        return
    rule = fallback(plan, instead, _avg_size(plan.access, table), options.rate_limit)
    if rule is None:
        return
    # the read instead is chosen, not stumbled into: no advice to add a key condition
    instead.scan_hint = None
    instead.warnings = [
        f"more than {rule.keys:,} keys of {plan.target}: each fetched would cost more than "
        f"this {instead.operation} ({instead.estimate.text()})"
    ]
    plan.fallback = rule
    plan.estimate = priced(plan, rule)
    plan.steps.insert(0, rule.text(plan.target))


def _first_in_key_order(statement: ast.Select, table: TableInfo) -> ast.Select | None:
    """``SELECT MIN(k)`` / ``MAX(k)`` of a sort key (of the table or an index) as the read of
    the first item in that key's order: ``SELECT k … AND attribute_exists(k) ORDER BY k
    [DESC] LIMIT 1``. MIN and MAX ignore items without k, and every item with k has it in the
    key's type (DynamoDB refuses another type on a key), so the first item read is the answer;
    the caller keeps it only when it is a Query in key order with Limit 1."""
    if (
        statement.items is None
        or len(statement.items) != 1
        or statement.group_by
        or statement.having is not None
        or statement.order_by
        or statement.distinct
    ):
        return None
    aggregate = statement.items[0].expr
    if (
        not isinstance(aggregate, ast.Aggregate)
        or aggregate.func not in ("MIN", "MAX")
        or aggregate.distinct
        or aggregate.path is None
        or len(aggregate.path.elements) != 1
    ):
        return None
    key = aggregate.path
    if not any(p.keys.sk == key.root for p in table.access_paths):
        return None
    exists = ast.Function("attribute_exists", key)
    where = exists if statement.where is None else ast.And((statement.where, exists))
    return replace(
        statement,
        items=(ast.SelectItem(key),),
        where=where,
        order_by=(ast.OrderItem(key, desc=aggregate.func == "MAX"),),
        limit=1,
    )


# --- what the statement needs ------------------------------------------------------------------


def _needed_paths(statement: ast.Select) -> list[ast.Path] | None:
    """Paths the client needs on each item, or None for whole items (SELECT *, and any
    statement that sizes items: ITEM_SIZE() is of the item as stored, every attribute)."""
    if statement.items is None or ast.item_measures(statement):
        return None
    found: list[ast.Path] = []
    for item in statement.items:
        found.extend(paths_in(item.expr))
    for order in statement.order_by:
        found.extend(paths_in(order.expr))
    found.extend(paths_in(statement.having))
    for g in statement.group_by:
        found.extend(paths_in(g))
    return found


def _dedupe_paths(paths: list[ast.Path]) -> list[ast.Path]:
    """Drop paths that repeat or lie inside another (DynamoDB rejects overlapping paths).

    A path is cut before its first list index: DynamoDB returns a projected `a[2]` as the
    one-element list `a: [x]`, where `a[2]` no longer resolves, so the whole list is read."""
    paths = [_before_list_index(p) for p in paths]
    kept: list[ast.Path] = []
    for p in sorted(paths, key=lambda p: len(p.elements)):
        if any(p.elements[: len(k.elements)] == k.elements for k in kept):
            continue
        kept.append(p)
    order = {p.elements: i for i, p in enumerate(paths)}
    return sorted(kept, key=lambda p: order.get(p.elements, 0))


def _before_list_index(path: ast.Path) -> ast.Path:
    for i, element in enumerate(path.elements):
        if isinstance(element, int):
            cut = path.elements[:i]
            return ast.Path(cut, ".".join(str(e) for e in cut), path.pos)
    return path


def _attr(name: str) -> ast.Path:
    return ast.Path((name,), name)


# --- branches: the keyed parts of the WHERE ----------------------------------------------------


def _branches(statement: ast.Select, path: IndexInfo) -> tuple[list[_Branch], bool] | None:
    """Split the WHERE into branches each with partition-key equality, or None if it cannot.
    Also says whether the branches are disjoint (they come from distinct key values)."""
    items = K.conjuncts(statement.where)
    pk, sk = path.keys.pk, path.keys.sk
    groups = _expand(items, pk)
    if groups is None:
        return None
    disjoint = len(groups) == 1 or _by_values(items, pk)
    branches: list[_Branch] = []
    for group in groups:
        subs = _expand_sort(group, sk, path.keys.sk_type or "S") if sk else [group]
        disjoint = disjoint and (len(subs) == 1 or (sk is not None and _by_values(group, sk)))
        branches.extend(_branch(sub, path) for sub in subs)
    if len(branches) > MAX_BRANCHES:
        return None
    return branches, disjoint


def _by_values(items: list[ast.Condition], attribute: str) -> bool:
    """Whether the expansion on `attribute` came from IN / OR of equalities (distinct values)."""
    return any(K.in_values(c, attribute) is not None for c in items)


def _expand(items: list[ast.Condition], pk: str) -> list[list[ast.Condition]] | None:
    found, _value, _c = K.equality_value(items, pk)
    if found:
        return [items]
    for c in items:
        listed = K.in_values(c, pk)
        if listed is not None:
            rest = [x for x in items if x is not c]
            return [rest + [ast.Compare("=", _attr(pk), ast.Literal(v))] for v in _distinct(listed)]
    for c in items:
        if isinstance(c, ast.Or):
            parts = [K.conjuncts(b) for b in c.items]
            equalities = [K.equality_value(p, pk) for p in parts]
            if all(f[0] for f in equalities):
                rest = [x for x in items if x is not c]
                first = equalities[0][1]
                if all(values.values_equal(f[1], first) for f in equalities):
                    # one partition: one Query; the OR, less the partition key it repeats,
                    # stays a condition DynamoDB can filter (or becomes sort-key branches)
                    key = ast.Compare("=", _attr(pk), ast.Literal(first))
                    others = [
                        [x for x in p if x is not f[2]]
                        for p, f in zip(parts, equalities, strict=True)
                    ]
                    if any(not o for o in others):
                        return [[*rest, key]]  # one branch is the partition itself
                    return [[*rest, key, ast.Or(tuple(K.all_of(o) for o in others))]]
                return [rest + p for p in parts]
    return None


def _expand_sort(items: list[ast.Condition], sk: str, sk_type: str) -> list[list[ast.Condition]]:
    """`sk IN (...)` or an OR of sort-key conditions becomes one branch per alternative."""
    for c in items:
        listed = K.in_values(c, sk)
        if listed is not None:
            rest = [x for x in items if x is not c]
            return [rest + [ast.Compare("=", _attr(sk), ast.Literal(v))] for v in _distinct(listed)]
    for c in items:
        if isinstance(c, ast.Or) and all(_has_sort_condition(b, sk, sk_type) for b in c.items):
            rest = [x for x in items if x is not c]
            return [rest + K.conjuncts(b) for b in c.items]
    return [items]


def _has_sort_condition(branch: ast.Condition, sk: str, sk_type: str) -> bool:
    for c in K.conjuncts(branch):
        try:
            if K.sort_condition_of(c, sk, sk_type) is not None:
                return True
        except K.Empty:
            return True  # an impossible branch: it becomes an empty one
    return False


def _distinct(listed: list[Any]) -> list[Any]:
    seen, out = set(), []
    for v in listed:
        h = values.hashable(v)
        if h not in seen:
            seen.add(h)
            out.append(v)
    return out


def _branch(items: list[ast.Condition], path: IndexInfo) -> _Branch:
    keys = path.keys
    _found, pk_value, _c = K.equality_value(items, keys.pk)
    branch = _Branch(items, pk_value)
    if not K.key_value_ok(pk_value, keys.pk_type, K.MAX_PK_BYTES):
        branch.empty = True
        branch.reason = _key_mismatch(keys.pk, keys.pk_type, pk_value, K.MAX_PK_BYTES)
        return branch
    # two different equalities on the partition key contradict each other
    for c in items:
        m = K.attribute_comparison(c, keys.pk)
        if m and m[0] == "=" and not values.values_equal(m[1], pk_value):
            branch.empty = True
            return branch
    if keys.sk:
        sk, sk_type = keys.sk, keys.sk_type or "S"
        conditions = []
        for c in items:
            wrong = K.mentions_type_mismatch(c, sk, sk_type)
            if wrong is not None:
                branch.empty = True
                branch.reason = _key_mismatch(sk, sk_type, wrong, K.MAX_SK_BYTES)
                return branch
            try:
                sc = K.sort_condition_of(c, sk, sk_type)
            except K.Empty:
                branch.empty = True
                return branch
            if sc is not None:
                if sc.op == "=" and not K.key_value_ok(sc.values[0], sk_type, K.MAX_SK_BYTES):
                    branch.empty = True
                    return branch
                conditions.append(sc)
        try:
            branch.sk_condition = K.tightest(conditions)
        except K.Empty:
            branch.empty = True
    return branch


_TYPE_WORDS = {"S": "a string", "N": "a number", "B": "binary", "BOOL": "a boolean", "NULL": "NULL"}


def _key_mismatch(name: str, key_type: str, value: Any, max_bytes: int) -> str:
    got = values.type_of(value) or "missing"
    if got == key_type == "N":
        return (
            f"begins_with needs a string or binary key, and {name} is a number: no item can match"
        )
    if got != key_type:
        hint = f" (quote it: '{value}')" if key_type == "S" and got == "N" else ""
        return (
            f"{name} is a key of type {key_type}, and {_TYPE_WORDS.get(got, got)} never equals "
            f"{_TYPE_WORDS[key_type]}: no item can match{hint}"
        )
    return f"{name} = {value!r}: a key value must be 1 to {max_bytes} bytes, so no item can match"


def _implies_present(items: list[ast.Condition], attribute: str) -> bool:
    """Whether the conjuncts can only hold for items that have `attribute`."""
    for c in items:
        m = K.attribute_comparison(c, attribute)
        if m and m[0] != "<>":
            return True
        if (
            isinstance(c, ast.Between)
            and isinstance(c.operand, ast.Path)
            and c.operand.elements == (attribute,)
        ):
            return True
        if (
            isinstance(c, ast.In)
            and isinstance(c.operand, ast.Path)
            and c.operand.elements == (attribute,)
        ):
            return True
        if (
            isinstance(c, ast.Function)
            and c.name != "attribute_not_exists"
            and c.path.elements == (attribute,)
        ):
            return True
        if isinstance(c, ast.Like | ast.IsNull) and c.path.elements == (attribute,):
            return True
        if isinstance(c, ast.Or) and all(
            _implies_present(K.conjuncts(b), attribute) for b in c.items
        ):
            return True
    return False


def _sparse_gaps(statement: ast.Select, path: IndexInfo, table: TableInfo) -> list[str]:
    """Index key attributes the WHERE does not guarantee (items lacking them are not indexed)."""
    if path.kind == "table":
        return []
    items = K.conjuncts(statement.where)
    groups = _expand(items, path.keys.pk) or [items]
    return [
        name
        for name in path.keys.names
        if name not in table.keys.names and not all(_implies_present(g, name) for g in groups)
    ]


# --- candidates and their price ----------------------------------------------------------------


def _holds_all(
    path: IndexInfo, table: TableInfo, needed: list[ast.Path] | None, statement: ast.Select
) -> bool:
    """Whether items read through `path` carry every attribute the statement reads,
    its WHERE included (a condition on a missing attribute would silently drop items)."""
    if path.projection == "ALL":
        return True
    if needed is None:
        return False
    wanted = [*needed, *paths_in(statement.where)]
    return all(path.holds(p.root, table.keys) for p in wanted)


def _collection_items(path: IndexInfo, table: TableInfo) -> float:
    """A guess at the items under one partition-key value when nothing was seen: √N, the
    geometric middle between one item a key and one key for the table (DynamoDB does not say
    how many keys a table has)."""
    n = path.item_count or table.item_count or 1000
    return max(1.0, math.sqrt(n))


def _partition_guess(
    b: _Branch, path: IndexInfo, table: TableInfo, options: Options, per_key: float
) -> Guess:
    """Items one keyed branch evaluates (plan.observed: the partitions read this session,
    else a guess from DescribeTable, said to be one)."""
    cond = b.sk_condition
    op = cond.op if cond else None
    if op == "=" and path.kind != "gsi":
        return Guess(1.0, None, "a full key: one item", True)
    fraction = 0.05 if op == "=" else _SELECTIVITY.get(op or "", 1.0)
    n = path.item_count or table.item_count
    counted = (
        f"√{n:,}: DescribeTable's ItemCount, refreshed about every six hours"
        if n
        else "a table of unknown size"
    )
    target = table.name if path.name is None else f"{table.name}.{path.name}"
    share = f", {op} {'1/20' if op == '=' else f'1/{round(1 / fraction)}'} of them" if op else ""
    prior = (
        f"no partition of {target} read yet, so ~{per_key:,.0f} "
        f"{plural(round(per_key), 'item')} a key ({counted}){share}"
    )
    pk_text = f"{path.keys.pk} = {_literal(b.pk_value)}"
    return partition_guess(
        options.observed,
        table.name,
        path.name,
        pk_text,
        b.pk_value,
        cond,
        per_key,
        fraction,
        prior,
    )


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


_SELECTIVITY = {
    "=": 0.0,
    "BETWEEN": 0.1,
    "begins_with": 0.1,
    "<": 0.3,
    "<=": 0.3,
    ">": 0.3,
    ">=": 0.3,
}


def _bases(bases: list[str]) -> str:
    """One basis, or the first and how many more (an IN list of keys)."""
    distinct = list(dict.fromkeys(bases))
    if len(distinct) <= 1:
        return distinct[0] if distinct else ""
    return f"{distinct[0]} (and {len(distinct) - 1} more keys, each likewise)"


def _average_text(table: TableInfo, path: IndexInfo | None = None) -> str:
    """Where the item size of an estimate comes from."""
    path = path or table.base
    if (path.item_count and path.size_bytes) or (table.item_count and table.size_bytes):
        return f"{_avg_size(path, table):,} bytes an item (DescribeTable's average)"
    return f"{table.average_item_size} bytes an item (a typical small item: size unknown)"


def _avg_size(path: IndexInfo, table: TableInfo) -> int:
    if path.item_count and path.size_bytes:
        return max(1, path.size_bytes // path.item_count)
    return table.average_item_size


def _rcu(
    items: float,
    size: int,
    consistent: bool,
    streams: int = 1,
    pace: Decimal | None = None,
    page_items: int | None = None,
) -> Decimal:
    """A Query's or Scan's read units, page by page (plan.cost.scan_estimate), its pages cut
    to `page_items` (a LIMIT sent as Limit) and to --rate-limit `pace`'s (plan.cost.
    paced_page_items, as the reader cuts them)."""
    if pace:
        paced = paced_page_items(pace, size, consistent)
        page_items = paced if page_items is None else min(page_items, paced)
    return scan_estimate(items, size, consistent, streams, page_items=page_items)


def _keyed_candidate(
    statement: ast.Select,
    table: TableInfo,
    path: IndexInfo,
    needed: list[ast.Path] | None,
    options: Options,
) -> _Candidate | None:
    continued = False
    if path.kind != "table" and statement.index is None:
        gaps = _sparse_gaps(statement, path, table)
        continued = bool(gaps) and _missing_sort_last(statement, path, gaps)
        if gaps and not continued:
            return None
    found = _branches(statement, path)
    if found is None:
        return None
    branches, disjoint = found
    live = [b for b in branches if not b.empty]
    consistent = options.consistent and path.kind != "gsi"
    full_key = path.kind == "table" and all(
        path.keys.sk is None or (b.sk_condition is not None and b.sk_condition.op == "=")
        for b in live
    )
    fetch = not _holds_all(path, table, needed, statement)
    if fetch and options.no_fetch:
        return None
    per_key = _collection_items(path, table)
    size = _avg_size(path, table)
    serves = _serves_order(statement, path)
    bases: list[str] = []
    if full_key and live:
        operation = "GetItem" if len(live) == 1 else "BatchGetItem"
        est_items = len(live)
        rcu = sum((_rcu(1, table.average_item_size, consistent) for _ in live), Decimal(0))
        bases.append(f"one item a key; {_average_text(table)}")
    else:
        operation = "Query"
        est_items = 0
        rcu = Decimal(0)
        # as `_request_limit` decides: a LIMIT is sent where every item read is a row
        limited = statement.limit is not None and not statement.is_aggregate
        limited = limited and not statement.distinct and (not statement.order_by or serves)
        for b in live:
            guess = _partition_guess(b, path, table, options, per_key)
            n = guess.items if guess.observed else max(1.0, guess.items)
            # with a filter, the pages are read until LIMIT rows pass: the key range at most
            if limited and statement.limit is not None and not _beyond_key(b, "Query", path, table):
                n = min(n, float(max(1, statement.limit)))
            est_items += math.ceil(n)
            rcu += _rcu(n, round(guess.item_bytes or size), consistent, pace=options.rate_limit)
            if guess.item_bytes is not None:
                bases.append(f"{guess.basis}; {guess.item_bytes:,.0f} bytes an item, as read")
            elif b.sk_condition and b.sk_condition.op == "=" and path.kind != "gsi":
                bases.append(guess.basis)
            else:
                bases.append(f"{guess.basis}; {_average_text(table, path)}")
        if fetch:
            rcu += sum(
                (_rcu(1, table.average_item_size, options.consistent) for _ in range(est_items)),
                Decimal(0),
            )
    rank = {"table": 0, "lsi": 1, "gsi": 2}[path.kind]
    if path.kind == "lsi" and path.projection != "ALL" and not fetch:
        # the LSI holds only the partition's items that have its sort key (the WHERE implies
        # it, or the candidate would not exist), in entries smaller than the items: it never
        # reads more than the table, so it wins a tie (sizes unknown: moto, dynalite)
        rank = -1
    if not live:
        operation, est_items, rcu = "Nothing", 0, Decimal(0)
    cand = _Candidate(path, operation, branches, disjoint, fetch, est_items, rcu, serves, rank)
    cand.continued = continued
    cand.basis = _bases(bases)
    _price_by_partition(cand, statement, table, live, options)
    return cand


def _missing_sort_last(statement: ast.Select, path: IndexInfo, gaps: list[str]) -> bool:
    """`ORDER BY sk [ASC | DESC NULLS LAST] LIMIT n` on an LSI whose only gap is its sort key
    sk: items without sk (not in the LSI) sort after every item with it, so the LSI read in
    order answers, and the rest of the partition is read only if it gives fewer than n rows.
    (A GSI's missing items could only be found by a Scan.)"""
    if path.kind != "lsi" or gaps != [path.keys.sk] or statement.limit is None:
        return False
    if statement.is_aggregate or statement.distinct or len(statement.order_by) != 1:
        return False
    order = statement.order_by[0]
    last = order.nulls == "LAST" or (order.nulls is None and not order.desc)
    return last and _serves_order(statement, path)


def _continue_with_missing(plan: Plan, statement: ast.Select, options: Options) -> None:
    """The read of the items the plan's LSI lacks (no sort key), for when its rows fall short
    of LIMIT; they all tie on the ORDER BY (missing), after every row the LSI gave."""
    sk = plan.access.keys.sk or ""
    absent = ast.Function("attribute_not_exists", _attr(sk))
    where = absent if statement.where is None else ast.And((statement.where, absent))
    plan.then = plan_select(replace(statement, where=where, order_by=()), plan.table, options)
    step = (
        f"if fewer than {statement.limit} rows came back, the items without {sk} (index "
        f"{plan.access.name} does not hold them; they sort last): {plan.then.label}"
    )
    at = len(plan.steps) - 1 if plan.steps[-1:] and plan.steps[-1].startswith("stop") else None
    plan.steps.insert(len(plan.steps) if at is None else at, step)


def _price_by_partition(
    cand: _Candidate,
    statement: ast.Select,
    table: TableInfo,
    live: list[_Branch],
    options: Options,
) -> None:
    """Under ORDER BY … LIMIT n, what a Query's cost can be whatever the partition holds:
    the bound of a read in key order with Limit n, or the range of a read sorted client-side
    (plan/choice.py decides between them)."""
    if cand.operation != "Query" or statement.limit is None or not statement.order_by:
        return
    if statement.is_aggregate or statement.distinct:
        return
    path = cand.path
    n = max(1, statement.limit)
    consistent = options.consistent and path.kind != "gsi"
    size = _avg_size(path, table)
    fetch = _rcu(1, table.average_item_size, options.consistent) if cand.fetch else Decimal(0)
    per_branch = _rcu(n, size, consistent, pace=options.rate_limit) + n * fetch
    if cand.serves_order:
        # every conjunct is the key condition or implied by the path: no filter, so Limit n
        # is sent and n items are read at most
        pushed = not any(_beyond_key(b, "Query", path, table) for b in live)
        # several branches are merged by a client-side sort, which would read a continuation
        # every time: only one branch is continued
        cand.bounded = pushed and not (cand.continued and len(live) > 1)
        cand.bound = per_branch * len(live)
        return
    everything = path.item_count or table.item_count or 1000
    cand.range = Range(
        per_branch * len(live),
        _rcu(everything, size, consistent, pace=options.rate_limit) + everything * fetch,
    )


def _choose(candidates: list[_Candidate]) -> _Candidate:
    """The cheapest candidate by estimate, unless it sorts a partition client-side under
    ORDER BY … LIMIT and a read in key order bounded by LIMIT is the safer price."""
    plain = [c for c in candidates if not c.continued] or candidates
    best = min(plain, key=lambda c: (c.rcu, not c.serves_order, c.rank))
    if best.range is None:
        return best
    # a continued read can overspend by its whole bound (when the rest is read after it)
    safe = [
        c
        for c in candidates
        if c.bounded
        and bounded_wins(c.bound, Range(Decimal(0), best.range.most) if c.continued else best.range)
    ]
    return min(safe, key=lambda c: (c.bound, c.rank)) if safe else best


def _cheaper_scan(
    best: _Candidate,
    statement: ast.Select,
    table: TableInfo,
    paths: list[IndexInfo],
    needed: list[ast.Path] | None,
    options: Options,
) -> _Candidate:
    """A GSI read of many keys (an IN list, an OR) is a Query a key, each billed a unit at
    least, found or not: where those units alone cost more than a Scan of a table (or index)
    of known size, the Scan (PartiQL's read of the same WHERE: 100 keys of a small table
    would cost 50 RCU). The table's own keys (and an LSI's, which are the table's partitions)
    are read one by one as PartiQL reads them: a Scan of a small table to save a unit or two
    would only surprise."""
    live = [b for b in best.branches if not b.empty]
    if best.operation != "Query" or best.path.kind != "gsi" or len(live) < 2:
        return best
    floor = read_units(0) * len(live)
    scan = _cheapest_scan(statement, table, paths, needed, options)
    if not scan.est_items or floor <= scan.rcu:
        return best
    scan.instead_of = (
        f"{len(live):,} keys read one by one cost {format(floor.normalize(), 'f')} RCU at least, "
        f"more than it reads every item ({scan.est_items:,} items, "
        f"~{format(scan.rcu.normalize(), 'f')} RCU)"
    )
    return scan


def _serves_order(statement: ast.Select, path: IndexInfo) -> bool:
    if len(statement.order_by) != 1 or statement.is_aggregate:
        return False
    expr = statement.order_by[0].expr
    return (
        isinstance(expr, ast.Path) and path.keys.sk is not None and expr.elements == (path.keys.sk,)
    )


def _scan_candidate(
    statement: ast.Select,
    table: TableInfo,
    path: IndexInfo,
    needed: list[ast.Path] | None,
    options: Options,
) -> _Candidate:
    items = path.item_count or table.item_count
    consistent = options.consistent and path.kind != "gsi"
    size = _avg_size(path, table)
    rcu = _rcu(items, size, consistent, pace=options.rate_limit) if items else Decimal("0.5")
    fetch = not _holds_all(path, table, needed, statement)
    branch = _Branch(K.conjuncts(statement.where))
    cand = _Candidate(path, "Scan", [branch], True, fetch, items, rcu, False, 9)
    size = path.size_bytes or table.size_bytes
    cand.basis = (
        f"DescribeTable: {items:,} items, {size:,} bytes (refreshed about every six hours)"
        if items
        else ""
    )
    return cand


def _cheapest_scan(
    statement: ast.Select,
    table: TableInfo,
    paths: list[IndexInfo],
    needed: list[ast.Path] | None,
    options: Options,
) -> _Candidate:
    """The Scan of the smallest path that holds every item the WHERE can match (the WHERE
    implies the index's keys: an index holds only items that have them) and every attribute
    the statement needs. An index entry holds a subset of its item's attributes and a sparse
    index a subset of the items, so such an index never costs more to Scan than the table;
    on a tie (sizes unknown) an index smaller by construction (KEYS_ONLY or INCLUDE, or
    sparse: keyed on an attribute items may lack) is preferred, then the table."""
    scans = [_scan_candidate(statement, table, table.base, needed, options)]
    for path in paths if options.index_scans else ():
        if path.kind == "table" or _sparse_gaps(statement, path, table):
            continue
        if not _holds_all(path, table, needed, statement):
            continue
        cand = _scan_candidate(statement, table, path, needed, options)
        sparse = any(name not in table.keys.names for name in path.keys.names)
        cand.rank = -1 if path.projection != "ALL" or sparse else 10
        scans.append(cand)
    return min(scans, key=lambda c: (c.rcu, c.rank))


# --- building the requests ---------------------------------------------------------------------


def _on_key(c: ast.Condition, path: IndexInfo) -> bool:
    """Whether a conjunct names one of the path's key attributes (a Query filter may not)."""
    return any(p.root in path.keys.names for p in paths_in(c))


def _build(
    statement: ast.Select,
    table: TableInfo,
    cand: _Candidate,
    needed: list[ast.Path] | None,
    options: Options,
) -> Plan:
    path = cand.path
    consistent = options.consistent and path.kind != "gsi"
    live = [b for b in cand.branches if not b.empty]
    plan = Plan(
        statement=statement,
        table=table,
        access=path,
        operation=cand.operation,
        requests=[],
        estimate=Estimate(cand.est_items, cand.rcu, basis=cand.basis),
        consistent=consistent,
    )
    multi = len(live) > 1
    plan.dedupe = multi and cand.operation == "Query" and not cand.disjoint
    client_sort = bool(statement.order_by) and not (cand.serves_order and cand.operation == "Query")
    count_star = _count_star_only(statement)
    if cand.operation == "Nothing":
        plan.steps.append("no item can match the WHERE (contradictory or impossible key values)")
        reasons = dict.fromkeys(b.reason for b in cand.branches if b.reason)
        plan.warnings.extend(reasons)
        _client_steps(plan, statement, client_sort, False)
        return plan

    if cand.operation in ("GetItem", "BatchGetItem"):
        _build_gets(
            plan, statement, table, live, needed if options.projections else None, consistent
        )
        _client_steps(plan, statement, client_sort, True)
        return plan

    # Query or Scan: the key condition per branch, what DynamoDB filters, what the client checks
    fetch = cand.fetch
    splits = [_split(b, cand.operation, path, table, plan, options) for b in live]
    # Select=COUNT only when DynamoDB's counts are the answer: nothing left for the client,
    # and no item counted twice by two branches
    plan.count_only = (
        count_star
        and not fetch
        and (cand.disjoint or not multi)
        and all(not residual for _s, residual in splits)
    )
    for b, (server, residual) in zip(live, splits, strict=True):
        ph = Placeholders()
        params: dict[str, Any] = {"TableName": table.name}
        if path.name is not None:
            params["IndexName"] = path.name
        if cand.operation == "Query":
            params["KeyConditionExpression"] = _key_condition(b, path, ph)
        if server:
            params["FilterExpression"] = condition_text(K.all_of(server), ph)
        if plan.count_only:
            params["Select"] = "COUNT"
        else:
            projection = _projection(statement, table, path, needed, residual, fetch, plan.dedupe)
            if not options.projections:
                projection = None
            if projection:
                params["ProjectionExpression"] = projection_text(projection, ph)
        if cand.operation == "Query" and cand.serves_order:
            params["ScanIndexForward"] = not statement.order_by[0].desc
        if consistent:
            params["ConsistentRead"] = True
        limit = _request_limit(statement, residual, params, client_sort and not cand.serves_order)
        if limit is not None:
            params["Limit"] = limit
        params["ReturnConsumedCapacity"] = "TOTAL"
        ph.into(params)
        plan.requests.append(Request(cand.operation, params, K.and_of(residual), limit))

    # a whole item collection read: what it holds is remembered (plan.observed; a fetch from
    # the table would count its items too)
    if cand.operation == "Query" and len(live) == 1 and live[0].sk_condition is None:
        if plan.requests and "Limit" not in plan.requests[0].params and not fetch:
            plan.whole_partition = (live[0].pk_value,)
    if cand.operation == "Scan":
        plan.segments = _segments(table, path, options)
        _scan_estimate(plan, statement, table, consistent, options.rate_limit)
    if fetch:
        plan.fetch = _fetch_request(
            statement, table, needed if options.projections else None, consistent=options.consistent
        )
        why = f"{path.name} does not project every attribute needed"
        if ast.item_measures(statement):
            why = f"{path.name} projects {path.projection}: sizes are of the table's whole items"
        plan.steps.append(f"fetch full items from {table.name} with BatchGetItem ({why})")
    _client_steps(plan, statement, client_sort, multi)
    return plan


def _split(
    b: _Branch, operation: str, path: IndexInfo, table: TableInfo, plan: Plan, options: Options
) -> tuple[list[ast.Condition], list[ast.Condition]]:
    """A branch's conjuncts beyond its key condition: (DynamoDB filters, the client checks)."""
    remaining = _beyond_key(b, operation, path, table)
    server = [
        c
        for c in remaining
        if expressible(c, options.typed_filters)
        and _held(c, path, table)
        and not (operation == "Query" and _on_key(c, path))
    ]
    residual = [c for c in remaining if c not in server]
    if server:
        probe = condition_text(K.all_of(server), Placeholders())  # measured, then discarded
        if len(probe.encode("utf-8")) > MAX_EXPRESSION_BYTES:
            message = "the filter is longer than DynamoDB's 4 KB limit: filtering client-side"
            if message not in plan.warnings:
                plan.warnings.append(message)
            return [], remaining
    return server, residual


def _beyond_key(
    b: _Branch, operation: str, path: IndexInfo, table: TableInfo
) -> list[ast.Condition]:
    """A branch's conjuncts that reading `path` does not answer: something must check them,
    so a LIMIT cannot be sent (Limit counts the items read, not those that pass)."""
    remaining = [c for c in b.items if not _implied_by_path(c, path, table)]
    if operation == "Query":
        remaining = [c for c in remaining if not _served_by_key(c, b, path)]
    return remaining


def _implied_by_path(c: ast.Condition, path: IndexInfo, table: TableInfo) -> bool:
    """`attribute_exists(k)` of a key of the table or of the index read: every item read
    through `path` has it (an index holds only items with its keys), so nothing is checked
    and a LIMIT can still be pushed down."""
    return (
        isinstance(c, ast.Function)
        and c.name == "attribute_exists"
        and len(c.path.elements) == 1
        and c.path.root in (*path.keys.names, *table.keys.names)
    )


def _held(c: ast.Condition, path: IndexInfo, table: TableInfo) -> bool:
    """A filter on an index can only see the attributes the index projects."""
    return all(path.holds(p.root, table.keys) for p in paths_in(c))


def _served_by_key(c: ast.Condition, b: _Branch, path: IndexInfo) -> bool:
    m = K.attribute_comparison(c, path.keys.pk)
    if m and m[0] == "=" and values.values_equal(m[1], b.pk_value):
        return True
    if path.keys.sk and b.sk_condition is not None:
        sc = K.sort_condition_of(c, path.keys.sk, path.keys.sk_type or "S")
        if sc is not None and K.implies(b.sk_condition, sc):
            return True
    return False


def _key_condition(b: _Branch, path: IndexInfo, ph: Placeholders) -> str:
    text = f"{ph.name(path.keys.pk)} = {ph.value(b.pk_value)}"
    sc = b.sk_condition
    if sc is None:
        return text
    name = ph.name(path.keys.sk or "")
    if sc.op == "BETWEEN":
        cond = f"{name} BETWEEN {ph.value(sc.values[0])} AND {ph.value(sc.values[1])}"
    elif sc.op == "begins_with":
        cond = f"begins_with({name}, {ph.value(sc.values[0])})"
    else:
        cond = f"{name} {sc.op} {ph.value(sc.values[0])}"
    return f"{text} AND {cond}"


def _projection(
    statement: ast.Select,
    table: TableInfo,
    path: IndexInfo,
    needed: list[ast.Path] | None,
    residual: list[ast.Condition],
    fetch: bool,
    multi: bool,
) -> list[ast.Path] | None:
    if fetch:
        # read only the keys through the index; the rest comes from the base table
        return [_attr(n) for n in table.keys.names]
    if needed is None:
        return None
    paths = list(needed)
    for c in residual:
        paths.extend(paths_in(c))
    if multi:
        paths.extend(_attr(n) for n in table.keys.names)
    for order in statement.order_by:
        paths.extend(paths_in(order.expr))
    if not paths:
        # COUNT(*) over a client-filtered read still needs something small per item
        paths = [_attr(table.keys.pk)]
    return _dedupe_paths(paths)


def _fetch_paths(
    statement: ast.Select, table: TableInfo, needed: list[ast.Path] | None
) -> list[ast.Path] | None:
    """What a fetch by key must bring back: the statement's paths, the WHERE's (checked
    client-side, BatchGetItem having no filter) and the keys; None for whole items."""
    if needed is None:
        return None
    keys = [_attr(n) for n in table.keys.names]
    return _dedupe_paths([*needed, *paths_in(statement.where), *keys])


def _batch_get(
    table: TableInfo,
    keys: list[dict[str, Any]],
    paths: list[ast.Path] | None,
    consistent: bool,
    residual: ast.Condition | None,
) -> Request:
    """One BatchGetItem request for the base table (the one place its shape is written)."""
    ph = Placeholders()
    spec: dict[str, Any] = {"Keys": keys}
    if paths:
        spec["ProjectionExpression"] = projection_text(paths, ph)
    if consistent:
        spec["ConsistentRead"] = True
    if ph.names:
        spec["ExpressionAttributeNames"] = dict(ph.names)
    params = {"RequestItems": {table.name: spec}, "ReturnConsumedCapacity": "TOTAL"}
    return Request("BatchGetItem", params, residual)


def _fetch_request(
    statement: ast.Select, table: TableInfo, needed: list[ast.Path] | None, consistent: bool
) -> Request:
    """The fetch-back template: keys are filled in at run time, 100 a call."""
    paths = _fetch_paths(statement, table, needed)
    return _batch_get(table, [], paths, consistent, statement.where)


def _build_gets(
    plan: Plan,
    statement: ast.Select,
    table: TableInfo,
    live: list[_Branch],
    needed: list[ast.Path] | None,
    consistent: bool,
) -> None:
    """GetItem for one full key, BatchGetItem (100 keys a call) for several."""
    keys = []
    seen = set()
    for b in live:
        key = {table.keys.pk: values.encode(b.pk_value)}
        if table.keys.sk and b.sk_condition is not None:
            key[table.keys.sk] = values.encode(b.sk_condition.values[0])
        h = tuple(sorted((k, values.hashable(values.decode(v))) for k, v in key.items()))
        if h not in seen:
            seen.add(h)
            keys.append(key)
    # BatchGetItem has no filter: the client checks the whole WHERE on what comes back (the
    # keys hold by construction, but an OR can mix keyed branches with other conditions)
    residual = statement.where
    paths = _fetch_paths(statement, table, needed)
    if len(keys) == 1:
        ph = Placeholders()
        params: dict[str, Any] = {"TableName": table.name, "Key": keys[0]}
        if paths:
            params["ProjectionExpression"] = projection_text(paths, ph)
        if consistent:
            params["ConsistentRead"] = True
        params["ReturnConsumedCapacity"] = "TOTAL"
        ph.into(params)
        plan.requests.append(Request("GetItem", params, residual))
        return
    for start in range(0, len(keys), BATCH_GET_KEYS):
        chunk = keys[start : start + BATCH_GET_KEYS]
        plan.requests.append(_batch_get(table, chunk, paths, consistent, residual))


def _count_star_only(statement: ast.Select) -> bool:
    """Only COUNT(*), anywhere (select list, HAVING, ORDER BY), and no GROUP BY: DynamoDB's
    Select=COUNT answers it."""
    if statement.group_by or statement.items is None or statement.distinct:
        return False
    if not all(isinstance(i.expr, ast.Aggregate) for i in statement.items):
        return False
    aggs = collect_aggregates(statement)
    return bool(aggs) and all(a.func == "COUNT" and a.counts_items for a in aggs)


def _request_limit(
    statement: ast.Select,
    residual: list[ast.Condition],
    params: dict[str, Any],
    client_sort: bool,
) -> int | None:
    """Send Limit only where every item read is a row: no filter, nothing client-side."""
    if statement.limit is None or statement.is_aggregate or statement.distinct:
        return None
    if residual or "FilterExpression" in params or client_sort:
        return None
    return max(1, statement.limit)


def _scan_estimate(
    plan: Plan, statement: ast.Select, table: TableInfo, consistent: bool, pace: Decimal | None
) -> None:
    """A Scan reads the whole table, unless a pushed-down LIMIT stops it (each segment reads
    at most LIMIT items then); a size of 0 is DynamoDB's stale figure, not an empty table."""
    size = _avg_size(plan.access, table)
    limits = [r.max_items for r in plan.requests]
    if limits and all(n is not None for n in limits):
        limit = sum(n for n in limits if n is not None)
        bound = limit * plan.segments
        if not plan.estimate.items or bound < plan.estimate.items:
            rcu = _rcu(bound, size, consistent, plan.segments, pace, page_items=limit)
            basis = plan.estimate.basis
            plan.estimate = Estimate(bound, rcu, bound=f"LIMIT {statement.limit}", basis=basis)
            return
    if not plan.estimate.items:
        plan.estimate.known = False
    else:  # every segment reads its share of the pages, and its last page is its own
        plan.estimate.rcu = _rcu(plan.estimate.items, size, consistent, plan.segments, pace)


def _segments(table: TableInfo, path: IndexInfo, options: Options) -> int:
    if options.segments:
        items = path.item_count or table.item_count
        most = max(FREE_SEGMENTS, items)
        if options.segments > most:
            holds = (
                f"~{items} {plural(items, 'item')}"
                if items
                else f"an unknown size ({SIZE_UNKNOWN})"
            )
            raise PlanError(
                f"--segments {options.segments} is more than {table.name} can use: it has "
                f"{holds} and every segment is at least one request (0.5 RCU); use at most {most}"
            )
        return options.segments
    size = path.size_bytes or table.size_bytes
    return max(1, min(MAX_AUTO_SEGMENTS, size // SCAN_SEGMENT_BYTES))


def _client_steps(plan: Plan, statement: ast.Select, client_sort: bool, multi: bool) -> None:
    measures = dict.fromkeys(expression_text(m.func, m.args) for m in ast.item_measures(statement))
    if measures:
        plan.steps.append(
            f"{', '.join(measures)}: each whole item (every attribute read) sized client-side "
            "by DynamoDB's item-size rules"
        )
    residuals = [r for r in plan.requests if r.residual is not None]
    if residuals and plan.operation in ("Query", "Scan"):
        plan.steps.append("check conditions DynamoDB cannot evaluate here, client-side")
    computed = dict.fromkeys(
        sql_text(c) for r in residuals for c in K.conjuncts(r.residual) if _has_expression(c)
    )
    if computed:
        plan.steps.append(
            "WHERE expressions DynamoDB cannot evaluate, checked client-side: "
            + "; ".join(computed)
        )
    columns = [i.expr for i in statement.items or () if _has_expression(i.expr)]
    columns += [g for g in statement.group_by if _has_expression(g)]
    if columns:
        texts = dict.fromkeys(getattr(c, "text", "") for c in columns)
        plan.steps.append(f"compute {', '.join(texts)} client-side")
    if plan.operation in ("GetItem", "BatchGetItem") and statement.where is not None:
        plan.steps.append("check the WHERE on the items fetched")
    if plan.dedupe:
        plan.steps.append("merge the requests' items, dropping duplicates")
    if statement.is_aggregate:
        groups = ", ".join(p.text for p in statement.group_by)
        plan.steps.append(
            f"aggregate{' by ' + groups if groups else ''}"
            + (" (counts only)" if plan.count_only else "")
        )
        if statement.having is not None:
            plan.steps.append("HAVING")
    if statement.distinct:
        plan.steps.append("DISTINCT")
    if client_sort and statement.order_by:
        keys = ", ".join((o.expr.text) + (" DESC" if o.desc else "") for o in statement.order_by)
        how = f"top {statement.limit} (bounded heap)" if statement.limit is not None else "sort"
        plan.steps.append(f"{how} by {keys}, client-side in DynamoDB order")
        plan.sort = statement.order_by
    elif statement.order_by and multi:
        plan.sort = statement.order_by
        plan.steps.append("merge the requests' rows in key order")
    if statement.limit is not None:
        plan.steps.append(f"stop after {statement.limit} {plural(statement.limit, 'row')}")


def _has_expression(node: Any) -> bool:
    """Whether a condition or column holds a scalar expression (computed client-side)."""
    if isinstance(node, ast.Scalar | ast.Case):
        return True
    if isinstance(node, tuple):
        return any(_has_expression(x) for x in node)
    if isinstance(node, ast.Compare | ast.Between | ast.In | ast.And | ast.Or | ast.Not):
        return any(_has_expression(getattr(node, f)) for f in ast.field_names(type(node)))
    if isinstance(node, ast.Function):
        return _has_expression(node.arg)
    return False


def _reads(plan: Plan) -> str:
    bound = plan.estimate.bound
    return f"it reads items until {bound} is met" if bound else "it reads every item"


def _scan_warning(
    statement: ast.Select, table: TableInfo, plan: Plan, options: Options
) -> tuple[str, str | None]:
    """The warning a Scan gets, and the advice in it when an index would serve the WHERE
    (names in its SQL quoted where they need it: ``attribute_exists("GSI1-SK")``)."""
    target = plan.target
    hints = []
    excluded: list[str] = []
    for p in table.access_paths:
        where = "the table" if p.name is None else f"index {p.name}"
        if options.consistent and p.kind == "gsi":
            if _branches(statement, p) is not None:
                excluded.append(str(p.name))
            continue
        hints.append(f"{p.keys.pk} = … ({where})")
    sparse = [
        (p, gaps)
        for p in table.indexes
        if not (options.consistent and p.kind == "gsi")
        and statement.index is None
        and _branches(statement, p) is not None
        and (gaps := _sparse_gaps(statement, p, table))
    ]
    if sparse:
        p, gaps = sparse[0]
        need = " and ".join(gaps)
        advice = (
            f"index {p.name} would serve this WHERE, but it holds only items that have {need}; "
            f"add a condition on {need} (e.g. attribute_exists({quote(gaps[0])})) or name the "
            f"index (FROM {quote(table.name)}.{quote(str(p.name))})"
        )
        return f"Scan of {target}: {advice}. It reads every item ({plan.estimate.text()})", advice
    if excluded:
        names = ", ".join(excluded)
        advice = (
            f"GSI {names} would serve this WHERE, but --consistent rules out GSIs (they are "
            "eventually consistent only)"
        )
        return f"Scan of {target}: {advice}; {_reads(plan)} ({plan.estimate.text()})", advice
    why = "no condition on a partition key" if statement.where is not None else "no WHERE"
    return (
        f"Scan of {target}: {why}; {_reads(plan)} ({plan.estimate.text()}). "
        f"A Query needs one of: {'; '.join(hints)}"
    ), None


def plan_full_scan(
    table: TableInfo, index: str | None, options: Options = Options(), keys_only: bool = False
) -> Plan:
    """A Scan of every item (or index entry) of a table or index, for the hot-key report:
    whole items when it sizes them (WITH SIZES), else their partition key alone. A Scan is
    billed for whole items either way; the projection only spares the bytes sent and decoded."""
    path = table.index(index) if index else table.base
    if options.consistent and path.kind == "gsi":
        raise PlanError(
            f"index {path.name} is a GSI: GSIs only support eventually consistent reads"
        )
    consistent = options.consistent and path.kind != "gsi"
    params: dict[str, Any] = {"TableName": table.name}
    if path.name is not None:
        params["IndexName"] = path.name
    if keys_only:
        ph = Placeholders()
        params["ProjectionExpression"] = projection_text([_attr(path.keys.pk)], ph)
        ph.into(params)
    if consistent:
        params["ConsistentRead"] = True
    params["ReturnConsumedCapacity"] = "TOTAL"
    items = path.item_count or table.item_count
    segments = _segments(table, path, options)
    size = _avg_size(path, table)
    rcu = _rcu(items, size, consistent, segments, options.rate_limit) if items else Decimal("0.5")
    statement = ast.Select(table=table.name, index=index, items=None)
    return Plan(
        statement=statement,
        table=table,
        access=path,
        operation="Scan",
        requests=[Request("Scan", params)],
        estimate=Estimate(items, rcu, known=bool(items)),
        segments=segments,
        consistent=consistent,
    )


def plan_key_gets(table: TableInfo, keys: list[dict[str, Any]], consistent: bool = True) -> Plan:
    """One BatchGetItem of whole items by their full keys (decoded, distinct, at most 100):
    the images an overwrite is about to replace, read before it for the undo journal (COPY
    FROM). A key that matches nothing still costs a read unit."""
    if len(keys) > BATCH_GET_KEYS:
        raise PlanError(f"BatchGetItem takes at most {BATCH_GET_KEYS} keys, not {len(keys)}")
    return plan_gets(table, keys, consistent)


def plan_gets(
    table: TableInfo,
    keys: list[dict[str, Any]],
    consistent: bool = False,
    residual: ast.Condition | None = None,
) -> Plan:
    """Whole items by their full keys (decoded, distinct): BatchGetItem, 100 keys a call (the
    calls are sent side by side), each item checked against `residual` as it comes back. A
    key that matches nothing still costs a read unit."""
    wire = [values.encode_item(key) for key in keys]
    rcu = read_units(_avg_size(table.base, table), consistent) * len(keys)
    requests = [
        _batch_get(table, wire[start : start + BATCH_GET_KEYS], None, consistent, residual)
        for start in range(0, len(wire), BATCH_GET_KEYS)
    ]
    return Plan(
        statement=ast.Select(table=table.name, index=None, items=None, where=residual),
        table=table,
        access=table.base,
        operation="BatchGetItem" if requests else "Nothing",
        requests=requests,
        estimate=Estimate(len(keys), rcu),
        consistent=consistent,
    )
