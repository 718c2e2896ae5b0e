"""NoSQL Workbench models: IMPORT MODEL, EXPORT MODEL and ``--local --model``.

The published model (the AWS design patterns' online shop with its nine facets, from the corpus
in tests/data/designs) is imported and read through its facets' entities; the example tables,
exported with their schema file's entities, come back exactly: in the model read back (all
3,754 items, no server) and through a second server (tables, indexes, entities, and a sample
of each entity's items: a load of all of them costs moto 3 s of CPU)."""

from __future__ import annotations

import functools
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli
from designs import DESIGNS, model_files

from dynosql.errors import DynosqlError, GuardError, PlanError, SqlError
from dynosql.examples import datasets
from dynosql.plan.schema import table_info
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import ast, parse, parse_script
from dynosql.values import encode_item
from dynosql.workbench.facets import facet_entities
from dynosql.workbench.read import read_model
from dynosql.workbench.write import Exported, model_document

ROOT = Path(__file__).resolve().parent.parent
SHOP = DESIGNS / "AnOnlineShop_facets.json"
SCHEMA = ROOT / "examples" / "entities.sql"


def model(*tables: dict[str, Any]) -> str:
    return json.dumps({"ModelName": "m", "DataModel": list(tables)})


def table(**extra: Any) -> dict[str, Any]:
    return {
        "TableName": "things",
        "KeyAttributes": {
            "PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
            "SortKey": {"AttributeName": "SK", "AttributeType": "S"},
        },
        **extra,
    }


def wire(pk: str, sk: str, **attributes: Any) -> dict[str, Any]:
    return {"PK": {"S": pk}, "SK": {"S": sk}, **attributes}


# --- reading a model -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"DataModel": [', "m.json: line 1, column 16: not JSON (Expecting value)"),
        ('{"tables": []}', 'm.json is not a NoSQL Workbench model: it has no "DataModel" list'),
        (
            model(table(KeyAttributes={"SortKey": {"AttributeName": "SK", "AttributeType": "S"}})),
            "m.json: table things has no PartitionKey in its KeyAttributes",
        ),
        (
            model(
                table(KeyAttributes={"PartitionKey": {"AttributeName": "PK", "AttributeType": "M"}})
            ),
            "m.json: table things: PartitionKey PK is of type 'M': a key attribute is S, N or B",
        ),
        (
            model(
                table(
                    GlobalSecondaryIndexes=[
                        {
                            "IndexName": "byKind",
                            "KeyAttributes": {
                                "PartitionKey": {"AttributeName": "SK", "AttributeType": "N"}
                            },
                        }
                    ]
                )
            ),
            "m.json: table things: index byKind: SK is a key of type N here and S in another",
        ),
        (model(table(BillingMode="ON_DEMAND")), "BillingMode 'ON_DEMAND': PROVISIONED or"),
        (model(table(TableName="ab")), "m.json: table ab: table name 'ab' is not valid"),
        (model(table(), table()), "m.json: two tables are named things"),
        (model({"TableName": "things"}), "m.json: table things: KeyAttributes is missing"),
    ],
)
def test_what_dynamodb_would_refuse_is_refused_before_any_request(text: str, message: str) -> None:
    with pytest.raises(PlanError) as err:
        read_model(text, "m.json")
    assert message in str(err.value)


def test_what_cannot_be_carried_over_is_left_out_and_said() -> None:
    """A bare JSON value in an item (as some published models hold), an item without its sort
    key, auto scaling: left out, each said once with its count and first case."""
    found = read_model(
        model(
            table(
                TableData=[
                    wire("a", "1", ok={"S": "x"}, bad={"a": "b"}),
                    wire("a", "2", worse=True),
                    {"PK": {"S": "a"}},
                ],
                BillingMode="PROVISIONED",
                ProvisionedCapacitySettings={
                    "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 2},
                    "AutoScalingRead": {"ScalableTargetRequest": {"MinCapacity": 1}},
                },
            )
        ),
        "m.json",
    )
    (things,) = found.tables
    assert [sorted(item) for item in things.items] == [["PK", "SK", "ok"], ["PK", "SK"]]
    assert things.params["ProvisionedThroughput"] == {
        "ReadCapacityUnits": 3,
        "WriteCapacityUnits": 2,
    }
    assert found.notes == [
        "m.json: table things: provisioned at 3 RCU and 2 WCU without its auto scaling "
        "(Application Auto Scaling's, not a DynamoDB table setting)",
        "m.json: table things: 2 values left out, not DynamoDB JSON (bad of item 1: unknown "
        "DynamoDB type 'a')",
        "m.json: table things: 1 item left out, which DynamoDB would refuse (item 3: every row "
        "needs the key attribute SK (a key of things))",
    ]


def test_capacity_on_demand_unless_the_model_says_provisioned() -> None:
    on_demand = read_model(model(table()), "m.json").tables[0].params
    assert (
        on_demand["BillingMode"] == "PAY_PER_REQUEST" and "ProvisionedThroughput" not in on_demand
    )
    default = read_model(model(table(BillingMode="PROVISIONED")), "m.json").tables[0].params
    assert default["ProvisionedThroughput"] == {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}


def test_every_model_of_the_corpus_reads_and_its_facets_hold_their_own_items() -> None:
    """Each facet's entity (by its aliases and its items' key prefixes) holds exactly the
    facet's items among all of its table's, on every facet of the corpus (19 facets in four
    published models)."""
    facets = 0
    for path in model_files():
        found = read_model(path.read_text(encoding="utf-8"), path.name)
        for t in found.tables:
            entities, _notes = facet_entities(t)
            assert [e.name for e in entities] == [f.name for f in t.facets], path.name
            for entity, facet in zip(entities, t.facets, strict=True):
                held = [i for i in t.items if entity.belongs(i)]
                assert len(held) == len(facet.items), (path.name, facet.name)
                facets += 1
    assert facets == 19


def test_a_facet_s_aliases_name_the_entity_s_columns() -> None:
    shop = read_model(SHOP.read_text(encoding="utf-8"), SHOP.name).tables[0]
    entities = {e.name: e for e in facet_entities(shop)[0]}
    # the alias is the key's own name (PK): the prefix's word names the column
    assert entities["orderItem"].text() == (
        "CREATE ENTITY orderItem ON OnlineShop (\n  KEY (PK = 'o#' || o, SK = 'p#' || p)\n);"
    )
    assert entities["customer"].key.pk.columns == entities["customer"].key.sk.columns == ("c",)
    game = DESIGNS / "GamePlayerProfilesSchema.json"
    profiles = read_model(game.read_text(encoding="utf-8"), game.name).tables[0]
    entities = {e.name: e for e in facet_entities(profiles)[0]}
    # PartitionKeyAlias playerID, SortKeyAlias ITEMS#ItemID over ITEMS#001, ITEMS#002, …
    assert [t.text() for t in entities["Items"].key.templates] == [
        "PK = playerID",
        "SK = 'ITEMS#' || ItemID",
    ]
    # one item: its key up to the last delimiter is the prefix; the alias's last word a column
    assert entities["Metadata"].key.sk.text() == "SK = '#METADATA#' || playerID"


def test_an_alias_written_as_a_template_is_that_template() -> None:
    found = read_model(
        model(
            table(
                TableFacets=[
                    {
                        "FacetName": "line",
                        "KeyAttributeAlias": {
                            "PartitionKeyAlias": "ORDER#{orderId}",
                            "SortKeyAlias": "LINE#<n>#{sku}",
                        },
                        "TableData": [wire("ORDER#1", "LINE#1#X")],
                    },
                    {
                        "FacetName": "profile",
                        "KeyAttributeAlias": {"PartitionKeyAlias": "user", "SortKeyAlias": "SK"},
                        "TableData": [wire("u1", "PROFILE"), wire("u2", "PROFILE")],
                    },
                ]
            )
        ),
        "m.json",
    )
    line, profile = facet_entities(found.tables[0])[0]
    assert [t.text() for t in line.key.templates] == [
        "PK = 'ORDER#' || orderId",
        "SK = 'LINE#' || n || '#' || sku",
    ]
    # a sort key every item holds whole is a constant; a partition key never is
    assert [t.text() for t in profile.key.templates] == ["PK = user", "SK = 'PROFILE'"]


def test_two_facets_that_can_hold_one_item_are_told_apart_by_their_type() -> None:
    def facet(name: str) -> dict[str, Any]:
        return {
            "FacetName": name,
            "KeyAttributeAlias": {"PartitionKeyAlias": "id", "SortKeyAlias": "at"},
            "TableData": [
                wire("A#1", f"{n}", EntityType={"S": name}, note={"S": name}) for n in (1, 2)
            ],
        }

    found = read_model(model(table(TableFacets=[facet("visit"), facet("call")])), "m.json")
    visit, call = facet_entities(found.tables[0])[0]
    assert visit.constants == (("EntityType", "visit"),) and call.constants == (
        ("EntityType", "call"),
    )


# --- EXPORT MODEL and IMPORT MODEL: the round trip, without a server --------------------------


@functools.cache
def _examples() -> tuple[Exported, ...]:
    from dynosql.entities.check import check

    schema = [s.entity for s in parse_script(SCHEMA.read_text(encoding="utf-8"))]
    out = []
    for dataset in datasets.DATASETS.values():
        description = {**dataset.table, "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"}}
        info = table_info(description)
        mine = sorted((e for e in schema if e.table == info.name), key=lambda e: e.name)
        entities = tuple(check(e, info)[0] for e in mine)
        out.append(Exported(description, entities, tuple(dataset.items())))
    return tuple(out)


@functools.cache
def _document() -> str:
    return json.dumps(model_document("examples", _examples(), "the examples", _NOW))


def _items(items: Any) -> list[str]:
    return sorted(json.dumps(encode_item(i), sort_keys=True, default=repr) for i in items)


def test_the_example_tables_come_back_from_their_model_exactly() -> None:
    """Every table's CreateTable (keys, GSI, LSI, projections, billing), every item of the
    five tables (3,754: numbers, sets, maps, NULLs) and every entity (index templates, WHERE,
    constants: the Dynosql extension beside each facet) come back as they were."""
    exported = _examples()
    document = json.loads(_document())
    found = read_model(_document(), "examples.json")
    assert found.notes == []
    assert len(found.tables) == 5
    for table_, original in zip(found.tables, exported, strict=True):
        created = table_.params
        for field in ("KeySchema", "AttributeDefinitions", "BillingMode"):
            assert created[field] == original.description[field], (table_.name, field)
        for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            assert created.get(field) == original.description.get(field), (table_.name, field)
        assert _items(table_.items) == _items(original.items), table_.name
        entities, notes = facet_entities(table_)
        assert notes == []
        assert [e.text() for e in entities] == [e.text() for e in original.entities]
    shapes = {t["TableName"]: t for t in document["DataModel"]}
    tenants = shapes["tenants"]
    assert list(tenants) == [
        "TableName",
        "KeyAttributes",
        "NonKeyAttributes",
        "TableFacets",
        "GlobalSecondaryIndexes",
        "TableData",
        "DataAccess",
        "BillingMode",
    ]
    invoice = next(f for f in tenants["TableFacets"] if f["FacetName"] == "invoice")
    assert invoice["KeyAttributeAlias"] == {
        "PartitionKeyAlias": "TENANT#{tenantId}",
        "SortKeyAlias": "INVOICE#{invoiceId}",
    }
    assert len(invoice["TableData"]) == 265 and tenants["TableData"] == []
    assert {"AttributeName": "gsi1pk", "AttributeType": "S"} in tenants["NonKeyAttributes"]
    sensors = shapes["sensors"]["NonKeyAttributes"]
    # humidity is a number on most readings and a stored NULL on some: its type is N
    assert {"AttributeName": "humidity", "AttributeType": "N"} in sensors


def test_without_dynosql_s_extension_the_aliases_still_give_the_keys() -> None:
    """NoSQL Workbench keeps what it knows of a facet: without the Dynosql entity beside it,
    the aliases (``TENANT#{tenantId}``) still give every key template; what a facet cannot
    say (index templates, WHERE, constants) is gone."""
    stripped = json.loads(_document())
    for t in stripped["DataModel"]:
        for f in t.get("TableFacets", []):
            del f["Dynosql"]
    original = {e.name: e for t in _examples() for e in t.entities}
    found = read_model(json.dumps(stripped, ensure_ascii=False), "examples.json")
    for table_ in found.tables:
        for entity in facet_entities(table_)[0]:
            assert entity.key == original[entity.name].key, entity.name
            assert entity.indexes == ()


_NOW = datetime(2026, 12, 6, 9, 30)


# --- through a server -----------------------------------------------------------------------


def local(tmp_path: Path, **settings: Any) -> Session:
    return Session.local(
        load_examples=False,
        settings=Settings(journal_dir=str(tmp_path / "journal"), **settings),
    )


def test_a_published_model_is_imported_and_read_through_its_facets(tmp_path: Path) -> None:
    with local(tmp_path) as session:
        result = session.execute(f"IMPORT MODEL '{SHOP}'")
        list(result)
        assert result.footer().startswith(
            f"IMPORT MODEL {SHOP}: 1 table created, 20 items written, 9 entities declared · "
            "1 BatchWriteItem call · "
        )
        journal = result.footer().rsplit(" · journal ", 1)[1]
        assert Path(journal).exists()
        info = session.table("OnlineShop")
        assert [ix.name for ix in info.indexes] == ["GSI1", "GSI2"]
        lines = session.execute("SELECT p, Quantity, Price FROM orderItem WHERE o = '12345'")
        assert lines.all() == [
            {"p": "12345", "Quantity": "2", "Price": "100"},
            {"p": "99887", "Quantity": "5", "Price": "40"},
        ]
        assert lines.stats.operations == ["Query OnlineShop"]
        # items of the other facets in the same partition are not order items
        shipments = session.execute("SELECT sh, Type FROM shipment WHERE o = '12345'").all()
        assert shipments == [{"sh": "88899", "Type": "Express"}, {"sh": "98765", "Type": "Express"}]
        customer = session.execute("SELECT Name FROM customer WHERE c = '12345'")
        assert customer.all() == [{"Name": "Samaneh"}]
        assert customer.stats.operations == ["GetItem OnlineShop"]
        # a second import keeps the table (its keys and indexes are the model's) and puts the
        # items again: an import that stopped is continued so
        again = session.execute(f"IMPORT MODEL '{SHOP}'")
        list(again)
        assert "0 tables created (1 table kept), 20 items written, 0 entities" in again.footer()
        assert session.execute("SELECT COUNT(*) AS n FROM OnlineShop").all() == [{"n": 20}]


def test_the_published_model_reads_the_same_on_every_backend(
    backend: Backend, tmp_path: Path
) -> None:
    """IMPORT MODEL through the kinds on moto, dynalite and DynamoDB Local (the table under a
    name of its own): the facets' reads answer alike, by Query and GetItem."""
    name = unique_name("shop")
    path = tmp_path / "shop.json"
    path.write_text(SHOP.read_text(encoding="utf-8").replace('"OnlineShop"', f'"{name}"'))
    settings = Settings(journal_dir="off")
    with Session(backend.client(), settings=settings) as session:
        list(session.execute(f"IMPORT MODEL '{path}'"))
        lines = session.execute("SELECT p, Quantity FROM orderItem WHERE o = '12345'")
        assert lines.all() == [{"p": "12345", "Quantity": "2"}, {"p": "99887", "Quantity": "5"}]
        item = session.execute(
            "SELECT Quantity FROM warehouseItem WHERE p = '99887' AND w = '12376'"
        )
        assert item.all() == [{"Quantity": "4"}]
        assert [lines.stats.operations, item.stats.operations] == [
            [f"Query {name}"],
            [f"GetItem {name}"],
        ]
        by_index = session.execute(f"""SELECT SK FROM {name} WHERE "GSI1-PK" = 'i#55443'""")
        assert sorted(r["SK"] for r in by_index) == ["i#55443", "pmn#33224", "pmn#33442"]


def test_the_dry_run_lists_the_statements_and_sends_nothing(tmp_path: Path) -> None:
    with local(tmp_path, dry_run=True) as session:
        text = [row["plan"] for row in session.execute(f"IMPORT MODEL '{SHOP}'")]
        assert session.tables() == []
        assert session.entity_names() == []
    assert text[0] == f"-- IMPORT MODEL '{SHOP}': 1 table, 20 items, 9 entities"
    assert "CREATE TABLE OnlineShop (" in text
    assert "-- then 20 items into OnlineShop: BatchWriteItem, 1 call, ~38 WCU est." in text
    assert "  KEY (PK = 'o#' || o, SK = 'p#' || p)" in text
    assert text[-1] == "-- dry run: nothing was sent"
    statements = parse_script("\n".join(line for line in text if not line.startswith("--")))
    assert [type(s) for s in statements] == [ast.CreateTable] + [ast.CreateEntity] * 9


def test_an_import_is_refused_whole_before_any_change(tmp_path: Path) -> None:
    settings = Settings(read_only=True)
    with Session.local(load_examples=False, settings=settings) as session:
        with pytest.raises(GuardError, match="read_only is on, so IMPORT MODEL was not sent"):
            session.execute(f"IMPORT MODEL '{SHOP}'")
        assert session.tables() == []
    with local(tmp_path) as session:
        session.execute("CREATE TABLE OnlineShop (PK S, PRIMARY KEY (PK))").all()
        with pytest.raises(PlanError) as err:
            session.execute(f"IMPORT MODEL '{SHOP}'")
        assert str(err.value).startswith(
            "IMPORT MODEL: table OnlineShop exists with other keys or indexes (key PK S; the "
            "model's: key PK S, SK S; GSI GSI1 (GSI1-PK S, GSI1-SK S) ALL; GSI GSI2"
        )
        assert session.entity_names() == []
        session.execute("BEGIN").all()
        with pytest.raises(GuardError, match="IMPORT MODEL cannot be rolled back"):
            session.execute(f"IMPORT MODEL '{SHOP}'")
        session.execute("ROLLBACK").all()
        with pytest.raises(DynosqlError, match="cannot read the model nowhere.json"):
            session.execute("IMPORT MODEL 'nowhere.json'")


def test_the_example_tables_round_trip_through_a_second_server(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    """EXPORT MODEL of the five example tables with their entities (SAMPLE 25 a facet), IMPORT
    MODEL into a fresh server: the same tables, indexes and entities, and exactly the items
    the model holds."""
    path = tmp_path / "examples.json"
    names = ["audit", "drive", "sensors", "tenants", "usage"]
    with Session(moto_examples_backend.client()) as source:
        source.load_schemas([str(SCHEMA)])
        exported = source.execute(f"EXPORT MODEL {', '.join(names)} TO '{path}' SAMPLE 25")
        list(exported)
        before = {n: _described(source, n) for n in names}
        entities = {
            e: source.execute(f"SHOW CREATE ENTITY {e}").all() for e in source.entity_names()
        }
    written = read_model(path.read_text(encoding="utf-8"), path.name)
    held = {t.name: _items(t.items) for t in written.tables}
    # 25 of each of the 8 entities (every example item belongs to one)
    assert exported.footer().startswith(
        f"EXPORT MODEL → {path}: 5 tables, 8 facets, 200 items · Scan audit, Scan drive"
    )
    assert sum(len(items) for items in held.values()) == 200
    with local(tmp_path) as target:
        list(target.execute(f"IMPORT MODEL '{path}'"))
        assert {n: _described(target, n) for n in names} == before
        assert {n: _items(target.execute(f"SELECT * FROM {n}")) for n in names} == held
        assert {
            e: target.execute(f"SHOW CREATE ENTITY {e}").all() for e in target.entity_names()
        } == entities


def _described(session: Session, table: str) -> dict[str, Any]:
    raw = session.client.describe_table(TableName=table)["Table"]
    keep = ("KeySchema", "AttributeDefinitions", "BillingModeSummary")
    out = {k: raw.get(k) for k in keep}
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        out[field] = sorted(
            (ix["IndexName"], str(ix["KeySchema"]), str(ix["Projection"]))
            for ix in raw.get(field) or []
        )
    return out


def test_export_model_samples_each_entity_and_is_guarded(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    path = tmp_path / "tenants.json"
    with Session(moto_examples_backend.client()) as session:
        session.load_schemas([str(SCHEMA)])
        list(session.execute(f"EXPORT MODEL tenants TO '{path}' SAMPLE 2"))
        (tenants,) = json.loads(path.read_text())["DataModel"]
        assert {f["FacetName"]: len(f["TableData"]) for f in tenants["TableFacets"]} == {
            "invoice": 2,
            "tenant_event": 2,
            "tenant_user": 2,
        }
        session.settings.fail_on_scan = True
        with pytest.raises(GuardError, match="this EXPORT MODEL would Scan tenants"):
            session.execute(f"EXPORT MODEL tenants TO '{tmp_path / 'no.json'}'")
    assert not (tmp_path / "no.json").exists()


@pytest.mark.parametrize(
    "sql, message",
    [
        ("IMPORT MODEL shop.json", "line 1, column 14: expected the model file as a 'quoted"),
        ("EXPORT MODEL TO 'x.json' SAMPLE 0", "line 1, column 33: SAMPLE takes a whole number"),
        ("EXPORT MODEL t, TO 'x.json'", "line 1, column 17: expected a table name, got 'TO'"),
        ("EXPLAIN EXPORT MODEL TO 'x.json'", "line 1, column 9: EXPLAIN takes SELECT"),
    ],
)
def test_the_statements_refusals_name_line_and_column(sql: str, message: str) -> None:
    with pytest.raises(SqlError) as err:
        parse(sql)
    assert message in str(err.value)


def test_local_model_starts_the_embedded_server_with_the_model(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    run = run_cli(
        "--local",
        "--model",
        str(DESIGNS / "GamePlayerProfilesSchema.json"),
        "-e",
        "SHOW TABLES",
        "-e",
        "SELECT ItemID FROM Items WHERE playerID = 'player001'",
        "--format",
        "csv",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "table",
        "game-player-profiles",
        "ItemID",
        "001",
        "002",
        "003",
    ]
    assert "note: " + str(DESIGNS / "GamePlayerProfilesSchema.json") in run.stderr
    usage = run_cli("--model", "x.json", "-e", "SHOW TABLES", env=env)
    assert usage.returncode == 2
    assert usage.one_error().startswith("error: --model starts the embedded DynamoDB")


def test_every_name_is_the_model_s_own(tmp_path: Path) -> None:
    """A facet named as a table cannot be an entity: refused before any change."""
    path = tmp_path / "m.json"
    path.write_text(
        model(
            table(TableFacets=[{"FacetName": "things", "KeyAttributeAlias": {}}]),
        )
    )
    with local(tmp_path) as session:
        with pytest.raises(PlanError, match="facet things has a table's name"):
            session.execute(f"IMPORT MODEL '{path}'")
        assert session.tables() == []
