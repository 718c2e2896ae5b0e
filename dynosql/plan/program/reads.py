"""The reading half of a generated program: one function per request (GetItem,
BatchGetItem, Query, Scan, a parallel or a sampled Scan), each yielding the typed items that
pass what DynamoDB did not check, and ``items()`` joining them as dynosql's reader does
(requests in turn, duplicates dropped, an index's entries fetched whole, a fallback read)."""

from __future__ import annotations

import textwrap
from typing import Any

from dynosql.plan.model import Plan, Request
from dynosql.plan.program.expressions import Env, condition

_METHODS = {"Query": "query", "Scan": "scan"}


def params_text(params: Any, indent: str) -> str:
    """A request's parameters (or a list) as Python source, one entry a line when long."""
    text = repr(params)
    if len(indent) + len(text) <= 80 or not isinstance(params, dict | list) or not params:
        return text
    inner = indent + "    "
    if isinstance(params, dict):
        entries = [f"{k!r}: {params_text(v, inner)}" for k, v in params.items()]
        return "{\n" + "".join(f"{inner}{e},\n" for e in entries) + indent + "}"
    if all(isinstance(v, int) for v in params):  # a list of segments: wrapped
        lines = textwrap.wrap(", ".join(map(str, params)), 88 - len(inner))
        return "[\n" + "".join(f"{inner}{line.rstrip(',')},\n" for line in lines) + indent + "]"
    entries = [params_text(v, inner) for v in params]
    return "[\n" + "".join(f"{inner}{e},\n" for e in entries) + indent + "]"


def reads(plan: Plan, env: Env, prefix: str = "") -> list[str]:
    """``def {prefix}items():`` and the functions it calls, one per request."""
    lines: list[str] = []
    names = []
    for n, request in enumerate(plan.requests, 1):
        name = f"{prefix}read_{n}"
        names.append(name)
        lines += _request(plan, request, name, env) + ["", ""]
    keys = list(plan.table.keys.names)
    lines.append(f"def {prefix}items():")
    lines.append(f'    """{_what(plan)}: the items, typed, checked."""')
    if plan.operation == "Nothing":
        lines += ["    return  # no item can match the WHERE: nothing is sent", "    yield"]
    elif plan.dedupe:
        env.use("hashable")
        lines.append(f"    seen = set()  # the requests may return one item twice: by key {keys}")
        lines.append(f"    for item in {_chain(names)}:")
        lines.append(f"        key = tuple(hashable(item.get(k)) for k in {keys!r})")
        lines += [
            "        if key not in seen:",
            "            seen.add(key)",
            "            yield item",
        ]
    else:
        lines += [f"    yield from {name}()" for name in names]
    if plan.then is not None:
        lines[:0] = reads(plan.then, env, "fallback_") + ["", ""]
        lines.append(
            "    # reached only when the rows above fell short of the LIMIT: the items the "
            "index cannot hold (they sort after every row it does hold)"
        )
        lines.append("    yield from fallback_items()")
    return lines


def _chain(names: list[str]) -> str:
    return "itertools.chain(" + ", ".join(f"{n}()" for n in names) + ")"


def _what(plan: Plan) -> str:
    return plan.label.replace('"', "'")


def _request(plan: Plan, request: Request, name: str, env: Env) -> list[str]:
    op = request.operation
    params = dict(request.params)
    keys = list(plan.table.keys.names)
    out = [f"def {name}():", f'    """{op} {_target(request)}."""']
    if op == "GetItem":
        out.append(f'    raw = client.get_item(**{params_text(params, "    ")}).get("Item")')
        out += ["    if raw is None:", "        return  # no such item"]
        body = ["item = typed(raw)"]
        indent = "    "
    elif op == "BatchGetItem":
        env.use("batch_get")
        items = params_text(params["RequestItems"], "    ")
        out.append(f"    for raw in batch_get({items}, {keys!r}):")
        body = ["item = typed(raw)"]
        indent = "        "
    else:
        out += _pages(plan, request, params, env)
        body = ["item = typed(raw)"]
        indent = "            "
    env.use("typed")
    if request.residual is not None:  # what DynamoDB did not check, with its meaning
        body += [f"if not {condition(request.residual, env)}:", "    continue"]
    body.append("yield item")
    if request.max_items is not None:  # a pushed-down LIMIT: every item read is a row
        out.insert(2, "    n = 0")
        body += ["n += 1", f"if n >= {request.max_items}:", "    return  # no more pages"]
    if op == "GetItem":  # no loop: `continue` means the item is not a row
        body = [b.replace("    continue", "    return") for b in body]
    out += [indent + b for b in body]
    return out


def _target(request: Request) -> str:
    params = request.params
    if request.operation == "BatchGetItem":
        return ", ".join(params["RequestItems"])
    index = params.get("IndexName")
    return str(params.get("TableName")) + (f" (index {index})" if index else "")


def _pages(plan: Plan, request: Request, params: dict[str, Any], env: Env) -> list[str]:
    """The loop over a Query's or Scan's responses, and over the items of each page (whole
    items fetched from the table when the index does not project them)."""
    text = params_text(params, "    ")
    if request.operation == "Scan" and plan.sample is not None:
        env.use("segments")
        which = params_text(list(plan.sample.segments), "    ")
        out = [
            f"    # the seeded sample's segments, of {plan.sample.total}",
            f"    sampled = {which}",
        ]
        out.append(f"    for _segment, page in segments({text}, sampled, {plan.sample.total}):")
    elif request.operation == "Scan" and plan.segments > 1:
        env.use("segments")
        total = plan.segments
        out = [f"    for _segment, page in segments({text}, range({total}), {total}):"]
    else:
        env.use("responses")
        out = [f'    for page in responses("{_METHODS[request.operation]}", {text}):']
    out.append('        found = page.get("Items", [])')
    out += _fetch(plan, env)
    out.append("        for raw in found:")
    return out


def _fetch(plan: Plan, env: Env) -> list[str]:
    """The whole items behind a page of index entries, when the index lacks attributes."""
    if plan.fetch is None:
        return []
    env.use("fetch")
    table = plan.table.name
    template = {k: v for k, v in plan.fetch.params["RequestItems"][table].items() if k != "Keys"}
    keys = list(plan.table.keys.names)
    return [
        f"        # {plan.access.name} does not project every attribute needed",
        f"        found = fetch(found, {table!r}, {params_text(template, '        ')}, {keys!r})",
    ]


def sampled_pages(plan: Plan, env: Env) -> list[str]:
    """``def pages():`` for a sampled Scan's aggregates: (the segment's place in the sample,
    items it scanned, its items that pass the checks), page by page."""
    assert plan.sample is not None and len(plan.requests) == 1
    request = plan.requests[0]
    env.use("segments", "typed")
    text = params_text(dict(request.params), "    ")
    out = [
        "def pages():",
        '    """The sampled segments\' pages: (index in the sample, items scanned, items)."""',
        f"    # the seeded sample's segments, of {plan.sample.total}",
        f"    sampled = {params_text(list(plan.sample.segments), '    ')}",
        f"    for segment, page in segments({text}, sampled, {plan.sample.total}):",
        '        found = page.get("Items", [])',
        *_fetch(plan, env),
        "        found = [typed(raw) for raw in found]",
    ]
    if request.residual is not None:
        out.append(
            f"        found = [item for item in found if {condition(request.residual, env)}]"
        )
    out.append('        scanned = page.get("ScannedCount", page.get("Count", 0))')
    out.append("        yield sampled.index(segment), scanned, found")
    return out


def counts(plan: Plan, env: Env) -> list[str]:
    """``def count():`` for a Select=COUNT plan: only counts come back, page by page."""
    out = ["def count():", '    """Select=COUNT: DynamoDB counts the items; none come back."""']
    out.append("    total = 0")
    for request in plan.requests:
        text = params_text(dict(request.params), "    ")
        if request.operation == "Scan" and plan.segments > 1:
            env.use("segments")
            n = plan.segments
            out.append(f"    for _segment, page in segments({text}, range({n}), {n}):")
        else:
            env.use("responses")
            out.append(f'    for page in responses("{_METHODS[request.operation]}", {text}):')
        out.append('        total += page["Count"]')
    out.append("    return total")
    return out
