"""SHOW HOT KEYS: which partition-key values hold the most items (stored skew), and with
``WITH SIZES`` the most bytes.

It scans the table (or index) once, in parallel segments where the table is large, and keeps
one counter per key: memory grows with the number of keys, not of items. Without WITH SIZES the
Scan projects the partition key alone and each page is counted by its keys' wire form, as the
GROUP BY of the partition key is (`count_groups.count_wire`): a Scan is billed for whole items
whether projected or not, so the RCU are the same, but the client receives and reads an eighth
of the bytes. WITH SIZES reads whole items and sizes them off the page bytes
(`dynosql.dynamo.wiretally`). It measures what is stored, not traffic: for traffic, CloudWatch
Contributor Insights is the tool, and the report says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.dynamo.wiretally import KeyTally
from dynosql.errors import PlanError, SqlError
from dynosql.evaluate import count_groups
from dynosql.evaluate.predicate import operand_value
from dynosql.guards import READS
from dynosql.plan.expressions import paths_in
from dynosql.plan.model import Plan
from dynosql.plan.observed import MAX_PARTITIONS, Found, Partition
from dynosql.position import NOWHERE, Pos
from dynosql.result import Changes, Result, Stats, plural
from dynosql.sql import ast
from dynosql.sql.keywords import Starter, show_refused
from dynosql.sql.split import QUALIFIED, Chunk, unquote
from dynosql.statements.kind import Kind, Planned, ScanCheck, named
from dynosql.values import read_units

if TYPE_CHECKING:
    from dynosql.context import Context

DEFAULT_LIMIT = 20
ITEM_COLLECTION_LIMIT = 10 * 1024**3  # 10 GB per partition-key value when the table has an LSI
PARTITION_RCU = 3000  # a partition serves at most 3,000 RCU (1,000 WCU) per second
PARTITION_WCU = 1000
BAR_WIDTH = 30
NEAR = 0.8  # "near a limit" from 80% of it
MAX_KEY_NOTES = 5


@dataclass(frozen=True)
class ShowHotKeys(ast.Statement, table_only=True):
    table: str
    index: str | None = None
    limit: int | None = None  # a Param until bound
    pos: Pos = field(default=NOWHERE, compare=False)
    sample: ast.Sample | None = None  # SAMPLE p PERCENT: a key sample, not a full Scan
    # BY <expression> of the partition key: write-sharded keys summed to their logical key
    by: Any = None
    # WITH SIZES: each key's bytes and RCU too, read off whole items (without it the Scan
    # projects the partition key alone: the same RCU, a fraction of the client's work)
    sizes: bool = False


_SHOW_HOT_KEYS = re.compile(
    rf"\s*SHOW\s+HOT\s+KEYS\s+FROM\s+{QUALIFIED}"
    r"(?:\s+BY\s+(.+?))??"
    r"(\s+WITH\s+SIZES)?"
    r"(?:\s+SAMPLE\s+(\S+)\s+PERCENT(?:\s+REPEATABLE\s*\(\s*(\S+?)\s*\))?)?"
    r"(?:\s+LIMIT\s+(\d+))?\s*$",
    re.I,
)


def parse_show_hot_keys(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ShowHotKeys:
    """``SHOW HOT KEYS FROM t[.index] [BY expression] [WITH SIZES] [SAMPLE p PERCENT
    [REPEATABLE (seed)]] [LIMIT n]``."""
    m = _SHOW_HOT_KEYS.match(code)
    if m is None:
        raise show_refused(code, position)
    sample = None
    if m.group(5):
        from dynosql.sql.convert import check_percent, check_seed

        at = position(m.start(5))
        sample = ast.Sample(check_percent(m.group(5), at), check_seed(m.group(6), at), at)
    return ShowHotKeys(
        unquote(m.group(1)),
        unquote(m.group(2)) if m.group(2) else None,
        int(m.group(7)) if m.group(7) else None,
        position(m.start(1)),
        sample,
        _by(chunk, m.start(3), m.end(3), position) if m.group(3) else None,
        sizes=bool(m.group(4)),
    )


def _by(chunk: Chunk, start: int, end: int, position: Callable[[int], Pos]) -> Any:
    """The expression of ``SHOW HOT KEYS FROM t BY <expression>``, read as a select-list
    item where it stands (positions stay the user's): a path or a scalar expression."""
    from dynosql.sql.select_parse import parse_select

    text = chunk.text
    head = "SELECT" + "".join(c if c == "\n" else " " for c in text[6:start])
    statement = parse_select(Chunk(head + text[start:end] + " FROM t", chunk.line, chunk.col))
    assert statement.items is not None
    expr = statement.items[0].expr
    at = position(start)
    if statement.is_aggregate or len(statement.items) != 1:
        raise SqlError("SHOW HOT KEYS … BY takes one expression, no aggregate", at.line, at.col)
    if ast.item_measures(expr):
        raise SqlError(
            "SHOW HOT KEYS … BY takes an expression of the partition key; WITH SIZES sums "
            "each key's bytes (or: SELECT pk, SUM(ITEM_SIZE()) … GROUP BY pk)",
            at.line,
            at.col,
        )
    return expr


def plan_of(ctx: Context, statement: ShowHotKeys) -> Plan:
    """The Scan of every item of the table or index (their partition key alone unless WITH
    SIZES); with SAMPLE, of the sampled segments."""
    plan = ctx.full_scan_plan(statement.table, statement.index, keys_only=not statement.sizes)
    if statement.sample is not None:
        from dynosql.plan.sample import apply_sample

        plan = apply_sample(plan, statement.sample)
    return plan


def hot_keys(ctx: Context, statement: ShowHotKeys, plan: Plan) -> Result:
    stats = Stats(expected_items=plan.estimate.items or None)
    limit = statement.limit if statement.limit is not None else DEFAULT_LIMIT
    if statement.by is not None:
        return _by_logical_key(ctx, plan, stats, limit, statement.by, statement.sizes)
    result = Result(
        ["key", "items", "bytes", "share", "rcu", "bar"]
        if statement.sizes
        else ["key", "items", "share", "bar"],
        iter(()),
        stats,
        warnings=[
            f"SHOW HOT KEYS reads every item of {plan.label.split(' ', 1)[1]} ({plan.estimate.text()})"
        ],
        human_only=("bar",),
    )
    result.rows = _rows(ctx, plan, stats, limit, result, statement.sizes)
    return result


def _rows(
    ctx: Context, plan: Plan, stats: Stats, limit: int, result: Result, sizes: bool
) -> Iterator[dict[str, Any]]:
    ranked = count_groups.hottest_first(_count(ctx, plan, stats, sizes))
    total = sum(e[1] for e in ranked) or 1
    top = ranked[0][1] if ranked else 1
    # every key counted holds its whole collection (a sampled segment holds whole keys too):
    # later estimates stand on them (plan/observed.py)
    table, index = plan.table.name, plan.access.name
    if plan.sample is None:
        every = tuple((key, items, size) for key, items, size in ranked)
        stats.change(Changes(observed=(Found(table, index, every=every),)))
    else:
        found = tuple(
            Found(table, index, key, Partition(items, size))
            for key, items, size in ranked[:MAX_PARTITIONS]
            if key is not None
        )
        stats.change(Changes(observed=found))
    result.notes.extend(_notes(plan, ranked, total, sizes))
    consistent = plan.consistent
    for key, items, size in ranked[:limit]:
        share = (Decimal(items) / Decimal(total)).quantize(Decimal("0.0001"))
        row = {"key": key, "items": Decimal(items), "share": share}
        if sizes:
            row["bytes"] = Decimal(size)
            row["rcu"] = read_units(size, consistent)
        row["bar"] = "█" * max(1, round(BAR_WIDTH * items / top))
        yield row


def _by_logical_key(
    ctx: Context, plan: Plan, stats: Stats, limit: int, by: Any, sizes: bool
) -> Result:
    """``SHOW HOT KEYS FROM t BY SPLIT_PART(pk, '#', 1)``: the write shards of a logical key
    (``tenant-7#0`` … ``tenant-7#9``) summed back to it, with their count. The Scan and its
    per-key tally are the plain report's; the expression maps each partition-key value to its
    logical key afterwards (one evaluation per distinct key, not per item)."""
    pk = plan.access.keys.pk
    _check_by(pk, by)
    result = Result(
        ["key", "shards", "items", "bytes", "share", "rcu", "bar"]
        if sizes
        else ["key", "shards", "items", "share", "bar"],
        iter(()),
        stats,
        warnings=[
            f"SHOW HOT KEYS reads every item of {plan.label.split(' ', 1)[1]} ({plan.estimate.text()})"
        ],
        human_only=("bar",),
        title=f"logical keys: {getattr(by, 'text', pk)} of {pk}",
    )
    result.rows = _logical_rows(ctx, plan, stats, limit, result, by, sizes)
    return result


def _logical_rows(
    ctx: Context, plan: Plan, stats: Stats, limit: int, result: Result, by: Any, sizes: bool
) -> Iterator[dict[str, Any]]:
    consistent = plan.consistent
    logical_of = _logical_of(plan.access.keys.pk, by)
    logical: dict[Any, list[Any]] = {}  # hashable key -> [key, items, bytes, shards, rcu, top]
    for value, items, size in _count(ctx, plan, stats, sizes):
        key = logical_of(value)
        entry = logical.setdefault(
            values.hashable(key), [key, 0, 0 if sizes else None, 0, Decimal(0), 0]
        )
        entry[1] += items
        if sizes:
            entry[2] += size
            entry[4] += read_units(size, consistent)  # each shard is read by its own Query
        entry[3] += 1
        entry[5] = max(entry[5], items)
    ranked = count_groups.hottest_first(logical.values())
    total = sum(e[1] for e in ranked) or 1
    top = ranked[0][1] if ranked else 1
    result.notes.extend(_notes(plan, [e[:3] for e in ranked], total, sizes, logical=True))
    result.notes.extend(_shard_notes(ranked))
    for key, items, size, shards, rcu, _most in ranked[:limit]:
        row = {"key": key, "shards": Decimal(shards), "items": Decimal(items)}
        if sizes:
            row["bytes"] = Decimal(size)
        row["share"] = (Decimal(items) / Decimal(total)).quantize(Decimal("0.0001"))
        if sizes:
            row["rcu"] = rcu
        row["bar"] = "█" * max(1, round(BAR_WIDTH * items / top))
        yield row


def _check_by(pk: str, by: Any) -> None:
    other = [p.text for p in paths_in(by) if p.elements != (pk,)]
    if other:
        raise PlanError(
            f"SHOW HOT KEYS … BY takes an expression of the partition key {pk}, not {other[0]}"
        )


def _logical_of(pk: str, by: Any) -> Callable[[Any], Any]:
    """The BY expression as a map from a partition-key value (None or MISSING: an item
    without one, as an index may hold) to its logical key (None where the expression is)."""

    def logical(value: Any) -> Any:
        absent = value is None or value is values.MISSING
        key = operand_value(by, {} if absent else {pk: value})
        return None if key is values.MISSING else key

    return logical


def _sampled_by_logical_key(ctx: Context, statement: ShowHotKeys, plan: Plan) -> Result:
    """``SHOW HOT KEYS FROM t BY <expr> SAMPLE p PERCENT``: the logical keys of the sampled
    segments, their shards, items and bytes estimated for the table with 95% intervals
    (`dynosql.evaluate.sample_stats.logical_key_sample`)."""
    from dynosql.evaluate.sample_stats import CONFIDENCE, logical_key_sample, scaling_text

    assert plan.sample is not None and statement.by is not None
    spec, by, pk = plan.sample, statement.by, plan.access.keys.pk
    _check_by(pk, by)
    stats = Stats(expected_items=plan.estimate.items or None)
    limit = statement.limit if statement.limit is not None else DEFAULT_LIMIT
    target = plan.target
    percent = format(spec.percent.normalize(), "f")
    sized = statement.sizes
    result = Result(
        ["key", "shards", "shards low", "shards high", "items", "items low", "items high"]
        + (["bytes", "bar"] if sized else ["bar"]),
        iter(()),
        stats,
        warnings=list(plan.warnings),
        human_only=("bar",),
        title=(
            f"logical keys: {getattr(by, 'text', pk)} of {pk}, estimated from {spec.k} of "
            f"{spec.total} segments of {target} (seed {spec.seed})"
        ),
    )
    how = scaling_text(spec)
    result.notes.extend(
        [
            f"SAMPLE {percent} PERCENT: read {spec.k} of {spec.total} Scan segments (seed "
            f"{spec.seed}; repeat with REPEATABLE ({spec.seed})).",
            f"shards, items{' and bytes' if sized else ''} are estimates for the whole table "
            f"with {CONFIDENCE:.0%} confidence intervals ('… low', '… high' columns"
            f"{'; those of bytes in the JSON document' if sized else ''}): items"
            f"{' and bytes' if sized else ''} {how}, shards scaled by {spec.total}/{spec.k} (each shard lies in one "
            "segment, as SHOW HOT KEYS … SAMPLE counts keys). A logical key's shards hash into "
            "segments of their own, so its items spread over the segments and scale; a "
            "logical key of one shard is sampled whole or not at all (a wide interval), and "
            "one none of whose shards was sampled is missing.",
            *_notes(plan, [], 1, statement.sizes),
        ]
    )

    def rows() -> Iterator[dict[str, Any]]:
        ranked = logical_key_sample(ctx.pages(plan, stats), pk, _logical_of(pk, by), spec, sized)
        result.document = {
            "sample": spec.document(),
            "logical_keys": [
                {
                    "key": e.key,
                    **{
                        name: {"estimate": iv.estimate, "low": iv.low, "high": iv.high}
                        for name, iv in (
                            ("shards", e.shards),
                            ("items", e.items),
                            ("bytes", e.size),
                        )
                        if iv is not None
                    },
                    "sampled_shards": e.sampled_shards,
                    "sampled_items": e.sampled_items,
                }
                for e in ranked
            ],
        }
        for e in ranked[:MAX_KEY_NOTES]:
            if e.sampled_shards >= 2:
                result.notes.append(
                    f"{e.key}: {e.sampled_shards} of its shards sampled (~{e.shards.estimate} in "
                    f"the table); its largest sampled shard holds "
                    f"{e.largest_shard / e.sampled_items:.0%} of its sampled items (even: "
                    f"{1 / e.sampled_shards:.0%})"
                )
        top = ranked[0].items.estimate if ranked else 1
        for e in ranked[:limit]:
            row = {
                "key": e.key,
                "shards": e.shards.estimate,
                "shards low": e.shards.low,
                "shards high": e.shards.high,
                "items": e.items.estimate,
                "items low": e.items.low,
                "items high": e.items.high,
            }
            if e.size is not None:
                row["bytes"] = e.size.estimate
            row["bar"] = "█" * max(1, round(BAR_WIDTH * e.items.estimate / (top or 1)))
            yield row

    result.rows = rows()
    return result


def _shard_notes(ranked: list[list[Any]]) -> list[str]:
    """Where a logical key's shards spread: each partition-key value hashes on its own, so n
    shards can use up to n partitions; an uneven split keeps its busiest shard hot."""
    notes = []
    for key, items, _size, shards, _rcu, most in ranked[:MAX_KEY_NOTES]:
        if shards < 2:
            continue
        notes.append(
            f"{key}: {shards} shards can spread over up to {shards} partitions (each serves "
            f"{PARTITION_RCU:,} RCU and {PARTITION_WCU:,} WCU per second: up to "
            f"{shards * PARTITION_WCU:,} WCU/s together); its largest shard holds "
            f"{most / items:.0%} of its items (even: {1 / shards:.0%})"
        )
    return notes


def _count(ctx: Context, plan: Plan, stats: Stats, sizes: bool) -> list[list[Any]]:
    """[key value, items, bytes (None unless `sizes`)] per partition-key value."""
    return _sized(ctx, plan, stats) if sizes else _keys(ctx, plan, stats)


def _keys(ctx: Context, plan: Plan, stats: Stats) -> list[list[Any]]:
    """Items per partition-key value, each page counted by its keys' wire form where it was
    read (the GROUP BY's counter); only the distinct keys are decoded."""
    pk = plan.access.keys.pk
    counts: dict[Any, list[Any]] = {}

    def fold(key: tuple[Any, ...], n: int) -> None:
        value = key[0]
        _add(
            counts,
            [(values.hashable(value), [None if value is values.MISSING else value, n, None])],
        )

    pages = ctx.read_wire_pages(plan, stats, count_groups.count_wire((pk,)))
    # a page comes back decoded only when a key holds a list, map or set: never a key's type
    for item in count_groups.count_pages(count_groups.WirePages(pages), fold):
        fold((item.get(pk, values.MISSING),), 1)
    return list(counts.values())


def _sized(ctx: Context, plan: Plan, stats: Stats) -> list[list[Any]]:
    """[key value, items, bytes] per partition-key value. A page is read off its bytes where
    `dynosql.dynamo.wiretally` can; else its items stay in the wire form: only the distinct keys
    are decoded, and sizes come from `dynosql.dynamo.wiresize`."""
    pk = plan.access.keys.pk

    def tally(items: list[dict[str, Any]], sizes: list[int] | None) -> dict[Any, list[Any]]:
        """One page's counts (in the thread that read it: the page is dropped after)."""
        assert sizes is not None  # a full Scan of whole items: no projection, no filter
        counts: dict[Any, list[Any]] = {}  # the key's wire form as a tuple -> [wire, items, bytes]
        for item, size in zip(items, sizes, strict=True):
            wire = item.get(pk)
            # a key attribute is S, N or B: its type and text are hashable as they are
            key = None if wire is None else tuple(wire.items())
            entry = counts.get(key)
            if entry is None:
                entry = counts[key] = [wire, 0, 0]
            entry[1] += 1
            entry[2] += size
        return counts

    counts: dict[Any, list[Any]] = {}
    for page in ctx.read_wire_pages(plan, stats, tally, KeyTally(pk)):
        _add(counts, page.items())
    merged: dict[Any, list[Any]] = {}  # one entry per value (two spellings of a number are one)
    _add(
        merged,
        (
            (values.hashable(values.MISSING if wire is None else value), [value, items, size])
            for wire, items, size in counts.values()
            for value in [None if wire is None else values.decode(wire)]
        ),
    )
    return list(merged.values())


def _add(into: dict[Any, list[Any]], entries: Iterable[tuple[Any, list[Any]]]) -> None:
    """Sum [value, items, bytes] entries into `into` by key."""
    for key, (value, items, size) in entries:
        entry = into.get(key)
        if entry is None:
            into[key] = [value, items, size]
        else:
            entry[1] += items
            if size is not None:
                entry[2] += size


def _notes(
    plan: Plan, ranked: list[Any], total: int, sized: bool, logical: bool = False
) -> list[str]:
    """The report's notes; over logical keys (BY) the cardinality note is left to the shard
    notes (few logical keys is what sharding is for). `ranked` holds [key, items, bytes], the
    bytes None unless `sized` (WITH SIZES)."""
    notes = [
        f"This measures stored skew ({'items and bytes' if sized else 'items'} per partition "
        "key), not traffic. For the keys that receive the most reads and writes, enable "
        "CloudWatch Contributor Insights for DynamoDB on this table."
    ]
    distinct = len(ranked)
    if ranked:
        top_n = max(1, distinct // 100)
        top_share = sum(e[1] for e in ranked[:top_n]) / total
        if not logical and (distinct <= 10 or top_share >= 0.5):
            notes.append(
                f"low cardinality: {distinct} distinct {plan.access.keys.pk} "
                f"{plural(distinct, 'value')}; the top "
                f"{top_n} {plural(top_n, 'holds', 'hold')} {top_share:.0%} of the items. Requests for those keys all land on "
                "the same partitions: consider a higher-cardinality key or write sharding."
            )
    has_lsi = any(ix.kind == "lsi" for ix in plan.table.indexes)
    if not sized:
        notes.append(
            "bytes and RCU per key: add WITH SIZES. It reads whole items: the same RCU (a Scan "
            "is billed for the items it reads, whatever it returns), but the whole items' bytes "
            "over the network and about four times the client's CPU"
            + (
                "; it also checks each key's item collection against the 10 GB limit of "
                "tables with a local secondary index"
                if has_lsi
                else ""
            )
        )
    flagged = []
    for key, _items, size in ranked if sized else ():
        if has_lsi and size >= ITEM_COLLECTION_LIMIT * NEAR:
            flagged.append(
                f"key {key!s}: item collection {size} bytes is near the 10 GB limit of tables "
                "with a local secondary index"
            )
        if read_units(size, True) >= PARTITION_RCU * NEAR:
            flagged.append(
                f"key {key!s}: reading its whole item collection takes "
                f"{read_units(size, True)} RCU, near or above the 3,000 RCU one partition "
                "serves per second"
            )
    flagged.extend(_share_limits(plan.table, ranked, total))
    notes.extend(flagged[:MAX_KEY_NOTES])
    if len(flagged) > MAX_KEY_NOTES:
        notes.append(f"… and {len(flagged) - MAX_KEY_NOTES} more keys near a partition limit")
    return notes


def _share_limits(table, ranked: list[Any], total: int) -> list[str]:  # noqa: ANN001 - TableInfo
    """Keys whose measured share of the items, applied to the table's provisioned throughput,
    would pass what one partition serves (traffic assumed to follow the stored share)."""
    flagged = []
    for key, items, _size in ranked:
        share = items / total
        for provisioned, limit, unit in (
            (table.provisioned_rcu, PARTITION_RCU, "RCU"),
            (table.provisioned_wcu, PARTITION_WCU, "WCU"),
        ):
            if provisioned and share * provisioned >= limit * NEAR:
                flagged.append(
                    f"key {key!s}: at its measured share ({share:.0%}) of the table's "
                    f"{provisioned} provisioned {unit} it would receive ~{share * provisioned:.0f} "
                    f"{unit}/s, near or above the {limit:,} {unit} one partition serves"
                )
    return flagged


# --- the kind ------------------------------------------------------------------------------


def _run(ctx: Context, planned: Planned[ShowHotKeys]) -> Result:
    statement, plan = planned.statement, planned.plan
    if statement.sample is not None:
        from dynosql.statements.tablesample import sampled_hot_keys

        if statement.by is not None:
            return _sampled_by_logical_key(ctx, statement, plan)
        limit = statement.limit if statement.limit is not None else DEFAULT_LIMIT
        return sampled_hot_keys(ctx, plan, limit, statement.sizes)
    return hot_keys(ctx, statement, plan)


def _plan(ctx: Context, statement: ShowHotKeys, _explaining: bool) -> Planned[ShowHotKeys]:
    """The Scan it sends; a SAMPLE's seed drawn here, once (EXPLAIN shows it, the run reads
    those segments)."""
    if statement.sample is not None:
        from dynosql.statements.tablesample import seeded

        statement = seeded(statement)
    plan = plan_of(ctx, statement)
    return Planned(statement, plan, (ScanCheck(plan, [], "SHOW HOT KEYS"),))


STARTERS = (
    Starter(
        "SHOW HOT KEYS",
        "SHOW HOT KEYS FROM",
        parser=parse_show_hot_keys,
        usage="SHOW HOT KEYS FROM table",
    ),
)
KINDS = {
    ShowHotKeys: Kind(
        named("SHOW HOT KEYS"),
        _run,
        lambda _s: READS,
        plan=_plan,
        example=("SHOW HOT KEYS FROM {t}",),
    )
}
