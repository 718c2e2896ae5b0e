"""The client-side half of a generated program: ``rows()``, from the items to the
statement's rows, step by step as dynosql's evaluator takes them (dynosql/evaluate/pipeline.py):
ORDER BY (a true top-n under LIMIT), the select list, DISTINCT, LIMIT; or GROUP BY and the
aggregates, HAVING, ORDER BY, DISTINCT, LIMIT; a sample's estimates with their intervals."""

from __future__ import annotations

from typing import Any

from dynosql.evaluate.aggregate import collect_aggregates
from dynosql.evaluate.sample_stats import HIGH, LOW, scaled, with_intervals
from dynosql.plan.model import Plan
from dynosql.plan.program.expressions import Env, condition, value
from dynosql.sql import ast


def rows(plan: Plan, env: Env) -> list[str]:
    statement = plan.statement
    if plan.count_only or statement.is_aggregate:
        return _aggregate_rows(plan, env)
    out = ["def rows():", '    """The statement\'s rows, from the items read."""']
    out.append("    found = items()")
    limit = statement.limit
    if plan.sort:
        out += _order_by(plan.sort, env, "item")
        if limit is not None and not statement.distinct:
            env.use("order_key")
            out.append(f"    # a true top {limit}: every item is looked at, the best {limit} kept")
            out.append(f"    found = heapq.nsmallest({limit}, found, key=order_by)")
        else:
            out.append("    found = sorted(found, key=order_by)")
    out += _project(statement, env)
    out += _distinct_limit(statement, "found", env)
    return out


def _order_by(order: tuple[ast.OrderItem, ...], env: Env, row: str) -> list[str]:
    """``def order_by(row)``: the sort key (DynamoDB's order of values; without NULLS FIRST
    or LAST a missing value sorts last ascending, first descending)."""
    env.use("order_key")
    words = ", ".join(
        (o.expr.text if hasattr(o.expr, "text") else "…")
        + (" DESC" if o.desc else "")
        + (f" NULLS {o.nulls}" if o.nulls else "")
        for o in order
    )
    scoped = Env(row, env.group_by, env.helpers)
    out = ["", f"    def order_by({row}):", f'        """ORDER BY {words}."""', "        key = []"]
    for o in order:
        out.append(f"        v = {value(o.expr, scoped)}")
        if o.nulls:
            test = "v is MISSING or v is None"
            out.append(f"        key.append({test if o.nulls == 'LAST' else f'not ({test})'})")
        out.append(
            f"        key.append({'descending(order_key(v))' if o.desc else 'order_key(v)'})"
        )
    out.append("        return tuple(key)")
    out.append("")
    return out


def _project(statement: ast.Select, env: Env) -> list[str]:
    if statement.items is None:
        return ["    found = (dict(item) for item in found)  # SELECT *: the whole item"]
    out = [
        "",
        "    def select(item):",
        '        """The select list (a missing value: no column)."""',
    ]
    out += _columns(statement.items, env)
    out += ["", "    found = (select(item) for item in found)"]
    return out


def _columns(items: tuple[ast.SelectItem, ...], env: Env) -> list[str]:
    """The body of ``select()``: each column's value (a path or size() may have none)."""
    out = ["        row = {}"]
    for item in items:
        if isinstance(item.expr, ast.Path | ast.Size):
            out.append(f"        v = {value(item.expr, env)}")
            out.append(f"        if v is not MISSING:\n            row[{item.name!r}] = v")
        else:
            out.append(f"        row[{item.name!r}] = {value(item.expr, env)}")
    out.append("        return row")
    env.use("at")
    return out


def _distinct_limit(statement: ast.Select, name: str, env: Env) -> list[str]:
    out = []
    if statement.distinct:
        env.use("hashable")
        out += [
            "    seen = set()  # DISTINCT: a row once, by its columns' types and values",
            f"    for row in {name}:",
            "        key = tuple(sorted((k, hashable(v)) for k, v in row.items()))",
            "        if key in seen:",
            "            continue",
            "        seen.add(key)",
        ]
    else:
        out.append(f"    for row in {name}:")
    if statement.limit is not None:
        out = ["    count = 0", *out]
        out += [
            f"        if count == {statement.limit}:",
            "            return",
            "        count += 1",
        ]
    out.append("        yield row")
    return out


# --- aggregates ----------------------------------------------------------------------------------


def _aggregate_rows(plan: Plan, env: Env) -> list[str]:
    statement = plan.statement
    aggs = collect_aggregates(statement)
    sample = plan.sample
    shown = with_intervals(statement) if sample is not None else statement
    genv = env.on_groups(statement.group_by)
    out: list[str] = []
    if plan.count_only:
        body = ["    total = Decimal(count())"]
        body.append(
            "    groups = [{" + ", ".join(f"{a.text!r}: total" for a in aggs) + ', "by": ()}]'
        )
        env.use("kind")
    else:
        out += _states(statement, aggs, env) + [""]
        if sample is not None:
            body = _sampled_groups(plan, aggs, env)
        else:
            body = _groups(statement, env)
    out += ["def rows():", '    """The groups, then the statement\'s rows from them."""', *body]
    if statement.having is not None:
        out.append(
            f"    # HAVING\n    groups = [group for group in groups if {condition(statement.having, genv)}]"
        )
    if statement.order_by:
        out += _order_by(statement.order_by, genv, "group")
        limit = statement.limit
        if limit is not None and not statement.distinct:
            out.append(f"    groups = heapq.nsmallest({limit}, groups, key=order_by)")
        else:
            out.append("    groups = sorted(groups, key=order_by)")
    out += ["", "    def select(group):", '        """The select list, over a group."""']
    out += _columns(shown.items or (), genv)
    out += ["", "    found = (select(group) for group in groups)"]
    env.use("at", "hashable")
    out += _distinct_limit(shown, "found", env)
    return out


def _states(statement: ast.Select, aggs: list[ast.Aggregate], env: Env) -> list[str]:
    """``new_state()``, ``add(state, item)`` and ``final(state)``: each aggregate's running
    state in a group, an item added to it, and its value at the end."""
    env.use("aggregates", "at", "order_key", "hashable")
    new = [
        "def new_state():",
        '    """Each aggregate\'s running state in one group."""',
        "    return {",
    ]
    add = ["def add(state, item):", '    """One item into a group\'s aggregates."""']
    final = ["def final(state):", '    """The aggregates\' values from their states."""']
    final.append("    out = {}")
    for a in aggs:
        t = repr(a.text)
        if a.counts_items:
            new.append(f"        {t}: 0,")
            add.append(f"    state[{t}] += 1")
            final.append(f"    out[{t}] = Decimal(state[{t}])")
            continue
        arg = value(a.arg, env) if a.path is None else value(a.path, env)
        add.append(f"    v = {arg}  # {a.text}: missing and NULL values are skipped")
        if a.func == "COUNT" and not a.distinct:
            new.append(f"        {t}: 0,")
            add.append(f"    if v is not MISSING and v is not None:\n        state[{t}] += 1")
            final.append(f"    out[{t}] = Decimal(state[{t}])")
        elif a.func == "COUNT":
            new.append(f"        {t}: set(),")
            add.append(
                f"    if v is not MISSING and v is not None:\n        state[{t}].add(hashable(v))"
            )
            final.append(f"    out[{t}] = Decimal(len(state[{t}]))")
        elif a.func in ("SUM", "AVG") and a.distinct:
            new.append(f"        {t}: set(),")
            add.append(
                f"    if kind(v) == 'N':  # numbers only\n        state[{t}].add(v.normalize(EXACT))"
            )
            total = f"exact_sum(state[{t}])"
            n = f"len(state[{t}])"
            final.append(_final_sum(a, t, total, n))
        elif a.func in ("SUM", "AVG"):
            new.append(f"        {t}: [Decimal(0), 0],  # the sum of the numbers, how many")
            add.append("    if kind(v) == 'N':  # numbers only, exactly")
            add.append(f"        state[{t}] = [EXACT.add(state[{t}][0], v), state[{t}][1] + 1]")
            final.append(_final_sum(a, t, f"state[{t}][0]", f"state[{t}][1]"))
        else:
            better = "<" if a.func == "MIN" else ">"
            new.append(f"        {t}: MISSING,")
            add.append(
                f"    if v is not MISSING and v is not None and (\n"
                f"        state[{t}] is MISSING or order_key(v) {better} order_key(state[{t}])\n"
                f"    ):\n        state[{t}] = v"
            )
            final.append(f"    out[{t}] = None if state[{t}] is MISSING else state[{t}]")
    new.append("    }")
    final.append("    return out")
    return [*new, "", "", *add, "", "", *final, ""]


def _final_sum(a: ast.Aggregate, t: str, total: str, n: str) -> str:
    if a.func == "SUM":
        return f"    out[{t}] = {total} if {n} else None  # NULL over no numbers"
    return f"    out[{t}] = AVERAGE.divide({total}, Decimal({n})) if {n} else None"


def _group_key(statement: ast.Select, env: Env) -> list[str]:
    by = ", ".join(value(g, env) for g in statement.group_by)
    return [
        f"        by = ({by}{',' if len(statement.group_by) == 1 else ''})  # GROUP BY",
        "        key = tuple(hashable(v) for v in by)",
    ]


def _groups(statement: ast.Select, env: Env) -> list[str]:
    out = ["    groups = {}  # by the GROUP BY values: [those values, the aggregates' state]"]
    out.append("    for item in items():")
    out += _group_key(statement, env)
    out += [
        "        if key not in groups:",
        "            groups[key] = [by, new_state()]",
        "        add(groups[key][1], item)",
    ]
    if not statement.group_by:
        out += ["    if not groups:  # no GROUP BY: one group, even over no items"]
        out += ["        groups[()] = [(), new_state()]"]
    out.append('    groups = [{**final(state), "by": by} for by, state in groups.values()]')
    return out


def _sampled_groups(plan: Plan, aggs: list[ast.Aggregate], env: Env) -> list[str]:
    """The groups of a sampled Scan: each aggregate over the sample, and COUNT, SUM and AVG
    estimated for the table from their per-segment totals (a cluster sample)."""
    statement = plan.statement
    assert plan.sample is not None
    env.use("estimates")
    spec = plan.sample
    out = [
        f"    scanned = [0] * {spec.k}  # items each sampled segment scanned",
        "    groups = {}  # by GROUP BY values: [values, state over the sample, {segment: state}]",
        "    for segment, n, found in pages():",
        "        scanned[segment] += n",
        "        for item in found:",
    ]
    out += ["    " + line for line in _group_key(statement, env)]
    out += [
        "            if key not in groups:",
        "                groups[key] = [by, new_state(), {}]",
        "            add(groups[key][1], item)",
        "            add(groups[key][2].setdefault(segment, new_state()), item)",
    ]
    if not statement.group_by:
        out += ["    if not groups:", "        groups[()] = [(), new_state(), {}]"]
    out.append("    scanned = [Decimal(n) for n in scanned]")
    out.append("    estimated = []")
    out.append("    for by, whole, per_segment in groups.values():")
    out.append('        group = {**final(whole), "by": by}')
    for a in aggs:
        if not scaled(a):
            continue  # MIN, MAX and DISTINCT: the sample's own values
        t = repr(a.text)
        args = f"scanned, {spec.total}, {spec.table_items}"
        if a.func == "COUNT":
            ys = f"{{i: Decimal(s[{t}]) for i, s in per_segment.items() if s[{t}]}}"
            out.append(f"        counts = {ys}")
            out.append(f"        iv = whole_count(estimate_total(counts, {args}), whole[{t}])")
        else:
            sums = f"{{i: s[{t}][0] for i, s in per_segment.items() if s[{t}][1]}}"
            out.append(f"        sums = {sums}")
            if a.func == "SUM":
                out.append(
                    "        places = min((v.as_tuple().exponent for v in sums.values()), default=0)"
                )
                out.append(f"        iv = None if group[{t}] is None else at_precision(")
                out.append(f"            estimate_total(sums, {args}), min(0, places)")
                out.append("        )")
            else:
                numbers = f"{{i: Decimal(s[{t}][1]) for i, s in per_segment.items() if s[{t}][1]}}"
                out.append(f"        numbers = {numbers}")
                out.append(f"        iv = None if group[{t}] is None else estimate_ratio(")
                out.append(f"            sums, numbers, {spec.k}, {spec.total}")
                out.append("        )")
        out.append(f"        group[{t}], group[{a.text + LOW!r}], group[{a.text + HIGH!r}] = (")
        out.append("            (None, None, None) if iv is None else iv")
        out.append("        )")
    out.append("        estimated.append(group)")
    out.append("    groups = estimated")
    return out


def sampled(plan: Plan) -> bool:
    return plan.sample is not None and (plan.statement.is_aggregate or plan.count_only)


__all__: list[Any] = ["rows", "sampled"]
