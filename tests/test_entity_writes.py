"""Writes through entities (moto; dynalite and DynamoDB Local in the full suite): each leaves
exactly the item its hand-written physical write leaves (a twin table written by hand), undo
restores exactly, RETURNING gives the entity's columns, and what cannot be written is refused
naming why, before any request."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name

from dynosql import values
from dynosql.errors import DynosqlError, PlanError, SqlError
from dynosql.session import Session
from dynosql.settings import Settings

TABLE = {
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "gsi1",
            "KeySchema": [
                {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
}

INVOICE = """CREATE ENTITY {name} ON {table} (
  KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId),
  INDEX gsi1 (gsi1pk = 'STATUS#' || status, gsi1sk = dueDate) WHERE status <> 'void',
  kind = 'invoice'
)"""

# (the entity write, the physical write by hand) in order; {t}: the table, {e}: the entity
STEPS = [
    (
        "INSERT INTO {e} (tenantId, invoiceId, amount, status, dueDate) VALUES "
        "('acme', '000001', 120.5, 'open', '2026-07-01'), ('acme', '000002', 80, 'void', '2026-07-02')",
        "INSERT INTO {t} (pk, sk, gsi1pk, gsi1sk, kind, tenantId, invoiceId, amount, status, dueDate) "
        "VALUES ('TENANT#acme', 'INVOICE#000001', 'STATUS#open', '2026-07-01', 'invoice', 'acme', "
        "'000001', 120.5, 'open', '2026-07-01');"
        "INSERT INTO {t} (pk, sk, kind, tenantId, invoiceId, amount, status, dueDate) VALUES "
        "('TENANT#acme', 'INVOICE#000002', 'invoice', 'acme', '000002', 80, 'void', '2026-07-02')",
    ),
    (
        "UPDATE {e} SET amount = amount + 1 WHERE tenantId = 'acme' AND invoiceId = '000001'",
        "UPDATE {t} SET amount = amount + 1 WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000001'",
    ),
    (
        "UPDATE {e} SET status = 'paid', dueDate = '2026-08-01' "
        "WHERE tenantId = 'acme' AND invoiceId = '000002'",
        "UPDATE {t} SET status = 'paid', dueDate = '2026-08-01', gsi1pk = 'STATUS#paid', "
        "gsi1sk = '2026-08-01' WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000002'",
    ),
    (
        "UPDATE {e} SET status = 'void' WHERE tenantId = 'acme' AND invoiceId = '000001'",
        "UPDATE {t} SET status = 'void' REMOVE gsi1pk, gsi1sk "
        "WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000001'",
    ),
    (
        "DELETE FROM {e} WHERE tenantId = 'acme' AND invoiceId = '000001'",
        "DELETE FROM {t} WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000001'",
    ),
]


def _items(session: Session, table: str) -> list[dict[str, Any]]:
    items = [values.decode_item(i) for i in session.client.scan(TableName=table)["Items"]]
    return sorted(items, key=lambda i: (i["pk"], i["sk"]))


@pytest.fixture
def twins(backend: Backend, tmp_path: Path) -> Any:
    """Two empty tables of one shape: one written through the entity, one by hand."""
    names = [unique_name("ent"), unique_name("raw")]
    for name in names:
        backend.create_table(TableName=name, **TABLE)
    session = Session(backend.client(), settings=Settings(journal_dir=str(tmp_path / "j")))
    session.execute(INVOICE.format(name="invoice", table=names[0]))
    yield session, names[0], names[1]
    for name in names:
        backend.delete_table(name)


def test_each_write_leaves_the_item_its_physical_form_leaves_and_undo_restores(twins: Any) -> None:
    session, table, raw = twins
    journals = []
    before = []
    for entity_sql, physical_sql in STEPS:
        before.append(_items(session, table))
        session.execute(entity_sql.format(e="invoice"))
        journals.append(session.last_write.journal if session.last_write else None)
        for sql in physical_sql.format(t=raw).split(";"):
            session.execute(sql)
        assert _items(session, table) == _items(session, raw), entity_sql
    assert _items(session, table) == [
        {
            "pk": "TENANT#acme",
            "sk": "INVOICE#000002",
            "kind": "invoice",
            "tenantId": "acme",
            "invoiceId": "000002",
            "amount": Decimal(80),
            "status": "paid",
            "dueDate": "2026-08-01",
            "gsi1pk": "STATUS#paid",
            "gsi1sk": "2026-08-01",
        }
    ]
    for journal, items in zip(reversed(journals), reversed(before), strict=True):
        assert journal is not None
        session.undo(journal).all()
        assert _items(session, table) == items
    assert _items(session, table) == []


def test_returning_and_reads_give_the_entity_columns(moto_backend: Backend, tmp_path: Path) -> None:
    table = unique_name("ent")
    moto_backend.create_table(TableName=table, **TABLE)
    session = Session(moto_backend.client(), settings=Settings(journal_dir=str(tmp_path)))
    session.execute(INVOICE.format(name="invoice", table=table))
    inserted = session.execute(
        "INSERT INTO invoice (tenantId, invoiceId, amount, status, dueDate) "
        "VALUES ('hooli', '000007', 9, 'open', '2026-05-05') RETURNING *"
    )
    assert inserted.columns[:4] == ["tenantId", "invoiceId", "status", "dueDate"]
    assert inserted.all() == [
        {
            "tenantId": "hooli",
            "invoiceId": "000007",
            "status": "open",
            "dueDate": "2026-05-05",
            "amount": Decimal(9),
        }
    ]
    updated = session.execute(
        "UPDATE invoice SET status = 'paid' WHERE tenantId = 'hooli' AND invoiceId = '000007' "
        "AND dueDate = '2026-05-05' RETURNING invoiceId, old.status AS was, status, gsi1pk"
    )
    assert updated.all() == [
        {"invoiceId": "000007", "was": "open", "status": "paid", "gsi1pk": "STATUS#paid"}
    ]
    rows = session.execute("SELECT invoiceId, dueDate FROM invoice WHERE status = 'paid'")
    assert rows.all() == [{"invoiceId": "000007", "dueDate": "2026-05-05"}]
    assert "Query" in rows.stats.operations[0] and "gsi1" in rows.stats.operations[0]
    session.execute("DROP ENTITY invoice")  # the definition only: the item stays
    assert len(_items(session, table)) == 1
    moto_backend.delete_table(table)


@pytest.fixture(scope="module")
def invoices(moto_backend: Backend) -> Any:
    table = unique_name("ent")
    moto_backend.create_table(TableName=table, **TABLE)
    session = Session(moto_backend.client(), settings=Settings(journal_dir=""))
    session.execute(INVOICE.format(name="invoice", table=table))
    yield session, table
    moto_backend.delete_table(table)


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "UPDATE invoice SET invoiceId = '9' WHERE tenantId = 'a' AND invoiceId = '1'",
            "invoiceId composes sk, the key of {t}: a key never changes (DELETE the invoice and "
            "INSERT it with the new invoiceId)",
        ),
        (
            "UPDATE invoice SET status = 'paid' WHERE tenantId = 'a' AND invoiceId = '1'",
            "status decides whether a invoice is in gsi1 (WHERE status <> 'void'), so all of its "
            "keys are composed: give dueDate too (SET dueDate = …, or WHERE dueDate = …)",
        ),
        (
            "UPDATE invoice SET dueDate = '2026-01-01' WHERE tenantId = 'a' AND invoiceId = '1'",
            "dueDate composes a key of gsi1, which holds only the invoices WHERE status <> "
            "'void': say which (WHERE status = …)",
        ),
        (
            "UPDATE invoice SET status = if_not_exists(status, 'x') WHERE tenantId = 'a'",
            "status composes a key of an index of invoice: SET it to a value",
        ),
        (
            "UPDATE invoice SET gsi1pk = 'x' WHERE tenantId = 'a'",
            "gsi1pk is composed from status: SET status and it is recomputed",
        ),
        (
            "UPDATE invoice SET kind = 'x' WHERE tenantId = 'a'",
            "kind is a constant of invoice: it never changes",
        ),
        (
            "INSERT INTO invoice (pk, sk) VALUES ('a', 'b')",
            "pk is composed by invoice's the table's key from tenantId: give those columns instead",
        ),
        (
            "INSERT INTO invoice VALUES ('a', '1')",
            "INSERT INTO invoice names its columns: (tenantId, invoiceId, status, dueDate, …)",
        ),
        (
            "INSERT INTO invoice (tenantId, amount) VALUES ('a', 1)",
            "invoiceId is missing: it composes sk, a key of {t}",
        ),
        (
            "INSERT INTO invoice (tenantId, invoiceId, status) VALUES ('a', '1', 'open')",
            "dueDate is missing: it composes gsi1sk, a key of index gsi1; give it (an INSERT "
            "ending ON MISSING INDEX KEY SKIP writes such a row without gsi1's keys)",
        ),
        (
            "INSERT INTO invoice (tenantId, invoiceId, status, kind) VALUES ('a', '1', 'void', 'bill')",
            "kind is 'invoice' for every invoice (a constant), not 'bill'",
        ),
        (
            "INSERT INTO invoice (tenantId, invoiceId, status) VALUES ('a', 42, 'void')",
            "invoiceId composes sk, a string: it takes a string, not N (42)",
        ),
        (
            "INSERT INTO invoice (tenantId, invoiceId, status) VALUES ('a', '1', 'void'), "
            "('b', 2, 'void')",
            "row 2: invoiceId composes sk, a string",
        ),
    ],
)
def test_refusals_say_why_before_any_request(invoices: Any, sql: str, message: str) -> None:
    session, table = invoices
    spent = (session.ledger.rcu, session.ledger.wcu)
    with pytest.raises(PlanError) as err:
        session.execute(sql)
    assert message.format(t=table) in str(err.value)
    assert (session.ledger.rcu, session.ledger.wcu) == spent
    assert _items(session, table) == []


def test_skip_missing_index_keys_is_said(invoices: Any) -> None:
    session, table = invoices
    result = session.execute(
        "INSERT INTO invoice (tenantId, invoiceId, status) VALUES ('z', '1', 'open'), "
        "('z', '2', 'open') ON MISSING INDEX KEY SKIP"
    )
    assert result.notes == [
        "2 rows written without the keys of index gsi1 (missing dueDate, ON MISSING INDEX KEY "
        "SKIP): reads of invoice through gsi1 will not find them"
    ]
    assert all("gsi1pk" not in i for i in _items(session, table))
    session.execute("DELETE FROM invoice WHERE tenantId = 'z'")
    with pytest.raises(
        PlanError, match="ON MISSING INDEX KEY SKIP is for an INSERT INTO an entity"
    ):
        session.execute(f"INSERT INTO {table} (pk, sk) VALUES ('a', 'b') ON MISSING INDEX KEY SKIP")
    with pytest.raises(SqlError, match="ON MISSING INDEX KEY SKIP ends an INSERT INTO an entity"):
        session.execute("DELETE FROM invoice WHERE tenantId = 'z' ON MISSING INDEX KEY SKIP")


def test_a_transaction_queues_the_physical_writes(invoices: Any) -> None:
    session, table = invoices
    session.execute("INSERT INTO invoice (tenantId, invoiceId, status) VALUES ('t', '0', 'void')")
    session.execute("BEGIN")
    session.execute(
        "INSERT INTO invoice (tenantId, invoiceId, status, dueDate) VALUES ('t', '1', 'open', '2026-01-01')"
    )
    session.execute("DELETE FROM invoice WHERE tenantId = 't' AND invoiceId = '0'")
    with pytest.raises(DynosqlError, match="RETURNING is not supported inside a transaction"):
        session.execute("DELETE FROM invoice WHERE tenantId = 't' AND invoiceId = '0' RETURNING *")
    session.execute("COMMIT")
    assert [(i["sk"], i["gsi1pk"]) for i in _items(session, table)] == [
        ("INVOICE#1", "STATUS#open")
    ]
    session.execute("DELETE FROM invoice WHERE tenantId = 't'")


def test_copy_an_entity_to_a_file_and_back(invoices: Any, tmp_path: Path) -> None:
    session, table = invoices
    lines = tmp_path / "in.jsonl"
    lines.write_text(
        '{"tenantId": "c", "invoiceId": "1", "status": "open", "dueDate": "2026-02-01", "amount": 3}\n'
        '{"tenantId": "c", "invoiceId": "2", "status": "void", "amount": 4}\n'
        '{"tenantId": "c", "invoiceId": "3", "status": "open"}\n'
    )
    with pytest.raises(PlanError) as err:
        session.execute(f"COPY invoice FROM '{lines}'")
    assert str(err.value).startswith(f"{lines} line 3: dueDate is missing: it composes gsi1sk")
    assert f"then: COPY invoice FROM '{lines}' FORMAT jsonl START AT LINE 3)" in str(err.value)
    out = tmp_path / "out.jsonl"
    session.execute(f"COPY invoice TO '{out}'")
    assert out.read_text().splitlines() == [
        '{"tenantId":"c","invoiceId":"1","status":"open","dueDate":"2026-02-01","amount":3}',
        '{"tenantId":"c","invoiceId":"2","status":"void","amount":4}',
    ]
    session.execute(
        "INSERT INTO invoice (tenantId, invoiceId, status) SELECT tenantId, invoiceId || 'b', status FROM invoice WHERE tenantId = 'c' AND status = 'void'"
    )
    assert [i["sk"] for i in _items(session, table)] == ["INVOICE#1", "INVOICE#2", "INVOICE#2b"]
    session.execute("DELETE FROM invoice WHERE tenantId = 'c'")


def test_one_column_templates_of_a_number_key(moto_backend: Backend, tmp_path: Path) -> None:
    """A key of type N is one column alone: it takes numbers, orders as numbers, and a column
    that is its own attribute (region = region) is written once by an UPDATE."""
    table = unique_name("num")
    moto_backend.create_table(
        TableName=table,
        KeySchema=[
            {"AttributeName": "deviceId", "KeyType": "HASH"},
            {"AttributeName": "ts", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "deviceId", "AttributeType": "S"},
            {"AttributeName": "ts", "AttributeType": "N"},
            {"AttributeName": "region", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_region",
                "KeySchema": [
                    {"AttributeName": "region", "KeyType": "HASH"},
                    {"AttributeName": "ts", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    session = Session(moto_backend.client(), settings=Settings(journal_dir=str(tmp_path)))
    session.execute(
        f"CREATE ENTITY reading ON {table} (KEY (deviceId = deviceId, ts = ts), "
        "INDEX by_region (region = region, ts = ts))"
    )
    session.execute(
        "INSERT INTO reading (deviceId, ts, region, t) VALUES "
        "('d1', 9, 'eu', 1.5), ('d1', 10, 'eu', 2), ('d2', 5, 'us', 3)"
    )
    rows = session.execute("SELECT ts FROM reading WHERE deviceId = 'd1' ORDER BY ts DESC")
    assert rows.all() == [{"ts": Decimal(10)}, {"ts": Decimal(9)}]  # 10 after 9: numbers
    session.execute("UPDATE reading SET region = 'us' WHERE deviceId = 'd1' AND ts = 9")
    found = session.execute("SELECT deviceId, ts FROM reading WHERE region = 'us' AND ts > 4")
    assert sorted(found.all(), key=str) == [
        {"deviceId": "d1", "ts": Decimal(9)},
        {"deviceId": "d2", "ts": Decimal(5)},
    ]
    assert "by_region" in found.stats.operations[0]
    with pytest.raises(PlanError, match="ts is ts \\(N\\): it takes a number, not S"):
        session.execute("INSERT INTO reading (deviceId, ts) VALUES ('d3', '7')")
    moto_backend.delete_table(table)
