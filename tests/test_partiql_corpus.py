"""The PartiQL differential corpus: each statement runs once through DynamoDB Local's own PartiQL
engine (ExecuteStatement, ExecuteTransaction, BatchExecuteStatement) and once through dynosql,
each on its own copy of the tables, and both must agree (tests/partiql_runner.py):

- the same rows (in order where PartiQL defines one: ORDER BY), or the same class of error
  (``duplicate``, ``condition``, ``invalid``, ``cancelled``), never the text;
- the same table contents afterwards, every table, after every statement;
- dynosql's read cost never above PartiQL's for the same SELECT (PartiQL's read as AWS's
  reference describes it, measured on the same server: partiql_runner.partiql_read_cost), but
  by the probe's bound where an index read that fetches found more keys than it is worth
  fetching and Scanned instead (docs/partiql.md's ``index-probe``).

A statement marked ``-- differs: <id>`` does what the row ``<id>`` of docs/partiql.md's table of
differences says instead (checked here: PartiQL's ConditionalCheckFailedException where dynosql
reports 0 items, …), and the table contents still agree.

The corpus: every example of AWS's PartiQL reference (tests/data/partiql/reference.txt), SELECTs
generated over the example datasets, and keyed INSERT/UPDATE/DELETE/SELECT statements generated
over the write fuzzer's tables (tests/write_gen.py). DynamoDB Local only: dynalite has no PartiQL
at all, and moto's ExecuteStatement (py-partiql-parser) answers part of it (docs/partiql.md).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import write_model as wm
from backends import Backend, unique_name
from partiql_runner import (
    Outcome,
    PartiQLWriter,
    _literal,
    partiql_names,
    partiql_read_cost,
    plain_value,
    renamed,
    run_dynosql,
    run_partiql,
    run_partiql_batch,
    run_partiql_transaction,
    snapshot,
)
from write_gen import Gen, draw_schema

from dynosql import values
from dynosql.errors import DynosqlError
from dynosql.session import Session, Settings, make_client
from dynosql.sql import ast, parse
from dynosql.sql.bind import bind, positional

pytestmark = pytest.mark.slow  # DynamoDB Local: a JVM

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "data" / "partiql" / "reference.txt"
DIFFERENCES_FILE = ROOT / "tests" / "data" / "partiql" / "differences.txt"
DOCS = ROOT / "docs" / "partiql.md"


# --- the corpus file --------------------------------------------------------------------------


@dataclass
class Case:
    title: str
    statements: list[tuple[str, list[Any]]]  # (text, ? parameters)
    mode: str = "statement"  # statement, transaction, batch
    differs: str | None = None
    line: int = 0
    source: str = ""  # the corpus file, or what generated it


def read_corpus(path: Path) -> list[Case]:
    """Blocks separated by blank lines: comments (title, params, mode, differs), statements."""
    cases: list[Case] = []
    title = ""
    for n, block in _blocks(path.read_text()):
        lines = block.splitlines()
        comments = [ln[2:].strip() for ln in lines if ln.startswith("--")]
        if all(ln.startswith("--") for ln in lines):
            continue  # a header
        mode, differs = "statement", None
        for c in comments:
            if c in ("transaction", "batch"):
                mode = c
            elif c.startswith("differs:"):
                differs = c.split(":", 1)[1].strip()
            elif not c.startswith("params:") and c:
                title = c
        statements = []
        for piece in re.split(r"^;\s*$", block, flags=re.M):
            params: list[Any] = []
            text = []
            for ln in piece.strip().splitlines():
                if ln.startswith("-- params:"):
                    params = json.loads(ln.split(":", 1)[1])
                elif not ln.startswith("--"):
                    text.append(ln)
            statements.append(("\n".join(text).strip(), params))
        cases.append(Case(title, statements, mode, differs, n, path.name))
    return cases


def _blocks(text: str) -> list[tuple[int, str]]:
    out, start, current = [], 1, []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            if not current:
                start = n
            current.append(line)
        elif current:
            out.append((start, "\n".join(current)))
            current = []
    if current:
        out.append((start, "\n".join(current)))
    return out


def documented_differences() -> set[str]:
    """The ids of docs/partiql.md's table of differences (its first column, in backticks)."""
    return set(re.findall(r"^\| `([a-z-]+)` \|", DOCS.read_text(), re.M))


# --- two copies of the tables -----------------------------------------------------------------


@dataclass
class World:
    """The tables twice on one DynamoDB Local: PartiQL's copy and dynosql's."""

    backend: Backend
    session: Session
    partiql: dict[str, str] = field(default_factory=dict)  # corpus name -> PartiQL's table
    dynosql: dict[str, str] = field(default_factory=dict)  # corpus name -> dynosql's table
    keys: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    index_keys: dict[tuple[str, str], tuple[str, str | None]] = field(default_factory=dict)
    checked: int = 0
    costs: list[tuple[Decimal, Decimal]] = field(default_factory=list)
    shared: set[str] = field(default_factory=set)  # read-only tables of their own name
    probed: list[tuple[str, Decimal, Decimal]] = field(default_factory=list)  # index-probe
    resync: bool = False  # after a difference, make PartiQL's copy dynosql's again
    exercised: set[str] = field(default_factory=set)  # the differences the cases showed

    def add(self, name: str, kwargs: dict[str, Any], items: list[dict[str, Any]]) -> None:
        uid = unique_name(name[:20])
        self.partiql[name], self.dynosql[name] = f"{uid}_p", f"{uid}_d"
        self._keys_of(name, kwargs)
        for table in (self.partiql[name], self.dynosql[name]):
            self.backend.create_table(**{**kwargs, "TableName": table})
            if items:
                self.backend.put_items(table, items)

    def add_read_only(self, name: str, kwargs: dict[str, Any], items: list[dict[str, Any]]) -> None:
        """A table both sides only read: one copy serves both (loaded once)."""
        uid = unique_name(name[:20])
        self.partiql[name] = self.dynosql[name] = uid
        self.backend.create_table(**{**kwargs, "TableName": uid})
        self.backend.put_items(uid, items)
        self._keys_of(name, kwargs)

    def _keys_of(self, name: str, kwargs: dict[str, Any]) -> None:
        schema = {k["KeyType"]: k["AttributeName"] for k in kwargs["KeySchema"]}
        self.keys[name] = (schema["HASH"], schema.get("RANGE"))
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for index in kwargs.get(kind, []):
                keys = {k["KeyType"]: k["AttributeName"] for k in index["KeySchema"]}
                self.index_keys[(name, index["IndexName"])] = (keys["HASH"], keys.get("RANGE"))

    def share(self, name: str, kwargs: dict[str, Any]) -> None:
        """A table both sides read as it is (the example datasets: read-only)."""
        self.partiql[name] = self.dynosql[name] = name
        self.shared.add(name)
        self._keys_of(name, kwargs)

    def drop(self) -> None:
        admin = self.backend.admin()
        for table in {*self.partiql.values(), *self.dynosql.values()} - set(self.shared):
            admin.delete_table(TableName=table)

    # --- running a case ---

    def run(self, case: Case) -> None:
        where = f"{case.source}:{case.line} ({case.title}): {case.statements[0][0]} {case.statements[0][1]}"
        client = self.backend.client()
        if case.mode == "batch":
            theirs = run_partiql_batch(client, self._texts(case, self.partiql))
            ours = [run_dynosql(self.session, t, p) for t, p in self._texts(case, self.dynosql)]
            for mine, other in zip(ours, theirs, strict=True):
                assert mine.canonical(False) == other.canonical(False), where
        elif case.mode == "transaction":
            theirs = run_partiql_transaction(client, self._texts(case, self.partiql))
            mine = self._transaction(self._texts(case, self.dynosql))
            if case.differs is not None:
                self.differs(case.differs, case.statements[0][0], theirs, mine, where)
            else:
                assert mine.canonical(False) == theirs.canonical(False), where
        else:
            ((text, params),) = case.statements
            theirs = run_partiql(client, renamed(text, self.partiql), params)
            mine = run_dynosql(self.session, renamed(text, self.dynosql), params)
            self.compare(text, params, theirs, mine, case.differs, where)
        texts = [t for t, _ in case.statements]
        touched = [n for n in self.partiql if any(n in t for t in texts)]
        if case.differs is not None and self.resync:
            self.copy_back(touched)  # one side wrote what the other refused: as dynosql left it
        if any(not re.match(r"\s*SELECT\b", t, re.I) for t in texts):  # it may have written
            self.same_tables(touched, where)
        self.checked += 1
        self.exercised.add(case.differs or "")

    def _texts(self, case: Case, names: dict[str, str]) -> list[tuple[str, list[Any]]]:
        return [(renamed(t, names), p) for t, p in case.statements]

    def _transaction(self, statements: list[tuple[str, list[Any]]]) -> Outcome:
        """BEGIN, the statements, COMMIT through dynosql: the rows its SELECTs read."""
        rows: list[dict[str, Any]] = []
        self.session.execute("BEGIN").all()
        try:
            for text, params in statements:
                rows.extend(run_dynosql_or_raise(self.session, text, params))
            self.session.execute("COMMIT").all()
        except DynosqlError as err:
            if self.session.in_transaction:
                self.session.execute("ROLLBACK").all()
            from partiql_runner import dynosql_class

            return Outcome(dynosql_class(err))
        return Outcome(rows=rows)

    def compare(
        self,
        text: str,
        params: list[Any],
        theirs: Outcome,
        mine: Outcome,
        differs: str | None,
        where: str,
    ) -> None:
        try:
            statement: Any = parse(text)
        except DynosqlError:
            statement = None  # refused: the outcomes say so
        if isinstance(statement, ast.Update | ast.Delete) and theirs.error == "condition":
            differs = differs or "no-match"  # a keyed write whose item is missing or fails
        if differs is not None:
            self.differs(differs, text, theirs, mine, where)
            return
        ordered = isinstance(statement, ast.Select) and bool(statement.order_by)
        assert mine.canonical(ordered) == theirs.canonical(ordered), where
        if isinstance(statement, ast.Select) and theirs.error is None:
            self.no_dearer(statement, params, mine, where)

    def differs(self, which: str, text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
        assert which in documented_differences(), f"{where}: {which} is not in {DOCS.name}"
        DIFFERENCES[which](text, theirs, mine, where)

    def no_dearer(
        self, statement: ast.Select, params: list[Any], mine: Outcome, where: str
    ) -> None:
        """dynosql's RCU for the statement, at most what PartiQL's read costs (on PartiQL's
        copy, which holds the same items); where dynosql's index read probed for more keys
        than fetching is worth and Scanned instead, at most that plus the probe's bound, as
        its plan states it (plan/fallback.py)."""
        name = statement.table
        keys = (
            self.keys[name] if statement.index is None else self.index_keys[(name, statement.index)]
        )
        bound = bind(statement, positional(params))
        ours = dataclasses.replace(bound, table=self.dynosql.get(name, name))
        bound = dataclasses.replace(bound, table=self.partiql.get(name, name))
        theirs = partiql_read_cost(self.backend.client(), bound, keys)
        self.costs.append((mine.rcu, theirs))
        if mine.rcu <= theirs:
            return
        dearer = f"{where}: dynosql read {mine.rcu} RCU, PartiQL {theirs}"
        rule = self.session.planned(ours).plan.fallback
        switched = any(op.endswith(" keys)") for op in mine.operations)
        assert rule is not None and switched, dearer
        assert mine.rcu <= theirs + rule.probe_rcu, f"{dearer} (probe ≤ {rule.probe_rcu})"
        assert "index-probe" in documented_differences(), where
        self.probed.append((where, mine.rcu, theirs))

    def copy_back(self, names: list[str]) -> None:
        """PartiQL's copy of each table made dynosql's again (after a statement one side ran
        and the other refused, as a difference says)."""
        admin = self.backend.admin()
        for name in names:
            keys = [k for k in self.keys[name] if k is not None]
            for page in admin.get_paginator("scan").paginate(TableName=self.partiql[name]):
                for item in page["Items"]:
                    admin.delete_item(TableName=self.partiql[name], Key={k: item[k] for k in keys})
            found = admin.scan(TableName=self.dynosql[name], ConsistentRead=True)["Items"]
            self.backend.put_items(self.partiql[name], [values.decode_item(i) for i in found])

    def same_tables(self, names: list[str], where: str) -> None:
        client = self.backend.client()
        for name in names:
            if self.partiql[name] == self.dynosql[name]:
                continue
            assert snapshot(client, self.partiql[name]) == snapshot(client, self.dynosql[name]), (
                f"{where}: {name} differs"
            )


def run_dynosql_or_raise(session: Session, text: str, params: list[Any]) -> list[dict[str, Any]]:
    return list(session.execute(text, positional(params)))


# --- the documented differences, each as it shows ---------------------------------------------


def _no_match(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """An UPDATE/DELETE by key whose item is missing or fails the rest of the WHERE: PartiQL's
    ConditionalCheckFailedException, dynosql's 0 items (exit 0)."""
    assert (theirs.error, mine.error, mine.rows) == ("condition", None, []), where


def _column_names(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """A projected document path: PartiQL names the column by its last name, dynosql by the
    path; the same values."""
    renames = partiql_names(parse(text))
    assert any(k != v for k, v in renames.items()), where
    assert mine.canonical(False) == theirs.canonical(False), where


def _transaction_reads(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """SELECTs between BEGIN and COMMIT: PartiQL reads them as one TransactGetItems (and
    refuses two reads of one item, or reads with writes); dynosql reads each as it comes."""
    assert (theirs.error, mine.error) == ("invalid", None), where


def _unorderable_operands(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """A condition DynamoDB refuses for its value's type (``l > NULL``, ``n BETWEEN TRUE AND
    TRUE``, ``begins_with(n, 1)``): PartiQL's ValidationException; dynosql answers it (false
    for every item), as it answers any SELECT."""
    assert (theirs.error, mine.error) == ("invalid", None), where


def _index_projection(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """SELECT * through an index that does not project every attribute: PartiQL returns the
    index's entries, dynosql whole items (fetched from the table): PartiQL's rows are dynosql's
    cut to the attributes the index holds."""
    assert theirs.error is None and mine.error is None, where
    held = {a for row in theirs.rows for a in row}
    cut = [{a: v for a, v in row.items() if a in held} for row in mine.rows]
    assert Outcome(rows=cut).canonical(False) == theirs.canonical(False), where
    assert any(set(row) - held for row in mine.rows), where  # dynosql's hold more


def _partiql_refuses(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """A form PartiQL refuses (ValidationException) and dynosql answers."""
    assert (theirs.error, mine.error) == ("invalid", None), where


def _key_type(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """A key compared with a value it can never hold: PartiQL refuses the statement, dynosql
    sends nothing and answers no rows (with a warning)."""
    sent = mine.operations != ["no request (no item can match)"]
    assert (theirs.error, mine.error, mine.rows, sent) == ("invalid", None, [], False), where


def _dynosql_refuses(text: str, theirs: Outcome, mine: Outcome, where: str) -> None:
    """A form PartiQL runs and dynosql refuses, before any request."""
    assert (theirs.error, mine.error) == (None, "invalid"), where


DIFFERENCES = {
    "select-forms": _partiql_refuses,
    "key-type": _key_type,
    "insert-forms": _partiql_refuses,
    "update-forms": _partiql_refuses,
    "update-arithmetic": _dynosql_refuses,
    "map-keys": _partiql_refuses,
    "returning-columns": _partiql_refuses,
    "exists-alone": _partiql_refuses,
    "index-projection": _index_projection,
    "unorderable-operands": _unorderable_operands,
    "no-match": _no_match,
    "column-names": _column_names,
    "transaction-reads": _transaction_reads,
}


# --- the tables of AWS's examples --------------------------------------------------------------


def _keyed(name: str, pk: tuple[str, str], sk: tuple[str, str] | None = None) -> dict[str, Any]:
    keys = [(pk, "HASH")] + ([(sk, "RANGE")] if sk else [])
    return {
        "TableName": name,
        "KeySchema": [{"AttributeName": a, "KeyType": kind} for (a, _), kind in keys],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t} for (a, t), _ in keys],
        "BillingMode": "PAY_PER_REQUEST",
    }


def reference_tables(world: World) -> None:
    d = Decimal
    world.add(
        "Orders",
        _keyed("Orders", ("OrderID", "N")),
        [
            {
                "OrderID": d(1),
                "Total": d(200),
                "Address": "7834 24th St, Kirkland",
                "Image": b"\x89" * 400,
            },
            {"OrderID": d(2), "Total": d(600), "Address": "some address"},
            {"OrderID": d(3), "Total": d(500)},
            {"OrderID": d(100), "Total": d(750), "Address": "some address"},
            {"OrderID": d(234), "Total": d(90), "Address": "elsewhere"},
            {"OrderID": d(300), "Total": d(1000), "Image": b"\x00" * 20},
        ],
    )
    world.add(
        "Music",
        _keyed("Music", ("Artist", "S"), ("SongTitle", "S")),
        [
            {
                "Artist": "No One You Know",
                "SongTitle": "Call Me Today",
                "AlbumTitle": "Somewhat Famous",
            },
            {"Artist": "No One You Know", "SongTitle": "My Dog Spot", "Awards": d(1)},
            {"Artist": "Acme Band", "SongTitle": "Happy Day", "Awards": d(10)},
        ],
    )
    world.add(
        "WatchList",
        _keyed("WatchList", ("CustomerID", "S"), ("MovieID", "S")),
        [
            {
                "CustomerID": "C1",
                "MovieID": "M1",
                "Devices": {"FireStick": {"DateWatched": ["12/15/19", "12/12/19"]}},
            },
            {
                "CustomerID": "C1",
                "MovieID": "M2",
                "Devices": {"FireStick": {"DateWatched": ["11/01/19"]}},
            },
            {
                "CustomerID": "C2",
                "MovieID": "M1",
                "Devices": {"Roku": {"DateWatched": ["01/01/20"]}},
            },
        ],
    )
    world.add("TypesTable", _keyed("TypesTable", ("primarykey", "S")), [])
    indexed = _keyed("TableName", ("id", "S"))
    indexed["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
    indexed["GlobalSecondaryIndexes"] = [
        {
            "IndexName": "IndexName",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ]
    world.add(
        "TableName",
        indexed,
        [{"id": "a", "g": "x", "n": d(1)}, {"id": "b", "g": "y"}, {"id": "c", "n": d(3)}],
    )


@pytest.fixture
def world(ddblocal_backend: Backend) -> Any:
    client = make_client(endpoint_url=ddblocal_backend.endpoint_url, credentials=("t", "t"))
    # no undo journal: what is written does not depend on it, and its fsyncs cost time here
    session = Session(client, settings=Settings(journal_dir="off"))
    session.assume_yes = True
    made = World(ddblocal_backend, session)
    yield made
    made.drop()


def test_every_documented_difference(world: World) -> None:
    """Each row of docs/partiql.md's table of differences, shown by a statement
    (tests/data/partiql/differences.txt) or by the generated corpora below (index-probe,
    index-projection, write-without-key, transaction-reads, no-match, column-names,
    scan-warning: tests/test_partiql.py)."""
    reference_tables(world)
    world.resync = True
    cases = read_corpus(DIFFERENCES_FILE)
    for case in cases:
        world.run(case)
    shown_elsewhere = {
        "index-probe",
        "index-projection",
        "write-without-key",
        "transaction-reads",
        "no-match",
        "column-names",
        "scan-warning",
    }
    assert documented_differences() == (world.exercised - {""}) | shown_elsewhere


def test_every_reference_example(world: World) -> None:
    reference_tables(world)
    cases = read_corpus(REFERENCE)
    assert len(cases) >= 55
    for case in cases:
        world.run(case)
    assert world.checked == len(cases)
    assert len(world.costs) >= 20  # the SELECTs' read costs were compared


# --- generated over the write fuzzer's tables ----------------------------------------------------


def _items_of(world: World, name: str) -> list[dict[str, Any]]:
    """The table's items (PartiQL's copy), as the write fuzzer's values."""
    client = world.backend.client()
    found = client.scan(TableName=world.partiql[name], ConsistentRead=True)["Items"]
    return [{k: wm.plain(v) for k, v in values.decode_item(i).items()} for i in found]


@dataclass
class Drawn:
    text: str
    params: list[Any]
    kind: str  # insert, update, delete, select
    conditions: list[Any] = field(default_factory=list)  # the write model's, as drawn

    @property
    def differs(self) -> str | None:
        if any(_type_refused(c) for c in self.conditions):
            return "unorderable-operands"
        return None


def _fuzz_statement(gen: Gen, items: list[dict[str, Any]]) -> Drawn:
    """One PartiQL statement over the table "t"."""
    rng = gen.rng
    schema = gen.schema
    out = PartiQLWriter()
    if rng.random() < 0.2:
        item = rng.choice(items) if items and rng.random() < 0.25 else gen.item()
        body = ", ".join(f"{_literal(k)}: {out.value(v)}" for k, v in item.items())
        return Drawn(f'INSERT INTO "t" VALUE {{{body}}}', out.params, "insert")
    if rng.random() < 0.3:
        return _fuzz_select(gen, items)
    changes, conditions = [], []
    verb = "update" if rng.random() < 0.7 else "delete"
    if verb == "update":
        taken: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            change, guards = gen.assignment(items, taken)
            taken.add(change.path[0])
            changes.append(out.change(change))
            if guards and rng.random() < 0.5:
                conditions.extend(guards)
    key_source = rng.choice(items) if items and rng.random() < 0.7 else gen.item()
    key = " AND ".join(f"{out.path((k,))} = {out.value(key_source[k])}" for k in schema.keys)
    if rng.random() < 0.4:
        conditions.append(_no_like(gen, items))
    extra = "".join(f" AND ({out.cond(c)})" for c in conditions)
    if verb == "delete":
        returning = rng.choice(["", " RETURNING ALL OLD *"])
        return Drawn(f'DELETE FROM "t" WHERE {key}{extra}{returning}', out.params, verb, conditions)
    returning = rng.choice(["", "", " ALL OLD", " ALL NEW", " MODIFIED OLD", " MODIFIED NEW"])
    returning = f" RETURNING{returning} *" if returning else ""
    text = f'UPDATE "t" {" ".join(changes)} WHERE {key}{extra}{returning}'
    return Drawn(text, out.params, verb, conditions)


def _fuzz_select(gen: Gen, items: list[dict[str, Any]]) -> Drawn:
    rng = gen.rng
    schema = gen.schema
    out = PartiQLWriter()
    columns = "*"
    if rng.random() < 0.4:
        picked = rng.sample(["a", "n", "m", "l", "tags", "name"], rng.randint(1, 3))
        columns = ", ".join(out.path((c,)) for c in [*schema.keys, *picked])
    if schema.sk and rng.random() < 0.25:  # one partition, in sort-key order
        pk_value = rng.choice(items)[schema.pk[0]] if items else gen.item()[schema.pk[0]]
        order = f' ORDER BY "{schema.sk[0]}"' + rng.choice(["", " DESC"])
        where = f" WHERE {out.path((schema.pk[0],))} = {out.value(pk_value)}"
        return Drawn(f'SELECT {columns} FROM "t"{where}{order}', out.params, "select")
    condition, _ = gen.where(items, allow_none=True)
    while condition is not None and "Like(" in repr(condition):
        condition, _ = gen.where(items, allow_none=True)
    where = "" if condition is None else " WHERE " + out.cond(condition)
    conditions = [] if condition is None else [condition]
    return Drawn(f'SELECT {columns} FROM "t"{where}', out.params, "select", conditions)


ORDERED = ("S", "N", "B")


def _type_refused(c: Any) -> bool:
    """Whether DynamoDB refuses the condition for a value's type (an ordering comparison of a
    value that has no order, begins_with of a value that is no string or binary)."""
    if isinstance(c, wm.Compare):
        return c.op in ("<", "<=", ">", ">=") and wm.type_of(c.value) not in ORDERED
    if isinstance(c, wm.Between):
        return any(wm.type_of(v) not in ORDERED for v in (c.low, c.high))
    if isinstance(c, wm.Func) and c.name == "begins_with":
        return wm.type_of(c.arg) not in ("S", "B")
    if isinstance(c, wm.Not):
        return _type_refused(c.part)
    if isinstance(c, wm.Junction):
        return any(_type_refused(p) for p in c.parts)
    return False


def _no_like(gen: Gen, items: list[dict[str, Any]]) -> Any:
    for _ in range(50):
        c = gen.predicate(items)
        if "Like" not in repr(c):
            return c
    raise wm.Unmodelable("only LIKE drawn")


@pytest.mark.parametrize("seed", [11, 12])
def test_generated_statements_over_the_write_fuzzer_tables(world: World, seed: int) -> None:
    """Keyed INSERT/UPDATE/DELETE and SELECTs in PartiQL's syntax over a table of the write
    fuzzer's (every type, missing attributes, sparse indexes), both ways."""
    rng = random.Random(seed)
    schema = draw_schema(rng)
    gen = Gen(rng, schema, "t", "t")
    start = [{k: plain_value(v) for k, v in i.items()} for i in gen.items(12).values()]
    world.add("t", schema.create_kwargs("t"), start)
    kinds: dict[str, int] = {}
    items = _items_of(world, "t")
    while sum(kinds.values()) < 40:
        try:
            drawn = _fuzz_statement(gen, items)
        except wm.Unmodelable:
            continue
        case = Case(drawn.kind, [(drawn.text, drawn.params)], "statement", drawn.differs, seed)
        case.source = "seed"
        world.run(case)
        kinds[drawn.kind] = kinds.get(drawn.kind, 0) + 1
        if drawn.kind != "select":
            items = _items_of(world, "t")
    assert min(kinds.values()) >= 3, kinds


# --- generated over the example datasets -------------------------------------------------------


def _example_selects(name: str, rng: random.Random) -> list[tuple[str, str | None]]:
    """SELECTs a console user would write over the example table `name` (its items drawn from
    the dataset itself: the same items as loaded), each with the difference it shows, if any."""
    from dynosql.examples import datasets

    dataset = datasets.DATASETS[name]
    items = list(dataset.items())
    pk, sk = dataset.key_names
    w = PartiQLWriter()
    t = f'"{name}"'
    q = w.path

    def some(attribute: str) -> Any:
        return rng.choice([i[attribute] for i in items if attribute in i])

    one = rng.choice(items)
    other = rng.choice([i for i in items if i[pk] != one[pk]])
    in_partition = sorted(i[sk] for i in items if i[pk] == one[pk])
    low, high = in_partition[len(in_partition) // 4], in_partition[len(in_partition) // 2]
    attributes = sorted({a for i in items for a in i} - {pk, sk})
    plain = [
        a for a in attributes if all(values.type_of(i.get(a, "")) in ("S", "N") for i in items)
    ]
    picked = rng.sample(plain, min(2, len(plain)))
    columns = ", ".join(q((a,)) for a in [pk, sk, *picked])
    keys = f"{q((pk,))}, {q((sk,))}"
    a = rng.choice(plain)
    numeric = [x for x in plain if any(values.type_of(i.get(x)) == "N" for i in items)]
    statements: list[tuple[str, str | None]] = [
        (f"SELECT * FROM {t} WHERE {q((pk,))} = {w.value(one[pk])}", None),
        (
            f"SELECT {columns} FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} AND {q((sk,))} = {w.value(one[sk])}",
            None,
        ),
        (
            f"SELECT * FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} AND {q((sk,))} > {w.value(high)}",
            None,
        ),
        (
            f"SELECT {columns} FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} AND {q((sk,))} BETWEEN {w.value(low)} AND {w.value(high)}",
            None,
        ),
        (
            f"SELECT * FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} AND begins_with({q((sk,))}, {w.value(high[: max(1, len(high) // 2)])})",
            None,
        ),
        (
            f"SELECT {columns} FROM {t} WHERE {q((pk,))} IN [{w.value(one[pk])}, {w.value(other[pk])}]",
            None,
        ),
        (
            f"SELECT * FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} OR {q((pk,))} = {w.value(other[pk])}",
            None,
        ),
        (
            f"SELECT {columns} FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} ORDER BY {q((sk,))} DESC",
            None,
        ),
        # Scans, PartiQL's and dynosql's: the keys alone come back (parsing 1,300 whole items
        # twice a statement is most of what this test would cost)
        (f"SELECT {keys} FROM {t} WHERE {q((a,))} = {w.value(some(a))}", None),
        (
            f"SELECT * FROM {t} WHERE {q((pk,))} = {w.value(one[pk])} AND "
            f"attribute_type({q((a,))}, 'S')",
            None,
        ),
    ]
    if len(items) < 600:  # more Scans where they are cheap
        missing = f"{q((a,))} IS MISSING AND size({q((sk,))}) > 30"
        statements.append((f"SELECT {keys} FROM {t} WHERE {missing}", None))
    if numeric and len(items) < 600:
        n = rng.choice(numeric)
        where = f"{q((n,))} >= {w.value(max(i[n] for i in items if n in i))}"
        statements.append((f"SELECT {keys}, {q((n,))} FROM {t} WHERE {where}", None))
    for index in dataset.table.get("GlobalSecondaryIndexes", []):
        key = index["KeySchema"][0]["AttributeName"]
        value = w.value(some(key))
        # PartiQL Scans the table for an index key; dynosql reads the index where it holds
        # every item the WHERE can match (its sort key too: a sparse index)
        statements.append((f"SELECT * FROM {t} WHERE {q((key,))} = {value}", None))
        for part in index["KeySchema"][1:]:
            if part["AttributeName"] in (pk, sk):
                continue  # every item has it (DynamoDB Local fails on the condition, too)
            present = f"attribute_exists({q((part['AttributeName'],))})"
            statements.append(
                (f"SELECT * FROM {t} WHERE {q((key,))} = {value} AND {present}", None)
            )
        projected = index["Projection"]["ProjectionType"] == "ALL"
        statements.append(
            (
                f'SELECT * FROM {t}."{index["IndexName"]}" WHERE {q((key,))} = {value}',
                None if projected else "index-projection",
            )
        )
    assert not w.params  # the examples hold no binary values
    return statements


@pytest.mark.parametrize("name", ["drive", "sensors", "tenants", "usage"])  # audit: drive's
def test_generated_selects_over_the_example_datasets(
    world: World, ddblocal_examples_backend: Backend, name: str
) -> None:
    """SELECTs over the example tables (read only, so one copy serves both sides): the same
    rows, and dynosql's read never dearer; where a GSI serves, cheaper than PartiQL's Scan."""
    from dynosql.examples import datasets

    table = datasets.DATASETS[name].table
    world.share(name, table)
    rng = random.Random(name)
    for n, (text, differs) in enumerate(_example_selects(name, rng), 1):
        world.run(Case("select", [(text, [])], "statement", differs, n, name))
    assert world.checked >= 10
    if any(
        i["Projection"]["ProjectionType"] == "ALL" for i in table.get("GlobalSecondaryIndexes", [])
    ):
        assert any(mine < theirs for mine, theirs in world.costs)  # the index beat a Scan


# --- index reads that fetch, over low-cardinality keys ----------------------------------------


def _audit_indexed() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The example audit table (1,000 items) with two indexes that need a fetch for whole
    items: KEYS_ONLY on action (7 values, about 140 items each) sorted by latencyMs, and a
    sparse INCLUDE one on error (35 items, 2 values)."""
    from dynosql.examples import datasets

    dataset = datasets.DATASETS["audit"]
    kwargs = json.loads(json.dumps(dataset.table))
    kwargs["AttributeDefinitions"] += [
        {"AttributeName": "action", "AttributeType": "S"},
        {"AttributeName": "latencyMs", "AttributeType": "N"},
        {"AttributeName": "error", "AttributeType": "S"},
    ]
    kwargs["GlobalSecondaryIndexes"] = [
        {
            "IndexName": "by_action",
            "KeySchema": [
                {"AttributeName": "action", "KeyType": "HASH"},
                {"AttributeName": "latencyMs", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
        {
            "IndexName": "by_error",
            "KeySchema": [{"AttributeName": "error", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["action"]},
        },
    ]
    return kwargs, list(dataset.items())


def _fetching_selects(
    items: list[dict[str, Any]], key: str, sort: str, t: str, rng: random.Random, present: str = ""
) -> list[str]:
    """SELECTs through an index on `key` (sorted by `sort`) that lacks attributes: two values of
    the key whole (more items than fetching is worth), sort-key ranges that select a few, about
    the break-even and more, an IN of two values whole and in a range. `present`: the condition
    that puts the index's sort key in the WHERE (the index is sparse where items may lack it)."""
    w = PartiQLWriter()
    by_value: dict[Any, list[Any]] = {}
    for i in items:
        if key in i and sort in i:
            by_value.setdefault(i[key], []).append(i[sort])
    q = w.path
    values_ = sorted(by_value)
    whole = [f"SELECT * FROM {t} WHERE {q((key,))} = {w.value(v)}" for v in rng.sample(values_, 2)]
    out = [f"{text}{present}" for text in whole]
    for v in rng.sample(values_, 2):
        ranked = sorted(by_value[v])
        for many in (3, 20, 40):  # about that many items above the bound
            bound = ranked[max(0, len(ranked) - many - 1)]
            out.append(
                f"SELECT * FROM {t} WHERE {q((key,))} = {w.value(v)} AND {q((sort,))} > {w.value(bound)}"
            )
    two = rng.sample(values_, 2)
    listed = f"SELECT * FROM {t} WHERE {q((key,))} IN [{w.value(two[0])}, {w.value(two[1])}]"
    low = sorted(by_value[two[0]])[-8]
    out += [f"{listed}{present}", f"{listed} AND {q((sort,))} >= {w.value(low)}"]
    assert not w.params
    return out


def test_index_reads_that_fetch_never_cost_more_than_partiql(
    world: World, ddblocal_examples_backend: Backend
) -> None:
    """Low-cardinality keys of indexes that lack attributes (the example sensors' INCLUDE
    by_region, and KEYS_ONLY and sparse INCLUDE indexes on a copy of audit): dynosql's read
    never costs more than PartiQL's Scan but by the probe's bound (`no_dearer`); where a key
    holds few items it fetches them, cheaper than the Scan; where it holds many it Scans."""
    from dynosql.examples import datasets

    rng = random.Random("fetching")
    sensors = datasets.DATASETS["sensors"]
    world.share("sensors", sensors.table)
    kwargs, items = _audit_indexed()
    world.add_read_only("audit_ix", kwargs, items)
    texts = _fetching_selects(list(sensors.items()), "region", "readingTs", '"sensors"', rng)
    present = ' AND attribute_exists("latencyMs")'  # (by_action is sparse on it)
    texts += _fetching_selects(items, "action", "latencyMs", '"audit_ix"', rng, present)
    texts += [
        f'SELECT * FROM "audit_ix" WHERE "error" = \'{e}\''
        for e in ("AccessDenied", "InvalidPassword")
    ]
    texts += [
        'SELECT "PK", "SK", "action" FROM "audit_ix" WHERE "error" = \'AccessDenied\'',
        f'SELECT * FROM "audit_ix" WHERE "action" = \'read\' AND "ok" = false{present}',
    ]
    for n, text in enumerate(texts, 1):
        world.run(Case("select", [(text, [])], "statement", None, n, "fetching"))
    fetched = [m < t for m, t in world.costs]
    assert len(world.probed) >= 5 and sum(fetched) >= 10, (world.probed, world.costs)


# --- EXPLAIN (FORMAT PARTIQL): every statement it prints, run --------------------------------------

# dynosql statements over the reference tables, each with what PartiQL says to the statement
# itself when it is one of PartiQL's (None: PartiQL runs it as dynosql does; a class: it
# refuses it, the difference the statements EXPLAIN prints make up for)
EXPLAINED = [
    ("SELECT OrderID, Total FROM Orders WHERE Total > 500", None),
    ("SELECT * FROM Orders WHERE OrderID IN (1, 2, 300, 4)", None),
    (
        "SELECT * FROM Music WHERE Artist = 'No One You Know' "
        "AND SongTitle IN ('Call Me Today', 'My Dog Spot', 'Nope')",
        None,
    ),
    (
        "SELECT Artist, SongTitle FROM Music WHERE Artist = 'No One You Know' ORDER BY SongTitle DESC",
        None,
    ),
    ("SELECT * FROM TableName WHERE g = 'x'", None),
    ("SELECT id FROM TableName WHERE n >= 1 AND id <> 'zz'", None),
    ("SELECT COUNT(*) FROM Orders WHERE Total >= 500", "invalid"),
    ("SELECT OrderID FROM Orders WHERE Address LIKE '%Kirkland'", "invalid"),
    ("SELECT * FROM Orders ORDER BY Total DESC LIMIT 2", "invalid"),
    ("UPDATE Orders SET Seen = TRUE, Tags = Tags + {'a'} WHERE OrderID IN (1, 2)", "invalid"),
    ("UPDATE Music SET Awards = 5 REMOVE AlbumTitle WHERE Artist = 'No One You Know'", "invalid"),
    ("DELETE FROM Orders WHERE Total < 100", "invalid"),
    (
        "INSERT INTO Music (Artist, SongTitle, Year) VALUES ('New', 'One', 2024), ('New', 'Two', 2025)",
        "invalid",
    ),
    (
        "UPDATE Music SET Plays = if_not_exists(Plays, 0) + 1 "
        "WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day' RETURNING *",
        "invalid",
    ),
    ("DELETE FROM Music WHERE Artist = 'New' AND SongTitle = 'Two' RETURNING old.*", "invalid"),
]


def _run_translation(world: World, document: dict[str, Any], key_names: list[str]) -> Outcome:
    """The statements EXPLAIN (FORMAT PARTIQL) printed, run on PartiQL's copy: a statement
    marked each_item once per row of the statement before it, that row's key values last."""
    client = world.backend.client()
    rows: list[dict[str, Any]] = []
    last: list[dict[str, Any]] = []
    for s in document["partiql"]:
        text = renamed_copy(s["statement"], world)
        params = [values.decode(p) for p in s["parameters"]]
        if s["each_item"]:
            found: list[dict[str, Any]] = []
            for row in last:
                one = run_partiql(client, text, params + [row[k] for k in key_names])
                if one.error:
                    return one
                found.extend(one.rows)
            last = found
        else:
            one = run_partiql(client, text, params)
            if one.error:
                return one
            last = one.rows
        rows = last
    return Outcome(rows=rows)


def renamed_copy(text: str, world: World) -> str:
    for name in world.partiql:
        text = text.replace(f'"{world.dynosql[name]}"', f'"{world.partiql[name]}"')
    return text


def test_explain_format_partiql_statements_run_on_dynamodb(world: World) -> None:
    """Every statement EXPLAIN (FORMAT PARTIQL) prints runs through DynamoDB Local's
    ExecuteStatement: a SELECT it translates whole (no note) gives dynosql's rows, and a write
    leaves PartiQL's copy as the statement leaves dynosql's, where PartiQL refuses the statement
    itself (a write without the full key, INSERT … VALUES, RETURNING *)."""
    reference_tables(world)
    client = world.backend.client()
    for text, alone in EXPLAINED:
        where = f"EXPLAIN (FORMAT PARTIQL) {text}"
        explained = world.session.execute(
            f"EXPLAIN (FORMAT PARTIQL) {renamed(text, world.dynosql)}"
        )
        explained.all()
        document = explained.document
        assert document["partiql"] and not document["more"], where
        statement = parse(text)
        keys = list(world.keys[statement.table])
        keys = [k for k in keys if k is not None]
        theirs = _run_translation(world, document, keys)
        assert theirs.error is None, where
        direct = run_partiql(client, renamed(text, world.partiql), [])
        if isinstance(statement, ast.Select):
            assert direct.error == alone, where
            mine = run_dynosql(world.session, renamed(text, world.dynosql), [])
            if not document["notes"]:
                assert mine.canonical(False) == theirs.canonical(False), where
        else:
            assert (direct.error or None) == alone, where
            run_dynosql_or_raise(world.session, renamed(text, world.dynosql), [])
            world.same_tables(list(world.partiql), where)
    assert "write-without-key" in documented_differences()
