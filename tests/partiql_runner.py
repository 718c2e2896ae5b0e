"""One PartiQL statement run twice: through DynamoDB's own PartiQL engine (DynamoDB Local's
ExecuteStatement, ExecuteTransaction, BatchExecuteStatement: the oracle) and through dynosql,
each on its own copy of the tables; what each did, in one shape to compare
(tests/test_partiql_corpus.py).

- An outcome is the rows (decoded items; PartiQL's column names) or an error *class*, never
  its text: ``duplicate`` (INSERT of an existing key), ``condition`` (a failed condition),
  ``invalid`` (a statement refused: syntax, a type, a form), ``cancelled`` (a transaction),
  ``missing-table``.
- dynosql names a projected document path by the path (``m.a``), PartiQL by its last name
  (``a``, ``DateWatched[0]``): dynosql's rows are renamed PartiQL's way to be compared (a
  documented difference, docs/partiql.md).
- PartiQL's read cost, which ExecuteStatement does not report (DynamoDB Local returns no
  ConsumedCapacity for it): the read AWS's reference says PartiQL runs, measured on the same
  server with ReturnConsumedCapacity. A WHERE with the partition key by equality or IN (or
  an OR whose every branch has one) reads those keys: a GetItem per key where the sort key is
  given by equality too, else a Query per partition key with the one sort-key condition the
  WHERE gives (none when it gives several: then the partition). Any other WHERE is a Scan of
  the table (or of the index named in FROM).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError
from write_model import canon, canon_item

from dynosql import values
from dynosql.errors import ConditionError, DynosqlError, ExecutionError, SqlError
from dynosql.session import Session
from dynosql.sql import ast, parse

# DynamoDB's error codes, as classes
CLASSES = {
    "DuplicateItemException": "duplicate",
    "DuplicateItem": "duplicate",
    "ConditionalCheckFailedException": "condition",
    "ValidationException": "invalid",
    "TransactionCanceledException": "cancelled",
    "ResourceNotFoundException": "missing-table",
}


@dataclass
class Outcome:
    error: str | None = None  # the error class; None: it ran
    rows: list[dict[str, Any]] = field(default_factory=list)
    rcu: Decimal = Decimal(0)
    operations: list[str] = field(default_factory=list)  # dynosql's: "Query t.i + BatchGetItem t"

    def canonical(self, ordered: bool) -> Any:
        rows = [canon_item(r) for r in self.rows]
        return (self.error, rows if ordered else sorted(rows, key=repr))


def aws_class(err: ClientError) -> str:
    code = err.response.get("Error", {}).get("Code", "")
    return CLASSES.get(code, code)


def typed(params: list[Any]) -> list[dict[str, Any]]:
    return [values.encode(p) for p in params]


def run_partiql(client: Any, statement: str, params: list[Any]) -> Outcome:
    """ExecuteStatement, every page."""
    request: dict[str, Any] = {"Statement": statement}
    if params:
        request["Parameters"] = typed(params)
    rows: list[dict[str, Any]] = []
    try:
        while True:
            page = client.execute_statement(**request)
            rows.extend(values.decode_item(i) for i in page.get("Items", []))
            if not page.get("NextToken"):
                return Outcome(rows=rows)
            request["NextToken"] = page["NextToken"]
    except ClientError as err:
        return Outcome(aws_class(err))


def _requests(statements: list[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
    """Statements and their parameters as ExecuteTransaction / BatchExecuteStatement take them."""
    out = []
    for text, params in statements:
        one: dict[str, Any] = {"Statement": text}
        if params:
            one["Parameters"] = typed(params)
        out.append(one)
    return out


def run_partiql_transaction(client: Any, statements: list[tuple[str, list[Any]]]) -> Outcome:
    """ExecuteTransaction: the items its reads return (none for a write)."""
    try:
        answer = client.execute_transaction(TransactStatements=_requests(statements))
    except ClientError as err:
        return Outcome(aws_class(err))
    found = [r["Item"] for r in answer.get("Responses", []) if "Item" in r]
    return Outcome(rows=[values.decode_item(i) for i in found])


def run_partiql_batch(client: Any, statements: list[tuple[str, list[Any]]]) -> list[Outcome]:
    """BatchExecuteStatement: one outcome per statement."""
    try:
        answer = client.batch_execute_statement(Statements=_requests(statements))
    except ClientError as err:
        return [Outcome(aws_class(err))] * len(statements)
    out = []
    for response in answer["Responses"]:
        if "Error" in response:
            code = response["Error"].get("Code", "")
            out.append(Outcome(CLASSES.get(code + "Exception", CLASSES.get(code, code))))
        else:
            item = response.get("Item")
            out.append(Outcome(rows=[values.decode_item(item)] if item else []))
    return out


def dynosql_class(err: DynosqlError) -> str:
    if isinstance(err, SqlError):
        return "invalid"
    cause = err.__cause__
    if isinstance(cause, ClientError):
        return aws_class(cause)
    if isinstance(err, ConditionError):
        message = err.message
        if message.startswith("transaction cancelled"):
            return "cancelled"
        if "already exist" in message:
            return "duplicate"
        return "condition"
    if isinstance(err, ExecutionError) and "not found" in err.message:
        return "missing-table"
    return "invalid"


def run_dynosql(session: Session, text: str, params: list[Any]) -> Outcome:
    """One statement through dynosql, its rows named PartiQL's way."""
    bound = {str(n): v for n, v in enumerate(params, 1)}
    try:
        result = session.execute(text, bound)
        rows = list(result)
    except DynosqlError as err:
        return Outcome(dynosql_class(err))
    statement = parse(text)
    names = partiql_names(statement)
    if names:
        rows = [{names.get(k, k): v for k, v in row.items()} for row in rows]
    return Outcome(rows=rows, rcu=result.stats.capacity, operations=result.stats.operations)


def partiql_names(statement: Any) -> dict[str, str]:
    """dynosql's column name → PartiQL's, for a SELECT's document paths."""
    if not isinstance(statement, ast.Select) or statement.items is None:
        return {}
    out = {}
    for item in statement.items:
        expr = item.expr
        if isinstance(expr, ast.Path) and item.alias is None:
            elements = list(expr.elements)
            last = max(i for i, e in enumerate(elements) if isinstance(e, str))
            name = str(elements[last]) + "".join(f"[{e}]" for e in elements[last + 1 :])
            out[item.name] = name
    return out


def snapshot(client: Any, table: str) -> Any:
    """Every item of a table, canonical (an order-free value to compare)."""
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    items = []
    while True:
        page = client.scan(**kwargs)
        items.extend(canon_item(values.decode_item(i)) for i in page["Items"])
        if not page.get("LastEvaluatedKey"):
            return sorted(items, key=repr)
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def same_value(a: Any, b: Any) -> bool:
    return bool(canon(a) == canon(b))


# --- PartiQL's read, and what it costs ---------------------------------------------------------


def _equalities(condition: Any, name: str) -> list[Any] | None:
    """The values `condition` (a conjunction) gives the attribute `name` by = or IN."""
    parts = condition.items if isinstance(condition, ast.And) else (condition,)
    for p in parts:
        if isinstance(p, ast.Compare) and p.op == "=":
            for side, other in ((p.left, p.right), (p.right, p.left)):
                if isinstance(side, ast.Path) and side.elements == (name,):
                    if isinstance(other, ast.Literal):
                        return [other.value]
        if isinstance(p, ast.In) and isinstance(p.operand, ast.Path):
            if p.operand.elements == (name,) and all(isinstance(v, ast.Literal) for v in p.values):
                return [v.value for v in p.values]
    return None


def _sort_conditions(condition: Any, name: str) -> list[Any]:
    parts = condition.items if isinstance(condition, ast.And) else (condition,)
    found = []
    for p in parts:
        if isinstance(p, ast.Compare) and p.op in ("=", "<", "<=", ">", ">="):
            if isinstance(p.left, ast.Path) and p.left.elements == (name,):
                if isinstance(p.right, ast.Literal):
                    found.append(p)
        elif isinstance(p, ast.Between) and isinstance(p.operand, ast.Path):
            if p.operand.elements == (name,):
                found.append(p)
        elif isinstance(p, ast.Function) and p.name == "begins_with" and p.path.elements == (name,):
            found.append(p)
    return found


def partiql_read_cost(client: Any, statement: ast.Select, keys: tuple[str, str | None]) -> Decimal:
    """What the read PartiQL runs for `statement` (bound) costs, measured (module docstring).
    `keys`: the partition and sort key of the table, or of the index named in FROM."""
    pk, sk = keys
    where = statement.where
    branches = list(where.items) if isinstance(where, ast.Or) else [where]
    reads: list[tuple[Any, Any]] = []  # (pk value, a sort-key condition, or a sort-key value)
    for branch in branches:
        found = None if branch is None else _equalities(branch, pk)
        if found is None:
            reads = []
            break
        sort = _equalities(branch, sk) if sk else None
        if statement.index is None and sk is None:  # the full key of a hash-only table
            reads.extend((v, ("=", None)) for v in found)
        elif sort is not None and statement.index is None:
            reads.extend((v, ("=", s)) for v in found for s in sort)
        else:
            conditions = _sort_conditions(branch, sk) if sk else []
            reads.extend((v, conditions[0] if len(conditions) == 1 else None) for v in found)
    table = statement.table
    if not reads:
        return _scan_cost(client, table, statement.index)
    total = Decimal(0)
    for value, sort in dict((repr(r), r) for r in reads).values():
        if isinstance(sort, tuple):
            key = {pk: value} if sk is None else {pk: value, sk: sort[1]}
            answer = client.get_item(
                TableName=table, Key=values.encode_item(key), ReturnConsumedCapacity="TOTAL"
            )
            total += Decimal(str(answer["ConsumedCapacity"]["CapacityUnits"]))
        else:
            total += _query_cost(client, table, statement.index, pk, value, sk, sort)
    return total


def _scan_cost(client: Any, table: str, index: str | None) -> Decimal:
    return _units(client.scan, {"TableName": table}, index)


def _query_cost(
    client: Any, table: str, index: str | None, pk: str, value: Any, sk: str | None, sort: Any
) -> Decimal:
    names = {"#p": pk}
    vals = {":p": values.encode(value)}
    condition = "#p = :p"
    if sort is not None and sk is not None:
        names["#s"] = sk
        if isinstance(sort, ast.Compare):
            vals[":s"] = values.encode(sort.right.value)
            condition += f" AND #s {sort.op} :s"
        elif isinstance(sort, ast.Between):
            vals[":l"] = values.encode(sort.low.value)
            vals[":h"] = values.encode(sort.high.value)
            condition += " AND #s BETWEEN :l AND :h"
        else:
            vals[":s"] = values.encode(sort.arg.value)
            condition += " AND begins_with(#s, :s)"
    request = {
        "TableName": table,
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": vals,
    }
    try:
        return _units(client.query, request, index)
    except ClientError as err:  # a value PartiQL would refuse (another type): nothing read
        if aws_class(err) != "invalid":
            raise
        return Decimal(0)


def _units(call: Any, request: dict[str, Any], index: str | None) -> Decimal:
    """The read units of every page of a Query or Scan. Select=COUNT: the same units (DynamoDB
    bills the items read), no items sent back."""
    kwargs = {**request, "ReturnConsumedCapacity": "TOTAL", "Select": "COUNT"}
    if index:
        kwargs["IndexName"] = index
    total = Decimal(0)
    while True:
        page = call(**kwargs)
        total += Decimal(str(page["ConsumedCapacity"]["CapacityUnits"]))
        if not page.get("LastEvaluatedKey"):
            return total
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# --- table names --------------------------------------------------------------------------------


def renamed(text: str, names: dict[str, str]) -> str:
    """`text` with each table name of `names` (quoted or not, outside strings) replaced."""
    from dynosql.sql.split import code_only

    code = code_only(text)
    out = text
    pattern = re.compile(r'(?<![\w"])("?)(' + "|".join(map(re.escape, names)) + r')\1(?![\w"])')
    for m in reversed(list(pattern.finditer(text))):
        if not m.group(1) and code[m.start(2)] == " ":  # inside a string
            continue
        out = out[: m.start()] + f'"{names[m.group(2)]}"' + out[m.end() :]
    return out


# --- the write fuzzer's conditions and changes, written in PartiQL ----------------------------


class PartiQLWriter:
    """tests/write_model.py's conditions (`Cond`) and changes (`Assign`) as PartiQL text: every
    name quoted, sets as ``<<…>>``, ADD and DELETE as ``set_add`` / ``set_delete``; a value
    holding binary (PartiQL has no binary literal, and no parameter inside a list or map) is
    one ``?`` parameter, in `params`."""

    def __init__(self) -> None:
        self.params: list[Any] = []

    def value(self, v: Any) -> str:
        if _holds_binary(v):
            self.params.append(plain_value(v))
            return "?"
        return _literal(v)

    def path(self, path: tuple[Any, ...]) -> str:
        out = ""
        for e in path:
            if isinstance(e, int):
                out += f"[{e}]"
            else:
                out += ("." if out else "") + '"' + e.replace('"', '""') + '"'
        return out

    def cond(self, c: Any) -> str:
        import write_model as wm

        if isinstance(c, wm.Compare):
            flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
            if c.flipped:
                value = self.value(c.value)
                return f"{value} {flip.get(c.op, c.op)} {self.path(c.path)}"
            return f"{self.path(c.path)} {c.op} {self.value(c.value)}"
        if isinstance(c, wm.Between):
            path = self.path(c.path)
            return f"{path} BETWEEN {self.value(c.low)} AND {self.value(c.high)}"
        if isinstance(c, wm.In):
            path = self.path(c.path)
            return f"{path} IN [{', '.join(self.value(o) for o in c.options)}]"
        if isinstance(c, wm.Func):
            if c.name in ("attribute_exists", "attribute_not_exists"):
                return f"{c.name}({self.path(c.path)})"
            if c.name == "attribute_type":
                return f"attribute_type({self.path(c.path)}, '{c.arg}')"
            return f"{c.name}({self.path(c.path)}, {self.value(c.arg)})"
        if isinstance(c, wm.IsNull):
            return f"{self.path(c.path)} IS {'NOT ' if c.negated else ''}NULL"
        if isinstance(c, wm.Size):
            return f"size({self.path(c.path)}) {c.op} {wm.number_text(c.value)}"
        if isinstance(c, wm.Not):
            return f"NOT ({self.cond(c.part)})"
        if isinstance(c, wm.Junction):
            return f" {c.op} ".join(f"({self.cond(p)})" for p in c.parts)
        raise TypeError(f"no PartiQL for {c!r}")  # LIKE: PartiQL has none

    def change(self, a: Any) -> str:
        p = self.path(a.path)
        if a.kind == "remove":
            return f"REMOVE {p}"
        s = self.path(a.source) if a.source else ""
        if a.kind == "value":
            right = self.value(a.value)
        elif a.kind == "copy":
            right = s
        elif a.kind == "arith":
            right = f"{s} {a.op} {self.value(a.value)}"
        elif a.kind == "rarith":
            right = f"{self.value(a.value)} + {s}"
        elif a.kind == "if_not_exists":
            right = f"if_not_exists({s}, {self.value(a.value)})"
        elif a.kind == "append":
            right = f"list_append({s}, {self.value(a.value)})"
        elif a.kind == "prepend":
            right = f"list_append({self.value(a.value)}, {s})"
        else:  # add / delete of set elements
            right = f"set_{a.kind}({p}, {self.value(a.value)})"
        return f"SET {p} = {right}"


def _holds_binary(v: Any) -> bool:
    import write_model as wm

    t = wm.type_of(v)
    if t in ("B", "BS"):
        return True
    if t == "L":
        return any(_holds_binary(x) for x in v)
    if t == "M":
        return any(_holds_binary(x) for x in v.values())
    return False


def plain_value(v: Any) -> Any:
    """A write-model value as dynosql's (sets typed: StringSet, NumberSet, BinarySet)."""
    import write_model as wm

    t = wm.type_of(v)
    if t == "L":
        return [plain_value(x) for x in v]
    if t == "M":
        return {k: plain_value(x) for k, x in v.items()}
    if t in ("SS", "NS", "BS"):
        return values.set_of(list(v))
    return v


def _literal(v: Any) -> str:
    import write_model as wm

    t = wm.type_of(v)
    if t == "S":
        return "'" + v.replace("'", "''") + "'"
    if t == "N":
        return wm.number_text(Decimal(v))
    if t == "BOOL":
        return "TRUE" if v else "FALSE"
    if t == "NULL":
        return "NULL"
    if t == "L":
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if t == "M":
        return "{" + ", ".join(f"{_literal(k)}: {_literal(x)}" for k, x in v.items()) + "}"
    return "<<" + ", ".join(_literal(x) for x in sorted(v, key=canon)) + ">>"
