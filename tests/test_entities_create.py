"""SHOW ENTITIES FROM t … AS CREATE: for every design of the corpus, the output parses as
CREATE ENTITY statements, loads back as a schema (each statement runs and is checked against
the table), every item of the table belongs to one of its entities (exactly one where a type
attribute names them), and reading each entity returns as many rows as SHOW ENTITIES counted
for it. On each example table, it reproduces examples/entities.sql but for the names."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from designs import DESIGNS, ModelTable, corpus

from dynosql.entity_model import Access, Column, Entity, Template
from dynosql.session import Session
from dynosql.sql import ast, parse_script

CORPUS = corpus()
SCHEMA = Path(__file__).resolve().parent.parent / "dynosql" / "examples" / "entities.sql"


def created(text: str) -> list[Entity]:
    """The entities AS CREATE's text declares (every statement must be a CREATE ENTITY)."""
    statements = parse_script(text)
    assert all(isinstance(s, ast.CreateEntity) for s in statements), statements
    return [s.entity for s in statements]


@pytest.mark.parametrize("model, table", CORPUS, ids=[f"{m}:{t.name}" for m, t in CORPUS])
def test_as_create_loads_back_as_a_schema_whose_entities_hold_every_item(
    moto_backend: Backend, design_tables: dict, model: str, table: ModelTable
) -> None:
    name = design_tables[(model, table.name)]
    _result, text = _as_create(moto_backend, name)
    entities = created(text)
    # each statement's comment says how many items SHOW ENTITIES counted for it
    counted = {m[1]: int(m[2]) for m in re.finditer(r"^-- (.+): (\d+) items?\b", text, re.M)}
    with Session(moto_backend.client()) as session:
        for result in session.run(text):  # CREATE ENTITY, checked against the table
            result.all()
        read = {
            e.name: len(session.execute(f"SELECT * FROM {_name(e.name)}").all()) for e in entities
        }
    assert {e.table for e in entities} == {name}
    assert read == counted
    typed = any(e.constants for e in entities)
    for item in table.items:
        owners = [e.name for e in entities if e.belongs(item)]
        assert owners if not typed else len(owners) == 1, (item, owners)


def _name(name: str) -> str:
    return name if name.isidentifier() and name.upper() != "ORDER" else f'"{name}"'


def test_the_device_log_s_state_and_date_are_its_sort_key_s_columns(
    moto_backend: Backend, design_tables: dict
) -> None:
    name = design_tables[("DeviceStateLog_7.json", "DeviceStateLog")]
    result, text = _as_create(moto_backend, name)
    assert text.splitlines() == [
        f"-- SHOW ENTITIES FROM {name} AS CREATE: 1 entity type in 11 items.",
        "-- Names and columns are guesses: rename them, then save this as a schema file.",
        "",
        "-- d: 11 items; other attributes: State",
        f"CREATE ENTITY d ON {name} (",
        """  KEY (DeviceID = 'd#' || deviceId, "State#Date" = State || '#' || Date),""",
        "  INDEX GSI1 (Operator = Operator, Date = Date)",
        """  -- , INDEX GSI2 (EscalatedTo = EscalatedTo, "State#Date" = State || '#' || Date)"""
        "  -- sparse: 1 of 11 items have its keys",
        ");",
    ]
    assert result.footer().startswith("Scan " + name + " · 11 items scanned")


def test_the_online_shop_s_tags_are_named_after_the_entities_that_own_them(
    moto_backend: Backend, design_tables: dict
) -> None:
    name = design_tables[("AnOnlineShop_14.json", "OnlineShop")]
    _result, text = _as_create(moto_backend, name)
    entities = {e.name: e.text() for e in created(text)}
    assert entities["orderItem"] == (
        f"CREATE ENTITY orderItem ON {name} (\n"
        "  KEY (PK = 'o#' || orderId, SK = 'p#' || productId),\n"
        '  INDEX GSI1 ("GSI1-PK" = \'p#\' || productId, "GSI1-SK" = timestamp),\n'
        '  INDEX GSI2 ("GSI2-PK" = \'c#\' || customerId, "GSI2-SK" = timestamp),\n'
        "  EntityType = 'orderItem'\n"
        ");"
    )
    assert entities["customer"] == (
        f"CREATE ENTITY customer ON {name} (\n"
        "  KEY (PK = 'c#' || customerId, SK = 'c#' || customerId),\n"
        "  EntityType = 'customer'\n"
        ");"
    )
    assert (
        "  INDEX GSI1 (\"GSI1-PK\" = 'i#' || invoiceId, \"GSI1-SK\" = 'i#' || invoiceId),\n"
        '  INDEX GSI2 ("GSI2-PK" = \'c#\' || customerId, "GSI2-SK" = Date),\n'
    ) in entities["invoice"]
    assert 'CREATE ENTITY "order"' in text  # ORDER is a keyword: the entity's name is quoted
    # warehouseItem is in GSI2 for 2 of its 3 items, and nothing stored says which: the index
    # is offered as a comment
    assert (
        "  -- , INDEX GSI2 (\"GSI2-PK\" = 'w#' || warehouseId, \"GSI2-SK\" = 'p#' || productId)"
        "  -- sparse: 2 of 3 items have its keys"
    ) in text


def _as_create(backend: Backend, table: str) -> tuple[Any, str]:
    with Session(backend.client()) as session:
        result = session.execute(f'SHOW ENTITIES FROM "{table}" AS CREATE')
        return result, "\n".join(row["plan"] for row in result.all())


EXAMPLE_TABLES = ("tenants", "drive", "sensors", "audit", "usage")


def test_as_create_on_the_example_tables_is_their_schema_file_but_for_names(
    moto_examples_backend: Backend,
) -> None:
    """On each example table, AS CREATE declares the schema file's entities of that table but
    for the entities' and columns' names (tenants' tenant_user, invoice, tenant_event are USER,
    INVOICE, EVENT; audit's actorId and at are actorId and timestamp): the same templates, index
    templates, gsi1's WHERE (the void invoices, and only they, are not in it) and constants."""
    schema = created(SCHEMA.read_text())
    assert {e.table for e in schema} == set(EXAMPLE_TABLES)
    with Session(moto_examples_backend.client()) as session:
        found = {}
        for table in EXAMPLE_TABLES:
            result = session.execute(f"SHOW ENTITIES FROM {table} AS CREATE")
            found[table] = created("\n".join(row["plan"] for row in result.all()))
            if table == "tenants":
                assert result.warnings == [
                    "SHOW ENTITIES … AS CREATE reads every item of tenants (~479 items, ~7 RCU)"
                ]
        sensors = session.execute("SHOW ENTITIES FROM sensors SAMPLE 200 AS CREATE")
        sampled = "\n".join(row["plan"] for row in sensors.all())
    for table in EXAMPLE_TABLES:
        declared = sorted(shape(e) for e in schema if e.table == table)
        assert sorted(shape(e) for e in found[table]) == declared, table
    names = {"USER": "tenant_user", "INVOICE": "invoice", "EVENT": "tenant_event"}
    tenants = sorted(dataclasses.replace(e, name=names[e.name]).text() for e in found["tenants"])
    assert tenants == sorted(e.text() for e in schema if e.table == "tenants")
    assert sampled.startswith("-- SHOW ENTITIES FROM sensors AS CREATE: 1 entity type in a sample")
    (dev,) = created(sampled)
    assert dev.text() == (
        "CREATE ENTITY dev ON sensors (\n"
        "  KEY (deviceId = deviceId, readingTs = readingTs),\n"
        "  INDEX by_region (region = region, readingTs = readingTs)\n"
        ");"
    )
    assert sensors.stats.items_scanned == 200


def shape(entity: Entity) -> str:
    """The entity's CREATE ENTITY with its name and its columns' names left out: columns are
    numbered in the order the templates name them (one column used twice is one number)."""
    number = {c: f"c{i}" for i, c in enumerate(entity.columns)}

    def renamed(template: Template) -> Template:
        parts = tuple(
            Column(number[p.name]) if isinstance(p, Column) else p for p in template.parts
        )
        return dataclasses.replace(template, parts=parts)

    def access(a: Access) -> Access:
        pk, sk = renamed(a.pk), None if a.sk is None else renamed(a.sk)
        where = re.sub(
            r'"(?:[^"]|"")*"|\b[A-Za-z_]\w*\b',
            lambda m: number.get(m.group().strip('"').replace('""', '"'), m.group()),
            a.where_text,
        )
        return dataclasses.replace(a, pk=pk, sk=sk, where_text=where)

    anonymous = dataclasses.replace(
        entity,
        name="e",
        key=access(entity.key),
        indexes=tuple(access(a) for a in entity.indexes),
    )
    return anonymous.text()


def test_as_create_is_a_scan_like_show_entities(moto_examples_backend: Backend) -> None:
    from dynosql.errors import GuardError
    from dynosql.settings import Settings

    settings = Settings()
    settings.fail_on_scan = True
    with Session(moto_examples_backend.client(), settings=settings) as session:
        with pytest.raises(GuardError, match="would Scan audit"):
            session.execute("SHOW ENTITIES FROM audit AS CREATE")


def test_the_corpus_files_are_where_the_tests_read_them() -> None:
    assert (DESIGNS / "README.md").exists() and len(CORPUS) == 24
