"""SHOW ENTITIES FROM t … AS CREATE: for every design of the corpus, the output is CREATE ENTITY
statements of the issue's grammar, and they describe the data: every item of the table
matches the key templates (and the constants) of exactly one of them. Until the CREATE ENTITY
parser is on main, a parser-free reader of that grammar checks them (below)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from backends import Backend
from designs import DESIGNS, ModelTable, model_files, model_tables

from dynosql import values
from dynosql.session import Session

CORPUS = [(path.name, t) for path in model_files() for t in model_tables(path)]


# --- a reader of the grammar the issue fixes ------------------------------------------------------
#   create   = "CREATE" "ENTITY" name "ON" name "(" key { "," ( index | constant ) } ")" ";"
#   key      = "KEY" "(" assign [ "," assign ] ")"
#   index    = "INDEX" name "(" assign [ "," assign ] ")"
#   assign   = name "=" template ;  constant = name "=" string
#   template = term { "||" term } ;  term = string | name


_TOKEN = re.compile(
    r"""\s+|--[^\n]*|(?P<quoted>"(?:[^"]|"")*")|(?P<string>'(?:[^']|'')*')
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>\|\||[(),=;])""",
    re.X,
)


@dataclass
class Created:
    name: str
    table: str
    key: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    indexes: dict[str, list[tuple[str, list[tuple[str, str]]]]] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)


def read_statements(text: str) -> list[Created]:
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        assert m is not None, f"unexpected {text[at : at + 20]!r}"
        if m.lastgroup:
            tokens.append((m.lastgroup, m.group()))
        at = m.end()
    reader = _Reader(tokens)
    out = []
    while reader.i < len(tokens):
        out.append(reader.create())
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.i = 0

    def take(self, *kinds: str) -> tuple[str, str]:
        kind, text = self.tokens[self.i]
        assert kind in kinds or text.upper() in kinds, (kinds, text, self.tokens[self.i - 3 :])
        self.i += 1
        return kind, text

    def peek(self) -> str:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else ""

    def name(self) -> str:
        kind, text = self.take("word", "quoted")
        return text[1:-1].replace('""', '"') if kind == "quoted" else text

    def create(self) -> Created:
        self.take("CREATE")
        self.take("ENTITY")
        made = Created(self.name(), "")
        self.take("ON")
        made.table = self.name()
        self.take("(")
        self.take("KEY")
        made.key = self.assigns()
        while self.peek() == ",":
            self.take(",")
            if self.peek().upper() == "INDEX":
                self.take("INDEX")
                index = self.name()
                made.indexes[index] = self.assigns()
            else:
                attribute = self.name()
                self.take("=")
                made.constants[attribute] = _unquote(self.take("string")[1])
        self.take(")")
        self.take(";")
        return made

    def assigns(self) -> list[tuple[str, list[tuple[str, str]]]]:
        self.take("(")
        out = [self.assign()]
        if self.peek() == ",":
            self.take(",")
            out.append(self.assign())
        self.take(")")
        return out

    def assign(self) -> tuple[str, list[tuple[str, str]]]:
        attribute = self.name()
        self.take("=")
        terms = [self.term()]
        while self.peek() == "||":
            self.take("||")
            terms.append(self.term())
        return attribute, terms

    def term(self) -> tuple[str, str]:
        kind, text = self.tokens[self.i]
        if kind == "string":
            self.i += 1
            return "literal", _unquote(text)
        return "column", self.name()


def _unquote(text: str) -> str:
    return text[1:-1].replace("''", "'")


# --- what the statements say about the items --------------------------------------------------------


def matches(created: Created, item: dict[str, Any]) -> bool:
    """Whether the item is one of the entity's: its key attributes compose from one set of
    column values, and the constants hold."""
    columns: dict[str, str] = {}
    for attribute, terms in created.key:
        value = item.get(attribute)
        if not isinstance(value, str):
            value = values.format_number(value) if values.type_of(value) == "N" else None
        if value is None or not _fill(terms, value, columns):
            return False
    return all(item.get(a) == v for a, v in created.constants.items())


def _fill(terms: list[tuple[str, str]], value: str, columns: dict[str, str]) -> bool:
    pattern, names = "", []
    for kind, text in terms:
        if kind == "literal":
            pattern += re.escape(text)
        elif text in columns:
            pattern += re.escape(columns[text])
        else:
            pattern += "(.*?)"
            names.append(text)
    m = re.fullmatch(pattern, value, re.S)
    if m is None:
        return False
    for name, got in zip(names, m.groups(), strict=True):
        if columns.setdefault(name, got) != got:
            return False
    return True


@pytest.fixture(scope="module")
def corpus(moto_backend: Backend) -> dict[tuple[str, str], str]:
    return {(model, t.name): t.create(moto_backend) for model, t in CORPUS}


@pytest.mark.parametrize("model, table", CORPUS, ids=[f"{m}:{t.name}" for m, t in CORPUS])
def test_as_create_writes_create_entity_statements_that_describe_every_item(
    moto_backend: Backend, corpus: dict, model: str, table: ModelTable
) -> None:
    name = corpus[(model, table.name)]
    _result, text = _as_create(moto_backend, name)
    with Session(moto_backend.client()) as session:
        entities = session.execute(f'SHOW ENTITIES FROM "{name}"').all()
    created = read_statements(text)
    assert sorted(c.name for c in created) == sorted(e["entity"] for e in entities)
    keys = [k["AttributeName"] for k in table.key_schema]
    gsis = {g["IndexName"]: [k["AttributeName"] for k in g["KeySchema"]] for g in table.gsis}
    for c in created:
        assert c.table == name
        assert [a for a, _ in c.key] == keys
        for index, assigns in c.indexes.items():
            assert [a for a, _ in assigns] == gsis[index]
        for _attribute, terms in [*c.key, *(a for x in c.indexes.values() for a in x)]:
            columns = [t for kind, t in terms if kind == "column"]
            assert len(columns) == len(set(columns)), terms  # a column once per template
    for item in table.items:
        owners = [c.name for c in created if matches(c, item)]
        assert len(owners) >= 1, item
        if any(c.constants for c in created):
            assert len(owners) == 1, (item, owners)


def test_the_device_log_s_state_and_date_are_its_sort_key_s_columns(
    moto_backend: Backend, corpus: dict
) -> None:
    name = corpus[("DeviceStateLog_7.json", "DeviceStateLog")]
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
    moto_backend: Backend, corpus: dict
) -> None:
    _result, text = _as_create(moto_backend, corpus[("AnOnlineShop_14.json", "OnlineShop")])
    statements = {c.name: c for c in read_statements(text)}
    assert _sql(statements["orderItem"]) == (
        "PK = 'o#' || orderId, SK = 'p#' || productId; "
        'GSI1: "GSI1-PK" = \'p#\' || productId, "GSI1-SK" = timestamp; '
        'GSI2: "GSI2-PK" = \'c#\' || customerId, "GSI2-SK" = timestamp; '
        "EntityType = 'orderItem'"
    )
    assert _sql(statements["customer"]) == (
        "PK = 'c#' || customerId, SK = 'c#' || customerId; EntityType = 'customer'"
    )
    assert _sql(statements["invoice"]).startswith(
        "PK = 'o#' || orderId, SK = 'i#' || invoiceId; "
        "GSI1: \"GSI1-PK\" = 'i#' || invoiceId, \"GSI1-SK\" = 'i#' || invoiceId; "
        'GSI2: "GSI2-PK" = \'c#\' || customerId, "GSI2-SK" = Date'
    )
    assert '"order"' in text  # ORDER is a keyword: the entity's name is quoted
    # warehouseItem is in GSI2 for 2 of its 3 items: the index is offered as a comment
    assert (
        "  -- , INDEX GSI2 (\"GSI2-PK\" = 'w#' || warehouseId, \"GSI2-SK\" = 'p#' || productId)"
        "  -- sparse: 2 of 3 items have its keys"
    ) in text


def _as_create(backend: Backend, table: str) -> tuple[Any, str]:
    with Session(backend.client()) as session:
        result = session.execute(f'SHOW ENTITIES FROM "{table}" AS CREATE')
        return result, "\n".join(row["plan"] for row in result.all())


def _sql(c: Created) -> str:
    def assigns(pairs: list) -> str:
        return ", ".join(
            f"{_q(a)} = "
            + " || ".join(f"'{t}'" if kind == "literal" else _q(t) for kind, t in terms)
            for a, terms in pairs
        )

    parts = [assigns(c.key)]
    parts += [f"{index}: {assigns(pairs)}" for index, pairs in c.indexes.items()]
    parts += [f"{a} = '{v}'" for a, v in c.constants.items()]
    return "; ".join(parts)


def _q(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_]\w*", name) else f'"{name}"'


def test_as_create_on_the_example_tables(moto_examples_backend: Backend) -> None:
    with Session(moto_examples_backend.client()) as session:
        tenants = session.execute("SHOW ENTITIES FROM tenants AS CREATE")
        text = "\n".join(row["plan"] for row in tenants.all())
        sensors = session.execute("SHOW ENTITIES FROM sensors SAMPLE 200 AS CREATE")
        sampled = "\n".join(row["plan"] for row in sensors.all())
    created = {c.name: _sql(c) for c in read_statements(text)}
    assert created == {
        "INVOICE": "pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId",
        "EVENT": "pk = 'TENANT#' || tenantId, sk = 'EVENT#' || at",
        "USER": "pk = 'TENANT#' || tenantId, sk = 'USER#' || email",
    }
    assert "-- , INDEX gsi1 (gsi1pk = 'STATUS#' || status, gsi1sk = dueDate)" in text
    assert tenants.warnings == [
        "SHOW ENTITIES … AS CREATE reads every item of tenants (~479 items, ~7 RCU)"
    ]
    assert sampled.startswith("-- SHOW ENTITIES FROM sensors AS CREATE: 1 entity type in a sample")
    (dev,) = read_statements(sampled)
    assert _sql(dev) == (
        "deviceId = deviceId, readingTs = readingTs; "
        "by_region: region = region, readingTs = readingTs"
    )
    assert sensors.stats.items_scanned == 200


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
