"""Entity reads against real servers (moto; dynalite and DynamoDB Local in the full suite):
every entity query of the fixtures (grammar/plans/entities) returns the rows of its
hand-written physical form, at the same ConsumedCapacity where the server reports real
capacity, and the rows a brute-force oracle finds (every item of the table read, the entity's
members decoded, the WHERE evaluated on them): no row of another kind leaks in, none is lost.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from test_entity_fixtures import CASES, ENTITIES

from dynosql import values
from dynosql.evaluate.aggregate import group
from dynosql.evaluate.pipeline import aggregate_rows, select_rows
from dynosql.evaluate.predicate import matches
from dynosql.plan.entity_read import rewrite_select
from dynosql.session import Session
from dynosql.sql import ast, parse

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "examples" / "entities.sql"
SHOP_SCHEMA = ROOT / "grammar" / "plans" / "entities" / "schema.sql"


def _cases(table: str) -> list[Any]:
    return [c for c in CASES if c.physical is not None and f"FROM {table} " in c.physical + " "]


def _all_items(session: Session, table: str) -> list[dict[str, Any]]:
    client = session.client
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        items.extend(values.decode_item(i) for i in page["Items"])
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def oracle(sql: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows by brute force: members decoded, the WHERE on the entity's columns."""
    statement = parse(sql)
    assert isinstance(statement, ast.Select)
    entity = ENTITIES[statement.table]
    statement = rewrite_select(statement, entity).statement  # names unqualified, nothing else
    members = [i for i in items if entity.belongs(i)]
    # the WHERE may name the table's own attributes too (pk = 'TENANT#acme'): seen beside the columns
    rows = [
        entity.decode(i) for i in members if matches(statement.where, {**i, **entity.decode(i)})
    ]
    if statement.is_aggregate:
        return list(aggregate_rows(statement, group(statement, rows, None, None)))
    return list(select_rows(statement, (entity.columns[0],), rows, statement.order_by))


def _key(row: dict[str, Any]) -> str:
    return repr(sorted((k, values.hashable(v)) for k, v in row.items()))


def check_case(session: Session, case: Any, items: list[dict[str, Any]], real: bool) -> None:
    entity_result = session.execute(case.sql)
    got = entity_result.all()
    physical_result = session.execute(case.physical)
    hand = physical_result.all()
    statement = parse(case.sql)
    assert isinstance(statement, ast.Select)
    if statement.items is None:  # SELECT *: the physical rows are whole items
        hand = [ENTITIES[statement.table].decode(r) for r in hand]
    assert got, f"{case.id}: a case that finds nothing proves little"
    if statement.order_by:
        assert got == hand, f"{case.id}: the same rows, in the same order"
    else:  # several requests (IN) may answer in any order
        assert sorted(map(_key, got)) == sorted(map(_key, hand)), case.id
    s, h = entity_result.stats, physical_result.stats
    assert (s.requests, s.items_scanned) == (h.requests, h.items_scanned), case.id
    if real:
        assert s.capacity == h.capacity > 0, case.id
    expected = oracle(case.sql, items)
    limited = statement.limit is not None and len(oracle(_unlimited(case.sql), items)) > len(got)
    if not limited:
        assert sorted(map(_key, got)) == sorted(map(_key, expected)), case.id
        return
    # LIMIT cut a longer result: rows that tie at the cut may differ, their order values not
    assert len(got) == len(expected), case.id
    shown = [o.expr.text for o in statement.order_by]
    if all(isinstance(o.expr, ast.Path) for o in statement.order_by):
        names = [name.split(".")[-1] for name in shown]
        if all(n in got[0] for n in names):
            assert [[r[n] for n in names] for r in got] == [
                [r[n] for n in names] for r in expected
            ], case.id


def _unlimited(sql: str) -> str:
    return sql.rsplit(" LIMIT ", 1)[0]


@pytest.fixture(scope="module")
def tenants(examples_backend: Backend) -> Any:
    session = Session(examples_backend.client())
    session.load_schemas([str(SCHEMA)])
    return session, _all_items(session, "tenants"), examples_backend.name != "moto"


def test_entity_queries_equal_their_physical_form_and_the_oracle(tenants: Any) -> None:
    session, items, real = tenants
    cases = _cases("tenants")
    assert len(cases) >= 18
    for case in cases:
        check_case(session, case, items, real)


SHOP_TABLE = {
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi2pk", "gsi2sk")
    ],
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "gsi2",
            "KeySchema": [
                {"AttributeName": "gsi2pk", "KeyType": "HASH"},
                {"AttributeName": "gsi2sk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        },
        {
            "IndexName": "inverted",
            "KeySchema": [
                {"AttributeName": "sk", "KeyType": "HASH"},
                {"AttributeName": "pk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
    ],
}


def shop_items() -> list[dict[str, Any]]:
    """Orders with their items and shipments, and decoys of other kinds beside them: a
    shipment-like key without the delimiter, another kind under the same prefix."""
    items: list[dict[str, Any]] = []
    carriers = ["ups", "dhl"]
    for n in range(12340, 12350):
        order = str(n)
        pk = f"ORDER#{order}"
        items.append({"pk": pk, "sk": pk, "kind": "order", "orderId": order, "total": Decimal(n)})
        for line in range(1, 4):
            items.append(
                {
                    "pk": pk,
                    "sk": f"ITEM#{line}",
                    "kind": "item",
                    "lineNo": str(line),
                    "qty": Decimal(line),
                }
            )
        for k, status in enumerate(["SENT", "LOST", "SENT"]):
            at = f"2026-04-{20 + (n + 5 * k) % 9:02d}T1{k}:00:00Z"
            carrier = carriers[(n + k) % 2]
            items.append(
                {
                    "pk": pk,
                    "sk": f"SHIP#{status}#{at}",
                    "kind": "shipment",
                    "status": status,
                    "shippedAt": at,
                    "carrier": carrier,
                    "gsi2pk": f"CARRIER#{carrier}",
                    "gsi2sk": at,
                }
            )
        items.append({"pk": pk, "sk": "SHIP#NOTE", "kind": "shipment", "note": "no delimiter"})
        items.append({"pk": pk, "sk": "SHIP#SENT#2026-04-27T09:00:00Z", "kind": "audit"})
    return items


@pytest.fixture(scope="module")
def shop(backend: Backend) -> Any:
    name = unique_name("shop")
    backend.create_table(TableName=name, **SHOP_TABLE)
    backend.put_items(name, shop_items())
    schema = SHOP_SCHEMA.read_text(encoding="utf-8").replace(" ON shop ", f" ON {name} ")
    path = Path(__file__).parent / f".{name}.sql"  # not under /tmp: one per worker, removed
    path.write_text(schema, encoding="utf-8")
    try:
        session = Session(backend.client())
        session.load_schemas([str(path)])
    finally:
        path.unlink()
    yield session, name, _all_items(session, name), backend.name != "moto"
    backend.delete_table(name)


def test_shop_entities_equal_their_physical_form_and_the_oracle(shop: Any) -> None:
    session, name, items, real = shop
    cases = _cases("shop")
    assert len(cases) >= 8
    for case in cases:
        renamed = type(case)(**{**case.__dict__})
        renamed.physical = case.physical.replace("FROM shop ", f"FROM {name} ")
        check_case(session, renamed, items, real)
