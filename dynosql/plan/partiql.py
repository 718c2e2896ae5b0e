"""EXPLAIN (FORMAT PARTIQL): the PartiQL statements that do what a plan does, for the DynamoDB
console, ExecuteStatement or PyDynamoDB, and a note for each thing PartiQL cannot do. Pure: a
plan in, text out.

- A read is one SELECT per DynamoDB request, written from the request itself: a GetItem's key,
  a BatchGetItem's keys (50 a statement, PartiQL's limit for partition-key values), a Query's
  key condition and filter (``ORDER BY`` the sort key ``DESC`` for a backward read), a Scan's
  filter; ``FROM "t"."i"`` for an index, the ProjectionExpression as the select list. PartiQL
  runs each as the same request (its partition-key equality makes it a Query, not a Scan).
- What only the client can do is a note: the conditions DynamoDB cannot evaluate (LIKE, an
  expression), ORDER BY anything but the sort key, LIMIT, DISTINCT, GROUP BY and aggregates,
  a parallel Scan's segments, TABLESAMPLE, Select=COUNT.
- A write by key is one statement per key: ``INSERT INTO "t" VALUE {…}`` per row,
  ``UPDATE``/``DELETE … WHERE <the key> AND <the rest of the WHERE>``; a write whose read
  finds the items is that read (its SELECT of the keys), then the write as a template run once
  per item it returns, the item's key as the last parameters. PartiQL has no statement that
  overwrites an item (UPSERT, REPLACE) nor INSERT … SELECT: a note says so.

Values are PartiQL literals (``<<…>>`` sets, ``[…]`` lists, ``{…}`` maps); a binary value,
which PartiQL has no literal for, is a ``?`` parameter, listed with the statement in DynamoDB
JSON (what ExecuteStatement's Parameters take).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from dynosql import values
from dynosql.plan.expressions import Placeholders, condition_text
from dynosql.plan.model import Plan, Request, _jsonable
from dynosql.sql import ast
from dynosql.sql.text import sql_text

KEYS_A_STATEMENT = 50  # partition-key values one PartiQL IN (or OR) takes
SHOWN = 25  # statements printed in full; the rest are counted
_TOKEN = re.compile(r"#[A-Za-z0-9_]+|:[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Statement:
    """One PartiQL statement: its text, the values of its ``?`` parameters, and whether it is
    a template run once per item the statement before it returns (that item's key values
    then follow `parameters`, in key order)."""

    text: str
    parameters: tuple[Any, ...] = ()
    each: bool = False

    def document(self) -> dict[str, Any]:
        return {
            "statement": self.text,
            "parameters": [_jsonable(values.encode(p)) for p in self.parameters],
            "each_item": self.each,
        }


@dataclass
class Translation:
    statements: list[Statement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    more: int = 0  # statements like the last ones, not shown

    def lines(self) -> list[str]:
        out = ["PartiQL (ExecuteStatement, the DynamoDB console, PyDynamoDB):"]
        if not self.statements:
            out.append("  (no statement)")
        for n, s in enumerate(self.statements, 1):
            head = f"  {n}. "
            if s.each:
                head += f"for each item statement {n - 1} returns, its key as the last parameters: "
            out.append(head + s.text)
            if s.parameters:
                shown = json.dumps([_jsonable(values.encode(p)) for p in s.parameters])
                out.append(f"     parameters: {shown}")
        if self.more:
            out.append(f"  … and {self.more:,} more statements like these")
        out.extend(f"note: {n}" for n in self.notes)
        return out

    def document(self) -> dict[str, Any]:
        return {
            "partiql": [s.document() for s in self.statements],
            "more": self.more,
            "notes": list(self.notes),
        }

    def add(self, statement: Statement) -> None:
        if len(self.statements) >= SHOWN:
            self.more += 1
        else:
            self.statements.append(statement)


# --- text ----------------------------------------------------------------------------------------


class _Text:
    """Names, paths and values as PartiQL writes them; binary values as ``?`` parameters."""

    def __init__(self) -> None:
        self.parameters: list[Any] = []

    def name(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def path(self, path: ast.Path | tuple[Any, ...]) -> str:
        elements = path.elements if isinstance(path, ast.Path) else path
        out = ""
        for e in elements:
            out += f"[{e}]" if isinstance(e, int) else ("." if out else "") + self.name(e)
        return out

    def value(self, value: Any) -> str:
        kind = values.type_of(value)
        if kind in ("B", "BS") or (kind in ("L", "M") and _holds_binary(value)):
            # no binary literal, and no parameter inside a list or map: the whole value
            self.parameters.append(value)
            return "?"
        if kind == "S":
            return "'" + value.replace("'", "''") + "'"
        if kind == "N":
            return values.format_number(value)
        if kind == "BOOL":
            return "TRUE" if value else "FALSE"
        if kind == "NULL":
            return "NULL"
        if kind == "L":
            return "[" + ", ".join(self.value(v) for v in value) + "]"
        if kind == "M":
            body = ", ".join(f"{self.value(k)}: {self.value(v)}" for k, v in value.items())
            return "{" + body + "}"
        return "<<" + ", ".join(self.value(v) for v in sorted(value, key=values.sort_key)) + ">>"

    def expression(self, text: str, params: dict[str, Any]) -> str:
        """A DynamoDB expression (``#a = :v0 AND begins_with(#b, :v1)``) in PartiQL: each
        placeholder replaced by its name or value."""
        names = params.get("ExpressionAttributeNames", {})
        found = params.get("ExpressionAttributeValues", {})

        def one(m: re.Match[str]) -> str:
            token = m.group()
            if token.startswith("#"):
                return self.name(names[token])
            return self.value(values.decode(found[token]))

        return _TOKEN.sub(one, text)

    def projection(self, params: dict[str, Any]) -> str:
        projection = params.get("ProjectionExpression")
        if not projection:
            return "*"
        return self.expression(projection, params)

    def statement(self, text: str, each: bool = False) -> Statement:
        found, self.parameters = tuple(self.parameters), []
        return Statement(text, found, each)


def _holds_binary(value: Any) -> bool:
    kind = values.type_of(value)
    if kind == "L":
        return any(_holds_binary(v) for v in value)
    if kind == "M":
        return any(_holds_binary(v) for v in value.values())
    return kind in ("B", "BS")


# --- reads ---------------------------------------------------------------------------------------


def for_select(plan: Plan, keys_only: bool = False) -> Translation:
    """The SELECTs of `plan`'s requests (`keys_only`: selecting the table's key, as a write's
    read does), and notes for what only the client does."""
    out = Translation()
    _reads(plan, out, keys_only)
    statement = plan.statement
    if not keys_only:
        out.notes.extend(_statement_notes(plan, statement))
    return out


def _reads(plan: Plan, out: Translation, keys_only: bool) -> None:
    if plan.operation == "Nothing":
        out.notes.append("no statement: no item can match the WHERE (dynosql sends nothing)")
        return
    target = _target(plan)
    columns = _columns(plan, keys_only)
    unsaid: list[ast.Condition] = []  # what PartiQL cannot evaluate either
    fetched: list[ast.Condition] = []  # checked on the items fetched from the table
    for request in plan.requests:
        if (
            "Segment" in request.params
            and request.params["Segment"] != plan.requests[0].params["Segment"]
        ):
            continue  # a sample's segments: one statement reads what they read
        can, cannot = _split_residual(request.residual)
        unsaid.extend(c for c in cannot if c not in unsaid)
        if plan.fetch is not None:  # the index may lack what they name: asked of the items
            fetched.extend(c for c in can if c not in fetched)
            can = []
        for one in _select_texts(plan, request, target, columns, can):
            out.add(one)
    if plan.fetch is not None:
        t = _Text()
        where = [f"{t.name(k)} = ?" for k in plan.table.keys.names]
        where.extend(f"({_condition(c, t)})" for c in fetched)
        head = f"SELECT {_columns(plan, keys_only, base=True)} FROM {t.name(plan.table.name)}"
        out.add(t.statement(f"{head} WHERE {' AND '.join(where)}", each=True))
        out.notes.append(
            f"index {plan.access.name} does not hold every attribute needed: each item is "
            f"read from {plan.table.name} by its key (dynosql: BatchGetItem, 100 keys a call)"
        )
    for c in unsaid:
        out.notes.append(
            f"PartiQL cannot evaluate {sql_text(c)}: dynosql checks it on the items read"
        )
    if plan.segments > 1 and plan.sample is None:
        out.notes.append(
            f"PartiQL cannot split a Scan: dynosql reads it in {plan.segments} parallel "
            "segments, this one statement reads them all (the same RCU)"
        )
    if plan.sample is not None:
        out.notes.append(
            f"PartiQL cannot read a sample: dynosql reads {plan.sample.k} of "
            f"{plan.sample.total} Scan segments (TABLESAMPLE); the statement above reads all"
        )
    if plan.then is not None:
        out.notes.append(
            "only if the rows above fall short of LIMIT, the items the index lacks: "
            + "; ".join(s.text for s in for_select(plan.then, keys_only).statements)
        )
    if plan.fallback is not None:
        rule = plan.fallback
        out.notes.append(
            f"dynosql reads at most {rule.keys + 1:,} keys of {plan.target} (PartiQL has no "
            f"Limit): past {rule.keys:,}, fetching costs more than this instead: "
            + "; ".join(s.text for s in for_select(rule.plan, keys_only).statements)
        )


def _split_residual(
    residual: ast.Condition | None,
) -> tuple[list[ast.Condition], list[ast.Condition]]:
    """What the client checks on a request's items: the conjuncts PartiQL's WHERE can hold
    (a key condition DynamoDB's filter may not name, a GetItem's other conditions), and those
    PartiQL cannot evaluate either (LIKE, expressions, a value of a type DynamoDB refuses)."""
    from dynosql.plan.expressions import expressible

    if residual is None:
        return [], []
    parts = list(residual.items) if isinstance(residual, ast.And) else [residual]
    return [p for p in parts if expressible(p)], [p for p in parts if not expressible(p)]


def _condition(condition: ast.Condition, t: _Text) -> str:
    ph = Placeholders()
    text = condition_text(condition, ph)
    return t.expression(text, ph.into({}))


def _columns(plan: Plan, keys_only: bool, base: bool = False) -> str | None:
    """The select list: the statement's own paths where it selects paths and the client needs
    nothing else of the items; None: the request's ProjectionExpression (or *)."""
    t = _Text()
    if keys_only:
        return ", ".join(t.name(k) for k in plan.table.keys.names)
    statement = plan.statement
    if statement.items is None:
        return "*"
    paths = [i.expr for i in statement.items if isinstance(i.expr, ast.Path)]
    if len(paths) != len(statement.items) or statement.is_aggregate or plan.sort:
        return None if not base else "*"
    return ", ".join(t.path(p) for p in paths)


def _target(plan: Plan) -> str:
    t = _Text()
    table = t.name(plan.table.name)
    return table if plan.access.name is None else f"{table}.{t.name(plan.access.name)}"


def _select_texts(
    plan: Plan,
    request: Request,
    target: str,
    columns: str | None,
    more: list[ast.Condition],
) -> list[Statement]:
    t = _Text()
    params = request.params
    names = plan.table.keys.names
    if request.operation == "GetItem":
        key = values.decode_item(params["Key"])
        where = [f"{t.name(k)} = {t.value(key[k])}" for k in names]
        where.extend(f"({_condition(c, t)})" for c in more if not _key_equality(c, names))
        chosen = columns or t.projection(params)
        return [t.statement(f"SELECT {chosen} FROM {target} WHERE {' AND '.join(where)}")]
    if request.operation == "BatchGetItem":
        spec = params["RequestItems"][plan.table.name]
        keys = [values.decode_item(k) for k in spec["Keys"]]
        rest = [c for c in more if not _key_equality(c, names)]
        out = []
        for start in range(0, len(keys), KEYS_A_STATEMENT):
            chunk = keys[start : start + KEYS_A_STATEMENT]
            chosen = columns or t.projection(spec)
            if len(names) == 1:
                listed = ", ".join(t.value(k[names[0]]) for k in chunk)
                keyed = f"{t.name(names[0])} IN [{listed}]"
            else:
                keyed = " OR ".join(
                    "(" + " AND ".join(f"{t.name(n)} = {t.value(k[n])}" for n in names) + ")"
                    for k in chunk
                )
            if rest:
                keyed = f"({keyed}) AND " + " AND ".join(f"({_condition(c, t)})" for c in rest)
            out.append(t.statement(f"SELECT {chosen} FROM {target} WHERE {keyed}"))
        return out
    chosen = columns or t.projection(params)
    parts = []
    if "KeyConditionExpression" in params:
        parts.append(t.expression(params["KeyConditionExpression"], params))
    if "FilterExpression" in params:
        parts.append(t.expression(params["FilterExpression"], params))
    parts.extend(_condition(c, t) for c in more)
    text = f"SELECT {chosen} FROM {target}"
    if parts:
        text += " WHERE " + " AND ".join(f"({p})" if len(parts) > 1 else p for p in parts)
    if params.get("ScanIndexForward") is False and plan.access.keys.sk is not None:
        text += f" ORDER BY {t.name(plan.access.keys.sk)} DESC"
    return [t.statement(text)]


def _statement_notes(plan: Plan, statement: ast.Select) -> list[str]:
    notes = []
    if statement.is_aggregate:
        what = "GROUP BY and aggregates" if statement.group_by else "aggregates"
        notes.append(
            f"PartiQL has no {what} (COUNT, SUM, …): dynosql computes them from the rows"
            + (" (Select=COUNT: only counts come back)" if plan.count_only else "")
        )
    if statement.distinct:
        notes.append("PartiQL has no DISTINCT: dynosql drops the repeated rows")
    if statement.items and any(
        not isinstance(i.expr, ast.Path | ast.Aggregate) for i in statement.items
    ):
        notes.append("PartiQL selects attribute paths only: dynosql computes the expressions")
    if plan.sort:
        order = ", ".join(sql_text(o.expr) + (" DESC" if o.desc else "") for o in plan.sort)
        notes.append(f"PartiQL orders by the sort key only: dynosql sorts by {order}")
    if statement.limit is not None:
        notes.append(
            f"PartiQL has no LIMIT: dynosql stops after {statement.limit} rows "
            "(ExecuteStatement's Limit counts the items read, not the rows)"
        )
    if plan.dedupe:
        notes.append("the statements may return an item twice: dynosql keeps it once")
    return notes


# --- writes --------------------------------------------------------------------------------------


def for_write(plan: Any) -> Translation:
    """The PartiQL statements of a write plan (plan.write.WritePlan)."""
    statement = plan.statement
    out = Translation()
    if isinstance(statement, ast.Insert):
        _insert(plan, statement, out)
        return out
    key_names = plan.table.keys.names
    where = _rest_of_where(statement.where, key_names)
    keys = plan.keys
    if (
        keys is None
        and plan.read is not None
        and plan.read.operation in ("GetItem", "BatchGetItem")
    ):
        from dynosql.plan.write import _keys_of

        keys = _keys_of(plan.read, plan.table)  # read first (exactly once), by key all the same
    if keys is not None:
        for key in keys:
            t = _Text()
            conditions = [f"{t.name(k)} = {t.value(key[k])}" for k in key_names]
            out.add(t.statement(_keyed_write(statement, plan, t, conditions, where)))
        if not keys:
            out.notes.append("no statement: no item can match the WHERE")
    else:
        read = plan.read
        assert read is not None
        found = for_select(read, keys_only=True)
        for s in found.statements:
            out.add(s)
        out.notes.extend(found.notes)
        t = _Text()
        conditions = [f"{t.name(k)} = ?" for k in key_names]
        out.add(t.statement(_keyed_write(statement, plan, t, conditions, where), each=True))
        verb = "UPDATE" if isinstance(statement, ast.Update) else "DELETE"
        out.notes.append(
            f"PartiQL's {verb} changes one item, named by its full key: one a row the SELECT "
            "returns (dynosql reads the keys, then writes each item with a condition that it "
            "still matches)"
        )
    if plan.unchecked:
        out.notes.append(
            f"PartiQL cannot evaluate {' AND '.join(plan.unchecked)}: dynosql checks it when "
            "it reads, and writes only the items that match"
        )
    if statement.returning is not None and statement.returning.columns is not None:
        out.notes.append("PartiQL returns whole images (ALL NEW *): dynosql picks the columns")
    return out


def _rest_of_where(where: ast.Condition | None, keys: tuple[str, ...]) -> ast.Condition | None:
    """The WHERE without its key equalities (the statement names the key itself) and without
    what DynamoDB cannot evaluate (a note says so)."""
    from dynosql.plan.expressions import expressible

    parts = list(where.items) if isinstance(where, ast.And) else [] if where is None else [where]
    kept = [p for p in parts if not _key_equality(p, keys) and expressible(p)]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else ast.And(tuple(kept))


def _key_equality(condition: ast.Condition, keys: tuple[str, ...]) -> bool:
    if isinstance(condition, ast.In):
        return isinstance(condition.operand, ast.Path) and condition.operand.elements[0] in keys
    if isinstance(condition, ast.Between) and isinstance(condition.operand, ast.Path):
        return condition.operand.is_attribute and condition.operand.root in keys
    if not isinstance(condition, ast.Compare) or condition.op != "=":
        return False
    return any(
        isinstance(side, ast.Path) and side.is_attribute and side.root in keys
        for side in (condition.left, condition.right)
    )


def _keyed_write(
    statement: ast.Update | ast.Delete,
    plan: Any,
    t: _Text,
    conditions: list[str],
    rest: ast.Condition | None,
) -> str:
    table = t.name(plan.table.name)
    if isinstance(statement, ast.Update):
        from dynosql.plan.write import normalize

        changes = " ".join(_change(a, t) for a in normalize(statement.assignments))
        head = f"UPDATE {table} {changes}"
    else:
        head = f"DELETE FROM {table}"
    if rest is not None:
        ph = Placeholders()
        text = condition_text(rest, ph)
        request = ph.into({})
        conditions.append(f"({t.expression(text, request)})")
    text = f"{head} WHERE {' AND '.join(conditions)}"
    returning = statement.returning
    if returning is not None:
        if isinstance(statement, ast.Delete):
            text += " RETURNING ALL OLD *"
        else:
            which = "MODIFIED" if returning.modified else "ALL"
            image = "OLD" if returning.old and returning.columns is None else "NEW"
            text += f" RETURNING {which} {image} *"
    return text


def _change(a: ast.Assignment, t: _Text) -> str:
    path = t.path(a.path)
    if a.action == "remove":
        return f"REMOVE {path}"
    if a.action in ("add", "delete"):
        return f"SET {path} = set_{a.action}({path}, {t.value(a.value.value)})"
    from dynosql.plan.write import change_text

    return f"SET {path} = {change_text(a.value, t.value, t.path)}"


def _insert(plan: Any, statement: ast.Insert, out: Translation) -> None:
    if statement.replace:
        out.notes.append(
            f"PartiQL has no {statement.verb}: its INSERT never overwrites an item (dynosql "
            "puts each item with PutItem)"
        )
        return
    if statement.select is not None:
        assert plan.source is not None
        found = for_select(plan.source)
        for s in found.statements:
            out.add(s)
        out.notes.extend(found.notes)
        out.notes.append(
            "PartiQL has no INSERT … SELECT: one INSERT INTO … VALUE {…} a row the SELECT "
            "returns (dynosql puts each with a condition that its key is new)"
        )
        return
    table = _Text().name(plan.table.name)
    for item in plan.items or ():
        t = _Text()
        body = ", ".join(f"{t.value(k)}: {t.value(v)}" for k, v in item.items())
        out.add(t.statement(f"INSERT INTO {table} VALUE {{{body}}}"))
    if statement.ignore_existing:
        out.notes.append(
            "ON CONFLICT DO NOTHING: PartiQL answers DuplicateItemException for a key that "
            "exists; dynosql counts it and goes on"
        )
    if statement.returning is not None:
        out.notes.append("PartiQL's INSERT returns nothing: dynosql returns the rows written")
