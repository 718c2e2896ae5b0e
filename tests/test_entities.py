"""SHOW ENTITIES: key templates, counts, merged schemas, sparse index membership and sort-key
health — on four of the example tables (the entity types the datasets were built with) and on a
generated table with known templates."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from backends import Backend, unique_name

from dynosql.examples import datasets
from dynosql.hints.sort_keys import sort_key_health
from dynosql.session import Session
from dynosql.statements.entities import template


@pytest.mark.parametrize(
    "key, expected",
    [
        ("TENANT#acme", "TENANT#{id}"),
        ("INVOICE#000123", "INVOICE#{6 digits}"),
        ("EVT#2026-03-01T06:56:13.455Z", "EVT#{timestamp}"),
        ("USER#ada@acme.example", "USER#{email}"),
        ("DAY#2026-06-23", "DAY#{date}"),
        ("dev-0001", "dev-{4 digits}"),
        ("root/photos/", "{path}/"),
        ("root/photos/a.jpg", "{path}/{file}"),
        (Decimal(5), "{number}"),
    ],
)
def test_templates(key, expected) -> None:
    assert template(key) == expected


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


@pytest.fixture(scope="module")
def examples(moto_examples_backend: Backend):
    with Session(moto_examples_backend.client()) as session:
        yield session


def report(session: Session, sql: str) -> list[tuple]:
    rows = session.execute(sql).all()
    return [(r["entity"], r["pk"], r["sk"], int(r["items"])) for r in rows]


def counts(name: str, key) -> Counter:
    return Counter(key(i) for i in datasets.DATASETS[name].items())


def test_tenants_entities(examples: Session) -> None:
    n = counts("tenants", lambda i: i["sk"].split("#")[0])
    assert report(examples, "SHOW ENTITIES FROM tenants") == [
        ("INVOICE", "TENANT#{id}", "INVOICE#{6 digits}", n["INVOICE"]),
        ("EVENT", "TENANT#{id}", "EVENT#{timestamp}", n["EVENT"]),
        ("USER", "TENANT#{id}", "USER#{email}", n["USER"]),
    ]
    rows = examples.execute("SHOW ENTITIES FROM tenants").all()
    invoice = rows[0]
    in_gsi = sum(1 for i in datasets.DATASETS["tenants"].items() if "gsi1pk" in i)
    assert invoice["indexes"] == f"gsi1 ({in_gsi} of {n['INVOICE']}: sparse)"
    assert "amount:N" in invoice["attributes"] and "gsi1pk:S?" in invoice["attributes"]
    assert rows[1]["indexes"] == "none"
    assert sum(r["share"] for r in rows) == pytest.approx(1, abs=Decimal("0.001"))


def test_drive_audit_sensors_entities(examples: Session) -> None:
    n = counts("drive", lambda i: i["SK"].endswith("/"))
    assert report(examples, "SHOW ENTITIES FROM drive") == [
        ("file", "DRIVE#{id}", "{path}/{file}", n[False]),
        ("folder", "DRIVE#{id}", "{path}/", n[True]),
    ]
    result = examples.execute("SHOW ENTITIES FROM drive")
    rows = result.all()
    assert rows[0]["indexes"] == "by_modified" and rows[1]["indexes"] == "none"
    assert any(note.startswith("file: top-level prefixes root/photos/") for note in result.notes)
    assert report(examples, "SHOW ENTITIES FROM audit") == [
        ("EVT", "ACTOR#{id}", "EVT#{timestamp}", 1000)
    ]
    assert report(examples, "SHOW ENTITIES FROM sensors") == [
        ("item", "dev-{4 digits}", "{timestamp}", 1300)
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
        ("ORDER", "ACCT#{1 digits}", "ORDER#{number}", 9, "open (3 of 9: sparse)"),
        ("SHIP", "ACCT#{1 digits}", "SHIP#{id}", 6, "none"),
        ("PROFILE", "ACCT#{1 digits}", "PROFILE", 3, "none"),
    }
    assert any("numbers without zero padding after 'ORDER#'" in note for note in result.notes)
    assert any("month/day/year" in note for note in result.notes)


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
