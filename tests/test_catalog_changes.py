"""The port's catalog across table changes. The port forgets what it cached of a table when it
sends the table a change, and keeps the newest DescribeTable its wait received, so the next
statement in the same session plans on the new schema and no statement kind refreshes
anything (tests/test_architecture.py). A statement that must see a table as it is now,
changed elsewhere or not, asks for a fresh DescribeTable: a table change's plan, SHOW CREATE
TABLE, UNDO (test_undo_safety.py: a table recreated by another client)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from repl_driver import drive

from dynosql.errors import PlanError
from dynosql.session import Session


def _described(session: Session) -> list[str]:
    """The table of every DescribeTable the session sends from now on, in order."""
    names: list[str] = []
    session.client.meta.events.register(
        "provide-client-params.dynamodb.DescribeTable",
        lambda params, **_: names.append(params["TableName"]),
    )
    return names


def _reads(session: Session, sql: str) -> str:
    """What EXPLAIN says the statement reads: ``Query t.ix``, ``Scan t``."""
    document = session.execute(f"EXPLAIN {sql}").document
    index = f".{document['index']}" if document.get("index") else ""
    return f"{document['operation']} {document['table']}{index}"


def test_each_table_change_is_seen_by_the_next_statement_and_described_once(
    moto_backend: Backend,
) -> None:
    """CREATE TABLE, CREATE INDEX, ALTER TABLE, DROP INDEX and DROP TABLE, each followed by a
    statement that reads the cached catalog: it sees the change. A change costs one fresh
    DescribeTable to plan it (CREATE TABLE: none) and its wait's polls (one on moto, where
    every change is done at once); the statement after it describes nothing, and another
    table is described once in the whole session (before, every change forgot every table)."""
    session = Session(moto_backend.client())
    session.assume_yes = True
    other = unique_name("other")
    moto_backend.create_keyed_table(other)
    t = unique_name("changed")
    described = _described(session)
    session.execute(f"SELECT * FROM {other} WHERE pk = 'a'").all()
    steps: list[tuple[str, list[str], Any]] = [
        (f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))", [t], None),
        (f"INSERT INTO {t} (pk, v) VALUES ('a', 1)", [], None),
        (f"SELECT * FROM {t} WHERE v = 1", [], f"Scan {t}"),
        (f"CREATE INDEX by_v ON {t} (v N)", [t, t], None),
        (f"SELECT * FROM {t} WHERE v = 1", [], f"Query {t}.by_v"),
        (f"ALTER TABLE {t} SET BILLING PROVISIONED (4, 3)", [t, t], None),
        (f"DROP INDEX by_v ON {t}", [t, t], None),
        (f"SELECT * FROM {t} WHERE v = 1", [], f"Scan {t}"),
        (f"SELECT * FROM {other} WHERE pk = 'a'", [], f"Query {other}"),
    ]
    for sql, describes, reads in steps:
        before = len(described)
        if reads is None:
            session.execute(sql).all()
        else:
            assert _reads(session, sql) == reads, sql
        assert described[before:] == describes, sql
        if sql.startswith("ALTER"):
            assert session.table(t).billing_mode == "PROVISIONED"  # the cached description
    session.execute(f"DROP TABLE {t}").all()
    with pytest.raises(PlanError, match=f"no table named {t}"):
        session.execute(f"SELECT * FROM {t}").all()
    assert described.count(other) == 1, described
    assert len(described) == 11, described  # 16 when every change forgot every table


def test_the_table_names_follow_the_changes_sent(moto_backend: Backend, tmp_path: Path) -> None:
    """The port's cached table names (what CREATE ENTITY checks a new name against) after
    CREATE TABLE, DROP TABLE and IMPORT MODEL, with no ListTables asked for in between."""
    session = Session(moto_backend.client())
    session.assume_yes = True
    t = unique_name("named")
    model = tmp_path / "model.json"
    assert t not in session.port.table_names()
    session.execute(f"CREATE TABLE {t} (pk S, v N, PRIMARY KEY (pk)) WITH GSI by_v (v)").all()
    assert t in session.port.table_names()
    session.execute(f"EXPORT MODEL {t} TO '{model}'").all()
    session.execute(f"DROP TABLE {t}").all()
    assert t not in session.port.table_names()
    session.execute(f"IMPORT MODEL '{model}'").all()
    assert t in session.port.table_names()
    assert _reads(session, f"SELECT * FROM {t} WHERE v = 1") == f"Query {t}.by_v"
    session.execute(f"DROP TABLE {t}").all()


def test_a_change_made_elsewhere_is_seen_where_a_statement_must_see_it(
    moto_backend: Backend,
) -> None:
    """The session cached the table; another client adds an index, then others. A plain read
    keeps the cached description (no DescribeTable per statement); SHOW CREATE TABLE,
    DESCRIBE and the REPL's \\d and \\dt+ read the table afresh, and the statement after
    them sees the index."""
    session = Session(moto_backend.client())
    session.assume_yes = True
    t = unique_name("elsewhere")
    moto_backend.create_keyed_table(t)
    assert _reads(session, f"SELECT * FROM {t} WHERE v = 1") == f"Scan {t}"
    _add_index_elsewhere(moto_backend, t, "v")
    assert _reads(session, f"SELECT * FROM {t} WHERE v = 1") == f"Scan {t}"  # as cached
    shown = session.execute(f"SHOW CREATE TABLE {t}").all()[0]["statement"]
    assert "by_v" in shown
    assert _reads(session, f"SELECT * FROM {t} WHERE v = 1") == f"Query {t}.by_v"
    _add_index_elsewhere(moto_backend, t, "w", "v")
    described = [row["name"] for row in session.execute(f"DESCRIBE {t}").all()]
    assert described == [t, "by_v", "by_w"]
    assert _reads(session, f"SELECT * FROM {t} WHERE w = 1") == f"Query {t}.by_w"
    for command, index, before in (("\\d", "x", ("v", "w")), ("\\dt+", "y", ("v", "w", "x"))):
        _add_index_elsewhere(moto_backend, t, index, *before)
        screen, _ = drive(session, f"{command} {t}\r\\q\r")
        assert f"by_{index}" in screen, screen
    session.execute(f"DROP TABLE {t}").all()


def _add_index_elsewhere(backend: Backend, table: str, attribute: str, *before: str) -> None:
    """A GSI ``by_<attribute>`` on a Number `attribute`, added by another client. Every key
    attribute is defined again (`before`: the earlier indexes'): moto replaces a table's
    AttributeDefinitions with UpdateTable's, where DynamoDB adds to them."""
    defined = [("pk", "S"), ("sk", "N"), *((a, "N") for a in (*before, attribute))]
    backend.client().update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": k} for a, k in defined],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": f"by_{attribute}",
                    "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )


def test_a_table_dropped_elsewhere_is_not_its_own_did_you_mean(moto_backend: Backend) -> None:
    """The session listed the tables (completion, SHOW TABLES), then another client dropped
    one. DescribeTable's "not found" makes that listing stale: the refusal lists the tables as
    they are now, and does not offer the missing name as the correction of itself."""
    session = Session(moto_backend.client())
    t = unique_name("dropped")
    moto_backend.create_keyed_table(t)
    assert t in session.tables()
    moto_backend.delete_table(t)
    for sql in (f"DESCRIBE {t}", f"SELECT * FROM {t} WHERE pk = 'a'"):
        with pytest.raises(PlanError) as info:
            session.execute(sql).all()
        message = str(info.value)
        listed = message.partition("(tables: ")[2].rstrip(")").split(", ")
        assert message.startswith(f"no table named {t} ") and t not in listed, message
        assert f"did you mean {t}?" not in message, message


def test_import_model_checks_the_tables_there_as_they_are_now(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """IMPORT MODEL keeps a table that exists with the model's keys and indexes, and refuses
    one that exists otherwise: it compares the table as DescribeTable says it is now, not as
    the session described it before another client made it again with other keys."""
    session = Session(moto_backend.client())
    session.assume_yes = True
    t = unique_name("remade")
    model = tmp_path / "model.json"
    moto_backend.create_keyed_table(t, sk=None)
    moto_backend.put_items(t, [{"pk": "a"}])
    session.execute(f"EXPORT MODEL {t} TO '{model}'").all()  # the session has described it
    moto_backend.delete_table(t)
    moto_backend.create_keyed_table(t)  # pk S, sk N
    with pytest.raises(PlanError, match=f"table {t} exists with other keys or indexes"):
        session.execute(f"IMPORT MODEL '{model}'").all()
    moto_backend.delete_table(t)


def test_export_model_writes_the_tables_as_they_are_now(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """EXPORT MODEL records each table's keys and indexes, as SHOW CREATE TABLE prints them:
    from DescribeTable now, not from what the session described before another client added
    an index."""
    session = Session(moto_backend.client())
    t = unique_name("exported")
    model = tmp_path / "model.json"
    moto_backend.create_keyed_table(t)
    assert _reads(session, f"SELECT * FROM {t} WHERE v = 1") == f"Scan {t}"  # described
    _add_index_elsewhere(moto_backend, t, "v")
    session.execute(f"EXPORT MODEL {t} TO '{model}'").all()
    (table,) = json.loads(model.read_text())["DataModel"]
    assert [ix["IndexName"] for ix in table["GlobalSecondaryIndexes"]] == ["by_v"]
    moto_backend.delete_table(t)
