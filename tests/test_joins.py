"""Joins against real servers (moto; dynalite and DynamoDB Local in the full suite): every
join returns the rows a brute-force join finds (``oracle.evaluate_join``: every item of each
table read, each entity's members decoded, every pair tried against the ON), an item
collection is read by the one Query an expert writes (same requests, same ConsumedCapacity),
and a lookup reads each distinct key once, 100 keys a BatchGetItem.

The shop table holds orders, their shipments and their lines under ``pk = 'ORDER#<id>'``,
with decoys of other kinds beside them (test_entity_reads's items); the lines name products
(a table of its own, one key), and products have reviews (a table keyed by product and
review). Two orders have no shipment, one line names a product that does not exist.
"""

from __future__ import annotations

import threading
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import oracle
import pytest
from backends import Backend, unique_name
from test_entity_reads import SHOP_SCHEMA, SHOP_TABLE, _all_items, shop_items

from dynosql.access_patterns import Named, pattern_row
from dynosql.dynamo.budget import Cancelled, ReadBudget
from dynosql.entity_model import Entity
from dynosql.errors import DynosqlError, GuardError
from dynosql.plan.join import JoinPlan
from dynosql.plan.keys import last_with_prefix
from dynosql.result import Stats
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import ast, parse
from dynosql.statements.join_select import plan_of

PRODUCTS = [
    {"pk": f"P#{n}", "name": name, "price": Decimal(price)}
    for n, (name, price) in enumerate(
        [("pen", 2), ("ink", 5), ("pad", 3), ("clip", 1), ("tape", 4), ("glue", 6)]
    )
]
REVIEWS = [
    {"pk": f"P#{n}", "sk": f"R#{k}", "stars": Decimal(1 + (n + k) % 5)}
    for n in range(4)
    for k in range(n % 3 + 1)
]


PICKUP_SCHEMA = Path(__file__).parent.parent / "grammar" / "plans" / "joins" / "schema.sql"


def shop_data() -> list[dict[str, Any]]:
    """test_entity_reads's shop, its lines naming products (one a product that does not
    exist), two more orders without shipments, and pickups in the shipments' gsi2
    collection (a carrier's: one carrier ships nothing)."""
    items = shop_items()
    for item in items:
        if item["kind"] == "item":
            order = int(item["pk"].split("#")[1])
            line = int(item["lineNo"])
            item["productRef"] = "P#9" if (order, line) == (12341, 3) else f"P#{(order + line) % 5}"
        if item["kind"] == "order":
            item["customer"] = ["ada", "bob", "cy"][int(item["orderId"]) % 3]
    for n in (12350, 12351):
        pk = f"ORDER#{n}"
        items.append({"pk": pk, "sk": pk, "kind": "order", "orderId": str(n), "total": Decimal(n)})
        items.append(
            {
                "pk": pk,
                "sk": "ITEM#1",
                "kind": "item",
                "lineNo": "1",
                "qty": Decimal(1),
                "productRef": "P#0",
            }
        )
    for n, carrier in enumerate(["ups", "dhl", "ups", "fedex"]):
        at = f"2026-04-{22 + 2 * n}T08:00:00Z"
        pk = f"PICKUP#{n}"
        items.append(
            {
                "pk": pk,
                "sk": pk,
                "kind": "pickup",
                "pickupId": str(n),
                "carrier": carrier,
                "pickupAt": at,
                "gsi2pk": f"CARRIER#{carrier}",
                "gsi2sk": f"PICKUP#{at}",
            }
        )
    return items


@pytest.fixture(scope="module")
def shop(backend: Backend) -> Any:
    names = {
        "shop": unique_name("shop"),
        "products": unique_name("prod"),
        "reviews": unique_name("rev"),
    }
    backend.create_table(TableName=names["shop"], **SHOP_TABLE)
    backend.create_keyed_table(names["products"], sk=None)
    backend.create_keyed_table(names["reviews"], sk=("sk", "S"))
    backend.put_items(names["shop"], shop_data())
    backend.put_items(names["products"], PRODUCTS)
    backend.put_items(names["reviews"], REVIEWS)
    schema = "\n".join(p.read_text(encoding="utf-8") for p in (SHOP_SCHEMA, PICKUP_SCHEMA))
    schema = schema.replace(" ON shop ", f" ON {names['shop']} ")
    path = Path(__file__).parent / f".{names['shop']}.sql"  # one per worker, removed
    path.write_text(schema, encoding="utf-8")
    try:
        session = Session(backend.client())
        session.load_schemas([str(path)])
    finally:
        path.unlink()
    items = {table: _all_items(session, name) for table, name in names.items()}
    yield session, names, items, backend.name != "moto"
    for name in names.values():
        backend.delete_table(name)


def _sql(sql: str, names: dict[str, str]) -> str:
    return sql.format(**names)


def _oracle(
    session: Session, sql: str, items: dict[str, list[dict[str, Any]]], names: dict[str, str]
) -> list[dict[str, Any]]:
    """The rows by brute force, from dynosql's reading of the names (qualified) only."""
    bound = session.resolve(session.bind(parse(sql)))
    assert isinstance(bound, ast.JoinSelect)
    join: JoinPlan = plan_of(session.context, bound.select)
    table_of = {name: table for table, name in names.items()}
    sources = []
    for source in join.sources:
        every = items[table_of[source.table.name]]
        entity = source.entity
        rows = [_entity_row(entity, i) for i in every if entity.belongs(i)] if entity else every
        sources.append(oracle.Joined(source.alias, rows, source.on, source.left))
    return oracle.evaluate_join(join.statement, sources).limited


def _entity_row(entity: Entity, item: dict[str, Any]) -> dict[str, Any]:
    """An entity's row as a SELECT of the entity alone reads it: its columns, and the
    attributes its definition owns (composed keys, constants) when named."""
    owned = {a: item[a] for a in entity.attributes if a in item and a not in entity.columns}
    return {**entity.decode(item), **owned}


# (sql, what it proves); {shop}, {products}, {reviews} are the tables' names
CASES = [
    (
        "SELECT o.orderId, s.status, s.carrier FROM orders o JOIN shipment s ON s.orderId = o.orderId WHERE o.orderId = '12345'",
        "the issue's collection join: one Query",
    ),
    (
        "SELECT o.orderId, o.total, s.status, s.shippedAt FROM orders o LEFT JOIN shipment s ON s.orderId = o.orderId AND s.status = 'SENT'",
        "LEFT JOIN keeps every order (one Scan of the collections); ON on s alone filters s",
    ),
    (
        "SELECT o.orderId, s.shippedAt FROM orders o LEFT JOIN shipment s ON s.orderId = o.orderId WHERE o.orderId IN ('12350', '12342') AND s.carrier <> 'dhl'",
        "a WHERE on the LEFT side is checked on the joined rows (missing <> 'dhl' holds)",
    ),
    (
        "SELECT o.orderId FROM orders o LEFT JOIN shipment s ON s.orderId = o.orderId WHERE s.orderId IS MISSING",
        "an anti join: the orders without a shipment",
    ),
    (
        "SELECT o.orderId, s.status, i.lineNo, i.qty FROM orders o JOIN shipment s ON s.orderId = o.orderId JOIN order_item i ON i.orderId = o.orderId WHERE o.orderId = '12343' AND s.status = 'SENT'",
        "three members of one collection, one Query; s narrowed by its own condition",
    ),
    (
        "SELECT s.orderId, s.shippedAt, o.total FROM shipment s JOIN orders o ON o.orderId = s.orderId WHERE s.carrier = 'ups' AND s.shippedAt >= '2026-04-24' ORDER BY s.shippedAt DESC, s.orderId LIMIT 5",
        "s through its carrier index, then o by key (not a Scan of the collections), sorted and limited on the joined rows",
    ),
    (
        "SELECT i.orderId, i.lineNo, p.name, p.price FROM order_item i JOIN {products} p ON p.pk = i.productRef WHERE i.orderId = '12341'",
        "a lookup by the whole key: BatchGetItem; the missing product joins nothing",
    ),
    (
        "SELECT i.orderId, i.lineNo, p.name FROM order_item i LEFT JOIN {products} p ON p.pk = i.productRef WHERE i.orderId IN ('12341', '12342')",
        "LEFT lookup keeps the line whose product is missing",
    ),
    (
        "SELECT p.name, r.sk AS review, r.stars FROM {products} p JOIN {reviews} r ON r.pk = p.pk WHERE p.price >= 3",
        "a lookup by partition key: one Query per product",
    ),
    (
        "SELECT o.orderId, i.lineNo, p.name, r.stars FROM orders o JOIN order_item i ON i.orderId = o.orderId JOIN {products} p ON p.pk = i.productRef LEFT JOIN {reviews} r ON r.pk = p.pk AND r.stars >= 3 WHERE o.orderId IN ('12344', '12350')",
        "a collection, then two lookups, the last LEFT with a condition of its own",
    ),
    (
        "SELECT p.name, i.orderId, i.qty FROM {products} p JOIN order_item i ON p.pk = i.productRef WHERE i.orderId = '12346'",
        "read the other way round: only i first makes p a lookup",
    ),
    (
        "SELECT i.orderId, i.lineNo, p.name FROM order_item i JOIN {products} p ON p.pk = i.productRef AND p.price > i.qty WHERE i.orderId = '12347'",
        "the rest of ON checked on each pair",
    ),
    (
        "SELECT * FROM orders o JOIN order_item i ON i.orderId = o.orderId WHERE o.orderId = '12348'",
        "SELECT *: each source's columns named alias.column",
    ),
    (
        "SELECT o.*, s.carrier FROM orders o JOIN shipment s ON s.orderId = o.orderId WHERE o.orderId = '12349' AND s.status = 'LOST'",
        "o.*: o's columns by their own names",
    ),
    (
        "SELECT o.pk, o.kind, i.sk, i.qty, x.sk AS member FROM orders o JOIN order_item i ON i.orderId = o.orderId JOIN {shop} x ON x.pk = o.pk WHERE o.orderId = '12346'",
        "an entity's composed keys and constants, named, are read as in a SELECT of it alone: o.pk looks up the raw table's collection",
    ),
    (
        "SELECT s.orderId, s.shippedAt, p.pickupId, p.pickupAt FROM shipment s JOIN pickup p ON p.carrier = s.carrier WHERE s.carrier = 'ups' AND s.shippedAt >= '2026-04-25'",
        "an index's collection: shipments and pickups of one carrier, one Query of gsi2",
    ),
    (
        "SELECT p.pickupId, s.orderId FROM pickup p LEFT JOIN shipment s ON s.carrier = p.carrier WHERE p.carrier IN ('ups', 'fedex') AND p.pickupAt < '2026-04-27'",
        "LEFT in an index's collection: fedex's pickup ships nothing and is kept; the pickup after the date is not",
    ),
]


def _key(row: dict[str, Any]) -> Any:
    return oracle.row_canonical(row)


def test_joins_return_the_brute_force_rows(shop: Any) -> None:
    session, names, items, _real = shop
    for sql, why in CASES:
        sql = _sql(sql, names)
        got = session.execute(sql).all()
        expected = _oracle(session, sql, items, names)
        assert got, f"{why}: a case that finds nothing proves little"
        if " ORDER BY " in sql:
            assert got == expected, why
        else:
            assert Counter(map(_key, got)) == Counter(map(_key, expected)), why


def test_an_aggregate_over_a_join_counts_the_joined_rows(shop: Any) -> None:
    session, names, items, _real = shop
    sql = "SELECT s.carrier, COUNT(*) AS n, SUM(o.total) AS total FROM orders o JOIN shipment s ON s.orderId = o.orderId GROUP BY s.carrier ORDER BY s.carrier"
    got = session.execute(sql).all()
    rows = _oracle(
        session,
        "SELECT s.carrier, o.total, o.orderId, s.sk FROM orders o JOIN shipment s ON s.orderId = o.orderId",
        items,
        names,
    )
    assert rows
    expected: dict[str, list[Decimal]] = {}
    for row in _joined_pairs(session, items, names):
        expected.setdefault(row["carrier"], []).append(row["total"])
    assert got == [
        {"carrier": c, "n": Decimal(len(t)), "total": sum(t, Decimal(0))}
        for c, t in sorted(expected.items())
    ]


def _joined_pairs(
    session: Session, items: dict[str, list[dict[str, Any]]], names: dict[str, str]
) -> list[dict[str, Any]]:
    orders = session.entity("orders")
    shipment = session.entity("shipment")
    assert orders is not None and shipment is not None
    out = []
    for o in (orders.decode(i) for i in items["shop"] if orders.belongs(i)):
        for s in (shipment.decode(i) for i in items["shop"] if shipment.belongs(i)):
            if s["orderId"] == o["orderId"]:
                out.append({"carrier": s["carrier"], "total": o["total"]})
    return out


def test_an_item_collection_is_one_query_at_the_hand_written_cost(shop: Any) -> None:
    session, names, _items, real = shop
    joined = session.execute(CASES[0][0])
    rows = joined.all()
    last = last_with_prefix("SHIP#")
    physical = session.execute(
        f"SELECT * FROM {names['shop']} WHERE pk = 'ORDER#12345' AND sk BETWEEN 'ORDER#12345' AND '{last}'"
    )
    hand = physical.all()
    assert len(rows) == 3  # the order's three shipments; the decoys and lines are not rows
    assert joined.stats.operations == [f"Query {names['shop']}"]
    assert joined.stats.requests == physical.stats.requests == 1
    assert joined.stats.items_scanned == physical.stats.items_scanned == len(hand)
    if real:
        assert joined.stats.capacity == physical.stats.capacity > 0
    # an index's collection: the hand-written Query of the index
    joined = session.execute(CASES[-2][0])
    physical = session.execute(
        f"SELECT * FROM {names['shop']}.gsi2 WHERE gsi2pk = 'CARRIER#ups' AND gsi2sk >= '2026-04-25'"
    )
    hand = physical.all()
    assert joined.all() and any(i["kind"] == "pickup" for i in hand)
    assert joined.stats.operations == [f"Query {names['shop']}.gsi2"]
    assert joined.stats.requests == physical.stats.requests == 1
    assert joined.stats.items_scanned == physical.stats.items_scanned == len(hand)
    if real:
        assert joined.stats.capacity == physical.stats.capacity > 0


def test_a_lookup_reads_each_distinct_key_once(shop: Any) -> None:
    session, names, _items, _real = shop
    sql = "SELECT i.lineNo, p.name FROM order_item i JOIN {products} p ON p.pk = i.productRef WHERE i.orderId IN ('12340', '12341', '12342')"
    result = session.execute(_sql(sql, names))
    rows = result.all()
    assert len(rows) == 8  # nine lines, one of them naming no product
    # three Queries for the lines, then one BatchGetItem of the distinct product keys
    assert result.stats.operations == [
        f"3× Query {names['shop']}",
        f"BatchGetItem {names['products']}",
    ]
    assert result.stats.requests == 4
    analyzed = session.execute("EXPLAIN ANALYZE " + _sql(sql, names))
    actual = analyzed.document["actual"]
    assert (actual["requests"], actual["rows"]) == (4, 8)
    assert actual["consumed_capacity"] == str(result.stats.capacity.normalize())
    assert f"actual: 4 requests (3× Query {names['shop']}, " in analyzed.all()[-1]["plan"]


def test_keys_no_item_can_have_are_not_sent(shop: Any) -> None:
    session, names, _items, _real = shop
    sql = "SELECT i.lineNo, p.name FROM order_item i JOIN {products} p ON p.pk = i.qty WHERE i.orderId = '12341'"
    result = session.execute(_sql(sql, names))  # qty is a number, the products' key a string
    assert result.all() == []
    assert result.stats.operations == [f"Query {names['shop']}"]


def test_explain_names_the_strategy_requests_and_rcu(shop: Any) -> None:
    session, names, _items, _real = shop
    lines = [r["plan"] for r in session.execute("EXPLAIN " + _sql(CASES[9][0], names)).all()]
    text = "\n".join(lines)
    assert lines[0].startswith("join of o (entity orders), i (entity order_item), p (table ")
    assert "o and i read together as one item collection, then p by key, then r by key" in lines[0]
    assert (
        f"lookup p by the table's key, for the distinct keys of the rows before it: BatchGetItem {names['products']}, 100 keys a call"
        in text
    )
    assert (
        f"lookup r by the table's key, for the distinct keys of the rows before it: one Query {names['reviews']} per key"
        in text
    )
    assert '"S": "{i.productRef}"' in text  # one key's request, its value named after its source
    whole = [line for line in lines if line.startswith("estimate (the whole join): ~")]
    assert len(whole) == 1 and whole[0].endswith("(the lookups' for a key per row before them)")
    document = session.execute("EXPLAIN " + _sql(CASES[9][0], names)).document
    assert [x["strategy"] for x in document["join"]["lookups"]] == ["BatchGetItem", "Query per key"]
    assert document["join"]["first"]["strategy"] == "item collection"


def test_any_other_join_is_refused_naming_both_forms(shop: Any) -> None:
    session, names, _items, _real = shop
    with pytest.raises(DynosqlError) as refused:
        session.execute(
            _sql("SELECT o.orderId FROM orders o JOIN {products} p ON p.name = o.customer", names)
        )
    message = str(refused.value)
    assert message.startswith("line 1, column 37: cannot join p (table ")
    assert "a lookup by key needs ON p.pk = … (the table's key: BatchGetItem)" in message
    assert "an item collection joins sources of one table" in message
    with pytest.raises(DynosqlError) as refused:
        session.execute(
            "SELECT i.qty FROM shipment s JOIN order_item i ON i.qty = s.total WHERE s.orderId = '1'"
        )
    message = str(refused.value)
    assert (
        "an item collection needs ON i.orderId = s.orderId (their partition keys coincide: pk = 'ORDER#' || orderId)"
        in message
    )


def test_the_scan_guards_see_a_join_that_scans(shop: Any) -> None:
    session, names, _items, _real = shop
    session.settings.fail_on_scan = True
    try:
        with pytest.raises(GuardError) as refused:
            session.execute(CASES[1][0])
        assert str(refused.value).startswith(f"refused: this join would Scan {names['shop']}")
        assert session.execute(CASES[0][0]).all()  # a collection read by its key runs
    finally:
        session.settings.fail_on_scan = False


# --- many keys: runs of keys, 100 a BatchGetItem -------------------------------------------------


def test_many_keys_are_read_in_runs_of_batches(moto_backend: Backend) -> None:
    refs, targets = unique_name("refs"), unique_name("targets")
    moto_backend.create_keyed_table(refs, sk=None)
    moto_backend.create_keyed_table(targets, sk=None)
    moto_backend.put_items(refs, [{"pk": f"r{n:03}", "to": f"t{n % 260:03}"} for n in range(300)])
    moto_backend.put_items(targets, [{"pk": f"t{n:03}", "n": Decimal(n)} for n in range(0, 260, 2)])
    try:
        session = Session(moto_backend.client())
        result = session.execute(f"SELECT r.pk, t.n FROM {refs} r JOIN {targets} t ON t.pk = r.to")
        rows = result.all()
        # 260 distinct keys: a run of 100 (one call), then of the next 160 (two calls)
        assert result.stats.operations == [f"Scan {refs}", f"3× BatchGetItem {targets}"]
        expected = {(f"r{n:03}", Decimal(n % 260)) for n in range(300) if n % 260 % 2 == 0}
        assert {(r["pk"], r["n"]) for r in rows} == expected and len(rows) == len(expected)
    finally:
        moto_backend.delete_table(refs)
        moto_backend.delete_table(targets)


def test_max_rcu_stops_the_whole_join(dynalite_backend: Backend) -> None:
    refs, targets = unique_name("refs"), unique_name("targets")
    dynalite_backend.create_keyed_table(refs, sk=None)
    dynalite_backend.create_keyed_table(targets, sk=None)
    dynalite_backend.put_items(refs, [{"pk": f"r{n:03}", "to": f"t{n:03}"} for n in range(150)])
    dynalite_backend.put_items(targets, [{"pk": f"t{n:03}", "n": Decimal(n)} for n in range(150)])
    try:
        session = Session(dynalite_backend.client(), settings=Settings(max_rcu=Decimal(40)))
        result = session.execute(f"SELECT r.pk, t.n FROM {refs} r JOIN {targets} t ON t.pk = r.to")
        with pytest.raises(GuardError) as stopped:
            result.all()
        assert "reaching --max-rcu 40" in str(stopped.value)
        # the Scan (~1 RCU) and the first run's 100 keys (50 RCU) passed the cap together
        assert Decimal(40) <= result.stats.capacity <= Decimal(40) + 50
    finally:
        dynalite_backend.delete_table(refs)
        dynalite_backend.delete_table(targets)


def test_the_rate_is_the_statements_whatever_read_asks() -> None:
    """--rate-limit R: a read of a statement waits until what the whole statement consumed
    fits in R × the seconds since the statement began, whichever of its reads (a join's
    lookup, after the first read) asks; not since that read began (no wait is allowed here:
    a wait would be cancelled at once)."""
    cancel = threading.Event()
    cancel.set()
    before = Stats()
    before.started -= 2.0  # the statement began 2 s ago and consumed 10 RCU: within 10/s
    before.capacity = Decimal(10)
    ReadBudget(before, threading.Lock(), None, Decimal(10), cancel).reserve(Decimal(1))
    now = Stats()  # the same consumption just now: a second to wait
    now.capacity = Decimal(10)
    with pytest.raises(Cancelled):
        ReadBudget(now, threading.Lock(), None, Decimal(10), cancel).reserve(Decimal(1))


def test_explain_python_or_partiql_of_a_join_says_why_not(shop: Any) -> None:
    session, names, _items, _real = shop
    for form in ("PYTHON", "PARTIQL"):
        with pytest.raises(DynosqlError) as refused:
            session.execute(f"EXPLAIN (FORMAT {form}) " + CASES[0][0])
        assert str(refused.value).startswith(f"EXPLAIN (FORMAT {form}) writes one statement's ")
        assert "a join's lookups depend on the rows read" in str(refused.value)
    # an entity's statement alone: its physical statement's PartiQL (it was an AssertionError)
    sql = "EXPLAIN (FORMAT PARTIQL) UPDATE orders SET total = 3 WHERE orderId = '12345'"
    shown = [r["plan"] for r in session.execute(sql).all()]
    assert shown[1] == (
        f'  1. UPDATE "{names["shop"]}" SET "total" = 3 WHERE "pk" = \'ORDER#12345\' AND '
        "\"sk\" = 'ORDER#12345' AND (\"kind\" = 'order')"
    )
    sql = "EXPLAIN (FORMAT PARTIQL) SELECT total FROM orders WHERE orderId = '12345'"
    shown = [r["plan"] for r in session.execute(sql).all()]
    assert shown[1].startswith(f'  1. SELECT "total" FROM "{names["shop"]}" WHERE "pk" = ')


def test_an_access_pattern_that_joins_is_its_first_read_and_lookups(shop: Any) -> None:
    session, names, _items, _real = shop
    sql = _sql(CASES[9][0], names)  # a collection (two orders: two Queries), two lookups
    row = pattern_row(session, parse(sql), Named(1, "an order's lines and products"))
    assert row["operation"] == (
        f"Query ×2 + BatchGetItem {names['products']} + Query per key {names['reviews']}"
    )
    assert (row["table"], row["scan"]) == (names["shop"], False)
    assert row["key condition"].startswith("pk = 'ORDER#12344' AND sk BETWEEN 'ITEM#' AND ")
    scanning = pattern_row(session, parse(CASES[1][0]), Named(2, "every order"))
    assert (scanning["operation"], scanning["scan"]) == ("Scan", True)
