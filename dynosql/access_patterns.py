"""``dynosql --explain -f patterns.sql``: a team's access patterns as a checked list.

Every statement of the script is planned, not run: one row each with the pattern's name (the
statement's leading comment), the operation, the table and index, the key condition, the
estimated RCU (and WCU for a write) and whether it would Scan. No item is read or written:
only DescribeTable is sent (the plans' table descriptions); ``SET`` and ``CREATE``/``DROP
ENTITY`` run, since they change the plans that follow (CREATE ENTITY also asks ListTables,
once: an entity may not be named like a table). A team keeps
its patterns in a ``.sql`` file and runs this in CI: the exit code is 3 when any pattern would
Scan, 1 when one cannot be planned (both named on stderr), else 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TextIO

from dynosql import values
from dynosql.errors import DynosqlError, GuardError
from dynosql.result import Result, Row
from dynosql.sql import ast, split_script
from dynosql.sql.split import Chunk, leading_comment, strip_comments
from dynosql.sql.text import sql_text
from dynosql.statements.setting import SetOption

if TYPE_CHECKING:
    from dynosql.session import Session

COLUMNS = ["line", "pattern", "operation", "table", "index", "key condition", "rcu", "wcu", "scan"]
# statements that change only the session (no item is read or written): run as they come, not
# listed — a setting, and the entities the patterns after them read through
RUN_AS_IS: tuple[type, ...] = (SetOption, ast.CreateEntity, ast.DropEntity)


@dataclass(frozen=True)
class Named:
    """Where a statement starts (its first code, 1-based line) and its leading comment."""

    line: int
    name: str


def named(script: str) -> list[Named]:
    """One `Named` per statement of `script`, in the order ``parse_script`` returns them."""
    return [_named(chunk) for chunk in split_script(script.removeprefix("\ufeff"))]


def _named(chunk: Chunk) -> Named:
    code = strip_comments(chunk.text)
    first = len(code) - len(code.lstrip())
    return Named(chunk.line + code.count("\n", 0, first), leading_comment(chunk))


def check(
    session: Session,
    statements: Sequence[ast.Statement],
    names: Sequence[Named],
    out: TextIO,
    err: TextIO,
    quiet: bool = False,
) -> int:
    """Plan every statement, render the rows in the session's format, say on `err` which
    patterns would Scan or could not be planned; the exit code (0, 1 or 3)."""
    from dynosql.render import render

    rows: list[Row] = []
    failed: list[str] = []
    for statement, where in zip(statements, names, strict=True):
        if isinstance(statement, RUN_AS_IS):
            try:
                session.run_statement(statement)
                continue
            except DynosqlError as error:
                row = {"line": where.line, "pattern": where.name, **_empty()}
                row.update(operation="error", note=str(error))
        else:
            row = pattern_row(session, statement, where)
        if row["operation"] == "error":
            note = str(row["note"])  # a SqlError names its own line and column
            failed.append(note if note.startswith("line ") else f"line {where.line}: {note}")
        rows.append(row)
    scans = [_label(r) for r in rows if r["scan"]]
    result = Result([*COLUMNS, "note"], iter(rows))
    render(result, session.settings.format, out)
    out.flush()
    for text in failed:
        print(f"error: {text}", file=err)
    if scans:
        print(
            f"error: {len(scans)} of {len(rows)} access patterns would Scan: " + "; ".join(scans),
            file=err,
        )
    elif not quiet and not failed:
        planned = f"{len(rows)} access pattern{'s' if len(rows) != 1 else ''} planned"
        print(f"{planned}, none would Scan (plan only)", file=err)
    if failed:
        return DynosqlError.exit_code
    return GuardError.exit_code if scans else 0


def _label(row: Row) -> str:
    name = f" ({row['pattern']})" if row["pattern"] else ""
    return f"line {row['line']}{name}"


def pattern_row(session: Session, statement: ast.Statement, where: Named) -> Row:
    """The row of one statement: its EXPLAIN's plan, or why it has none (operation 'error')."""
    row: Row = {"line": where.line, "pattern": where.name}
    try:
        explained = session.run_statement(ast.Explain(statement))
        document = explained.document
        for _ in explained:  # its lines are not shown; consuming them finishes the stats
            pass
    except DynosqlError as error:
        return {**row, **_empty(), "operation": "error", "note": str(error)}
    if not isinstance(document, dict):
        return {**row, **_empty(), "operation": "error", "note": "this statement has no plan"}
    return {**row, **summary(session, document)}


def _empty() -> Row:
    return {
        "operation": "",
        "table": "",
        "index": "",
        "key condition": "",
        "rcu": Decimal(0),
        "wcu": Decimal(0),
        "scan": False,
    }


def summary(session: Session, document: dict[str, Any]) -> Row:
    """A plan document (EXPLAIN's JSON) as one row: a read's own, or a write's read and its
    write requests."""
    read = document if "statement" not in document else document.get("read")
    estimate = document.get("estimate") or {}
    row = _empty()
    row["table"] = document.get("table") or ""
    row["rcu"] = Decimal(str(estimate.get("rcu", 0)))
    row["wcu"] = Decimal(str(estimate.get("wcu", 0)))
    operations = []
    warnings = list(document.get("warnings") or [])
    if isinstance(read, dict):
        requests = read.get("requests") or []
        operation = str(read.get("operation", ""))
        if len(requests) > 1:
            operation += f" ×{len(requests)}"
        if read.get("fetch"):
            operation += " + BatchGetItem"
        operations.append(operation)
        row["index"] = read.get("index") or ""
        row["scan"] = read.get("operation") == "Scan"
        if requests:
            row["key condition"] = key_condition(requests[0]["params"], len(requests))
        warnings = [*(read.get("warnings") or []), *warnings]
        fallback = read.get("fallback")
        if fallback:  # plan.fallback: a Scan past the break-even, not a Scan of the pattern
            then = fallback["plan"]["operation"]
            warnings.append(
                f"{then} instead past {fallback['keys']:,} keys (cheaper than fetching)"
            )
    for lookup in (document.get("join") or {}).get("lookups", []):  # a join's reads by key
        operations.append(f"{lookup['strategy']} {lookup['table']}")
    if "statement" in document:  # a write: its requests after the read (if any)
        operations.append(str(document.get("operation", "")))
        written = document.get("requests") or []
        if not isinstance(read, dict) and written:
            row["key condition"] = _written_key(session, row["table"], written[0]["params"])
    row["operation"] = " + ".join(o for o in operations if o)
    row["note"] = warnings[0] if warnings else ""
    return row


_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")


def key_condition(params: dict[str, Any], requests: int = 1) -> str:
    """A read request's key condition as SQL: ``pk = 'TENANT#acme' AND begins_with(sk, …)``;
    a GetItem's or BatchGetItem's key as equalities; '' for a Scan."""
    more = f" (and {requests - 1} more requests like it)" if requests > 1 else ""
    if "KeyConditionExpression" in params:
        return _filled(params, params["KeyConditionExpression"]) + more
    if "Key" in params:
        return _equalities(params["Key"]) + more
    batches = params.get("RequestItems") or {}
    keys = [k for batch in batches.values() for k in batch.get("Keys", [])]
    if keys:
        rest = f" (and {len(keys) - 1} more keys)" if len(keys) > 1 else ""
        return _equalities(keys[0]) + rest
    return ""


def _filled(params: dict[str, Any], expression: str) -> str:
    """An expression with its #name and :value placeholders written out as SQL."""
    names = params.get("ExpressionAttributeNames") or {}
    vals = params.get("ExpressionAttributeValues") or {}

    def fill(m: re.Match[str]) -> str:
        token = m.group(0)
        if token in names:
            return _name(names[token])
        if token in vals:
            return _literal(values.decode(vals[token]))
        return token

    return _PLACEHOLDER.sub(fill, expression)


def _equalities(key: dict[str, Any]) -> str:
    return " AND ".join(f"{_name(n)} = {_literal(values.decode(v))}" for n, v in key.items())


_HIGHEST = re.compile("\U0010ffff{2,}")  # a range's top: the prefix, then the highest code point
MAX_LITERAL = 80


def _literal(value: Any) -> str:
    """A value as SQL, shortened for a row: a range's top (``'INVOICE#'`` then hundreds of
    U+10FFFF) ends in ``…``, and so does a value longer than MAX_LITERAL characters."""
    if isinstance(value, str):
        short = _HIGHEST.sub("…", value)
        if len(short) > MAX_LITERAL:
            short = short[:MAX_LITERAL] + "…"
        value = short
    return sql_text(ast.Literal(value))


def _written_key(session: Session, table: str, params: dict[str, Any]) -> str:
    """The key a keyed write names: its Key, or the key attributes of the item it puts."""
    if isinstance(params.get("Key"), dict):
        return _equalities(params["Key"])
    item = params.get("Item")
    if not isinstance(item, dict):
        return ""
    keys = session.table(table).keys.names
    return _equalities({k: item[k] for k in keys if k in item})


def _name(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'
