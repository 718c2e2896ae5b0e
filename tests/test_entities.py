"""SHOW ENTITIES: entity types read from a table's items — on a corpus of published
single-table designs (tests/data/designs/, each checked against what a person reading it names),
on our example tables, and on generated tables; key templates, counts, merged schemas, sparse
index membership and sort-key health."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name
from designs import DESIGNS, ModelTable, corpus, model_files, model_tables

from dynosql.entities.discover import discover
from dynosql.entities.keyshape import label, shape, template_text, tokens
from dynosql.examples import datasets
from dynosql.hints.sort_keys import sort_key_health
from dynosql.plan.schema import table_info
from dynosql.session import Session

EXPECTED: dict[str, dict[str, Any]] = json.loads((DESIGNS / "expected.json").read_text())
PK_SK = table_info(
    {
        "TableName": "t",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [],
    }
)


# --- the vocabulary ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, expected",
    [
        ("TENANT#acme", ("TENANT", "#", "acme")),
        ("#META#", ("", "#", "META", "#", "")),
        ("User:UserA", ("User", ":", "UserA")),
        ("EVT#2026-03-01T06:56:13.455Z", ("EVT", "#", "2026-03-01T06:56:13.455Z")),
        ("a|b", ("a", "|", "b")),
        ("root/photos/a.jpg", ("root/photos/a.jpg",)),
    ],
)
def test_keys_are_cut_at_delimiters_but_not_inside_timestamps(key: str, expected: tuple) -> None:
    assert tokens(key) == expected


@pytest.mark.parametrize(
    "values, expected",
    [
        (["2026-03-01T06:56:13.455Z", "2019-09-25T010101"], "timestamp"),
        (["2026-06-23"], "date"),
        (["ada@acme.example"], "email"),
        (["c5613b43-4506-4707-a3df-c148bb3a9172"], "uuid"),
        (["000123", "004567"], "6 digits"),
        (["9", "10", "11"], "number"),
        (["acme", "2026-06-23"], "id"),
    ],
)
def test_a_hole_is_named_by_the_shape_all_its_values_have(values: list, expected: str) -> None:
    assert shape(values) == expected


def test_a_label_is_what_every_value_starts_with() -> None:
    assert label(["dev-0001", "dev-0042"]) == "dev-"
    assert label(["team_purple", "team_red"]) == "team_"
    assert label(["dev-0001", "sensor-1"]) == ""
    assert label(["acme", "globex"]) == ""


def test_sort_key_health_names_a_pair_that_sorts_wrongly() -> None:
    notes = sort_key_health(
        "sk", ["ORDER#9", "ORDER#10", "ORDER#11", "SHIP#6/23/2026", "SHIP#10/1/2026"]
    )
    assert notes == [
        "sk holds dates written month/day/year, which do not sort by date: 'SHIP#10/1/2026' "
        "sorts before 'SHIP#6/23/2026' (write dates as YYYY-MM-DD)",
        "sk holds numbers without zero padding after 'ORDER#': 'ORDER#11' sorts before "
        "'ORDER#9' (pad them to one width)",
    ]
    assert sort_key_health("sk", ["ORDER#09", "ORDER#10", "EVT#2026-01-02T00:00:00Z"]) == []


# --- the corpus of published designs --------------------------------------------------------------

CORPUS = corpus()


def _expected(model: str, table: str) -> tuple[set[tuple], dict[str, Any]]:
    """What a person reading the design names, less what discovery is known to read otherwise
    (and with what it finds instead)."""
    spec = EXPECTED[model][table]
    want = {_entity(e) for e in spec["entities"]}
    known = spec.get("known_differences")
    if known:
        want -= {_entity(e) for e in known["expected"]}
        want |= {_entity(e) for e in known["discovered"]}
    return want, spec


def _entity(row: list[Any]) -> tuple:
    indexes = row[3] if len(row) > 3 else {}
    return (row[0], row[1], row[2] or "", tuple(sorted(indexes.items())))


def test_every_design_and_table_of_the_corpus_has_an_expected_answer() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in model_files())
    for model, table in CORPUS:
        assert table.name in EXPECTED[model], (model, table.name)
        assert table.items, (model, table.name)
    assert len(CORPUS) == 24


@pytest.mark.parametrize("model, table", CORPUS, ids=[f"{m}:{t.name}" for m, t in CORPUS])
def test_discovery_names_what_a_person_reading_the_design_names(
    moto_backend: Backend, design_tables: dict, model: str, table: ModelTable
) -> None:
    want, spec = _expected(model, table.name)
    name = design_tables[(model, table.name)]
    with Session(moto_backend.client()) as session:
        result = session.execute(f'SHOW ENTITIES FROM "{name}"')
        rows = result.all()
    got = {(r["entity"], r["pk"], r["sk"], _index_templates(r["indexes"])) for r in rows}
    assert got == want
    assert sum(int(r["items"]) for r in rows) == len(table.items)
    typed = [n for n in result.notes if n.startswith("entity types from the attribute ")]
    if spec["type_attribute"]:
        assert typed == [
            f"entity types from the attribute {spec['type_attribute']} ({len(rows)} values)"
        ]
    else:
        assert typed == []


@pytest.mark.parametrize("model, table", CORPUS, ids=[f"{m}:{t.name}" for m, t in CORPUS])
def test_discovery_does_not_depend_on_the_order_items_come_in(
    model: str, table: ModelTable
) -> None:
    """A Scan returns items in the backend's order (moto sorts, DynamoDB and dynalite hash):
    the types, their names and templates are the same in any order."""
    info = table.info()

    def found(items: list) -> set:
        return {
            (e.name, tuple(template_text(p) for p in e.templates.values()), e.items)
            for e in discover(info, items).entities
        }

    first = found(table.items)
    for seed in (1, 2):
        shuffled = list(table.items)
        random.Random(seed).shuffle(shuffled)
        assert found(shuffled) == first


def _index_templates(column: str) -> tuple:
    """``GSI1 sh#{5 digits} / p#{5 digits} (2 of 3: sparse)`` → (("GSI1", "sh#… / p#…"),)."""
    if column == "none":
        return ()
    out = []
    for part in re.split(r", (?=\S+ )", column):
        part = re.sub(r" \(\d+ of \d+: (sparse|where .*)\)$", "", part)
        index, _, keys = part.partition(" ")
        out.append((index, keys))
    return tuple(sorted(out))


def test_the_issue_s_two_designs_come_out_as_a_person_reads_them() -> None:
    """Nine entity types with short lower-case prefixes and an EntityType attribute were one
    entity; one device-log entity whose sort key is STATE#timestamp was five."""
    shop = _discovered("AnOnlineShop_14.json")
    assert shop.type_attribute == "EntityType"
    assert sorted(e.name for e in shop.entities) == [
        "customer",
        "invoice",
        "order",
        "orderItem",
        "product",
        "shipment",
        "shipmentItem",
        "warehouse",
        "warehouseItem",
    ]
    log = _discovered("DeviceStateLog_7.json")
    assert [(e.name, e.items) for e in log.entities] == [("d", 11)]


def _discovered(model: str) -> Any:
    (table,) = model_tables(DESIGNS / model)
    return discover(table.info(), table.items)


def test_without_its_entity_type_attribute_a_design_splits_by_its_prefixes() -> None:
    """The online shop with EntityType removed: the same nine types, from the key prefixes
    (o#…/p#… is an order item, p#…/p#… a product), named by them."""
    (table,) = model_tables(DESIGNS / "AnOnlineShop_14.json")
    items = [{k: v for k, v in i.items() if k != "EntityType"} for i in table.items]
    found = discover(table.info(), items)
    assert found.type_attribute is None
    got = {(e.templates["PK"][0], e.templates["SK"][0], e.items) for e in found.entities}
    assert got == {
        ("c", "c", 3),
        ("p", "p", 2),
        ("w", "w", 2),
        ("p", "w", 3),
        ("o", "p", 2),
        ("o", "c", 1),
        ("o", "i", 1),
        ("o", "sh", 2),
        ("o", "shp", 3),
    }


def test_past_the_held_items_each_item_is_counted_into_the_type_its_key_says() -> None:
    """Inference reads the first items whole; later ones are counted into the type their key
    (or type attribute) says, and what fits none is `other`, with a note."""
    info = PK_SK
    kinds = {"ORDER": "total", "USER": "email", "NOTE": "text"}
    items = [
        {"pk": f"ACCT#{n % 7}", "sk": f"{kind}#{n:05d}", attr: "x"}
        for n in range(300)
        for kind, attr in kinds.items()
    ]
    items += [{"pk": f"ACCT#{n}", "sk": f"LATE#{n:05d}", "y": "z"} for n in range(5)]
    found = discover(info, items, held=60)
    assert sorted((e.name, e.items) for e in found.entities) == [
        ("NOTE", 300),
        ("ORDER", 300),
        ("USER", 300),
        ("other", 5),
    ]
    assert found.total == len(items)
    assert [e.name for e in discover(info, items).entities][-1] == "LATE"  # all held: a type


def _info(name: str) -> Any:
    t = datasets.DATASETS[name].table
    keep = ("TableName", "KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes")
    return table_info({k: v for k, v in t.items() if k in keep})


# --- our example tables ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples(moto_examples_backend: Backend):
    with Session(moto_examples_backend.client()) as session:
        yield session


def report(session: Session, sql: str) -> list[tuple]:
    return _report(session.execute(sql).all())


def _report(rows: list[dict[str, Any]]) -> list[tuple]:
    return [(r["entity"], r["pk"], r["sk"], int(r["items"])) for r in rows]


def counts(name: str, key) -> Counter:
    return Counter(key(i) for i in datasets.DATASETS[name].items())


def test_tenants_entities(examples: Session) -> None:
    n = counts("tenants", lambda i: i["sk"].split("#")[0])
    rows = examples.execute("SHOW ENTITIES FROM tenants").all()
    assert _report(rows) == [
        ("INVOICE", "TENANT#{id}", "INVOICE#{6 digits}", n["INVOICE"]),
        ("EVENT", "TENANT#{id}", "EVENT#{timestamp}", n["EVENT"]),
        ("USER", "TENANT#{id}", "USER#{email}", n["USER"]),
    ]
    invoice = rows[0]
    in_gsi = sum(1 for i in datasets.DATASETS["tenants"].items() if "gsi1pk" in i)
    assert (
        invoice["indexes"]
        == f"gsi1 STATUS#{{id}} / {{date}} ({in_gsi} of {n['INVOICE']}: where status <> 'void')"
    )
    assert "amount:N" in invoice["attributes"] and "gsi1pk:S?" in invoice["attributes"]
    assert rows[1]["indexes"] == "none"
    assert sum(r["share"] for r in rows) == pytest.approx(1, abs=Decimal("0.001"))


def test_drive_audit_sensors_usage_entities(examples: Session) -> None:
    n = counts("drive", lambda i: i["SK"].endswith("/"))
    result = examples.execute("SHOW ENTITIES FROM drive")
    rows = result.all()
    assert _report(rows) == [
        ("file", "DRIVE#{id}", "{path}/{file}", n[False]),
        ("folder", "DRIVE#{id}", "{path}/", n[True]),
    ]
    assert rows[0]["indexes"] == "by_modified DRIVE#{id} / {timestamp}"
    assert rows[1]["indexes"] == "none"
    assert "entity types from the attribute type (2 values)" in result.notes
    assert any(note.startswith("file: top-level prefixes root/photos/") for note in result.notes)
    assert report(examples, "SHOW ENTITIES FROM audit") == [
        ("EVT", "ACTOR#{id}", "EVT#{timestamp}", 1000)
    ]
    assert report(examples, "SHOW ENTITIES FROM sensors") == [
        ("dev", "dev-{4 digits}", "{timestamp}", 1300)
    ]
    # tenant#shard: the five tenants recur across shards but hold alike items: values, not types
    assert report(examples, "SHOW ENTITIES FROM usage") == [
        ("item", "{id}#{1 digits}", "{timestamp}", 300)
    ]


def test_sample_reads_only_n_items_and_says_so(examples: Session) -> None:
    result = examples.execute("SHOW ENTITIES FROM audit SAMPLE 40")
    rows = result.all()
    assert [int(r["items"]) for r in rows] == [40]
    assert result.stats.items_scanned == 40
    assert result.warnings == [
        "SHOW ENTITIES reads a sample of 40 items of audit (one Scan, Limit 40)"
    ]
    assert result.notes[0].startswith("sampled: 40 items of about 1000")


# --- generated tables -------------------------------------------------------------------------------


def test_generated_table(backend: Backend) -> None:
    name = unique_name("ent")
    backend.create_keyed_table(name, sk=("sk", "S"), gsis={"open": ("gpk", "S")})
    items = []
    for a in range(3):
        items.append({"pk": f"ACCT#{a}", "sk": "PROFILE", "name": f"n{a}"})
        for o in (9, 10, 11):
            item = {"pk": f"ACCT#{a}", "sk": f"ORDER#{o}", "total": Decimal(o)}
            if o == 10:
                item["gpk"] = "OPEN"
            items.append(item)
        items.append({"pk": f"ACCT#{a}", "sk": "SHIP#6/23/2026", "carrier": "x"})
        items.append({"pk": f"ACCT#{a}", "sk": "SHIP#10/1/2026", "carrier": "y"})
    backend.put_items(name, items)
    with Session(backend.client()) as session:
        result = session.execute(f"SHOW ENTITIES FROM {name}")
        rows = result.all()
    got = {(r["entity"], r["pk"], r["sk"], int(r["items"]), r["indexes"]) for r in rows}
    assert got == {
        # the index holds the orders of total 10, and only they: the test put gpk on those
        ("ORDER", "ACCT#{1 digits}", "ORDER#{number}", 9, "open OPEN (3 of 9: where total = 10)"),
        ("SHIP", "ACCT#{1 digits}", "SHIP#{id}", 6, "none"),
        ("ACCT", "ACCT#{1 digits}", "PROFILE", 3, "none"),
    }
    assert any("numbers without zero padding after 'ORDER#'" in note for note in result.notes)
    assert any("month/day/year" in note for note in result.notes)


def test_a_state_before_a_timestamp_is_a_value_and_a_type_attribute_splits_one_template() -> None:
    """``WARNING1#…``/``NORMAL#…`` items of alike attributes, the state stored beside: one
    type; a `type` attribute whose values hold different attributes under one key template
    (Houlihan's hospital: treatment, medicine under patient#timestamp#id) splits it; a status
    field with alike items does not."""
    info = PK_SK
    states = ["WARNING1", "NORMAL", "WARNING2", "NORMAL", "ALARM"]
    log = [
        {"pk": f"d#{d}", "sk": f"{s}#2026-01-0{i + 1}T00:00:00", "State": s, "note": "x"}
        for d in ("1", "2")
        for i, s in enumerate(states)
    ]
    found = discover(info, log)
    assert [(e.name, e.items) for e in found.entities] == [("d", 10)]
    typed = [
        {"pk": "P1", "sk": "2020-11-25T12:00:00#T1", "type": "treatment", "treatmentId": "T1"},
        {"pk": "P1", "sk": "2020-11-26T12:00:00#M1", "type": "medicine", "dose": "5"},
        {"pk": "P2", "sk": "2020-11-27T12:00:00#T2", "type": "treatment", "treatmentId": "T2"},
        {"pk": "P1", "sk": "A", "type": "patient", "status": "open"},
        {"pk": "P2", "sk": "A", "type": "patient", "status": "closed"},
    ]
    found = discover(info, typed)
    assert found.type_attribute == "type"
    assert sorted((e.name, e.items) for e in found.entities) == [
        ("medicine", 1),
        ("patient", 2),
        ("treatment", 2),
    ]
    fields = [{"pk": f"o#{i}", "sk": f"o#{i}", "type": s, "n": "1"} for i, s in enumerate("ab" * 3)]
    assert discover(info, fields).type_attribute is None  # a/b hold alike items: a field


def test_ordering_on_a_badly_encoded_sort_key_is_warned(backend: Backend) -> None:
    name = unique_name("skh")
    backend.create_keyed_table(name, sk=("sk", "S"))
    backend.put_items(name, [{"pk": "a", "sk": f"ORDER#{n}"} for n in (8, 9, 10, 11)])
    with Session(backend.client()) as session:
        result = session.execute(f"SELECT sk FROM {name} WHERE pk = 'a' ORDER BY sk DESC")
        assert [r["sk"] for r in result.all()] == ["ORDER#9", "ORDER#8", "ORDER#11", "ORDER#10"]
        assert result.notes == [
            "sk holds numbers without zero padding after 'ORDER#': 'ORDER#11' sorts before "
            "'ORDER#8' (pad them to one width)"
        ]
        plain = session.execute(f"SELECT sk FROM {name} WHERE pk = 'a'")
        assert len(plain.all()) == 4 and plain.notes == []  # no order, no range: no note
