"""The REPL's completer on in-memory table metadata (no server)."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from dynosql.plan.schema import table_info
from dynosql.repl import commands
from dynosql.repl.completer import (
    SqlCompleter,
    StaticMetadata,
    key_attributes,
    quote_name,
    statement_table,
    suggest,
)
from dynosql.repl.highlight import tokenize


def _keys(pk: str, sk: str | None = None) -> list[dict]:
    keys = [{"AttributeName": pk, "KeyType": "HASH"}]
    if sk:
        keys.append({"AttributeName": sk, "KeyType": "RANGE"})
    return keys


def _defs(*names: str) -> list[dict]:
    return [{"AttributeName": n, "AttributeType": "S"} for n in names]


AUDIT = table_info(
    {
        "TableName": "audit",
        "KeySchema": _keys("PK", "SK"),
        "AttributeDefinitions": _defs("PK", "SK"),
    }
)
SENSORS = table_info(
    {
        "TableName": "sensors",
        "KeySchema": _keys("deviceId", "readingTs"),
        "AttributeDefinitions": _defs("deviceId", "readingTs", "region"),
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by_region",
                "KeySchema": _keys("region", "readingTs"),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["temperature"]},
            }
        ],
    }
)
DRIVE = table_info(
    {
        "TableName": "drive",
        "KeySchema": _keys("PK", "SK"),
        "AttributeDefinitions": _defs("PK", "SK", "modified"),
        "LocalSecondaryIndexes": [
            {
                "IndexName": "by_modified",
                "KeySchema": _keys("PK", "modified"),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    }
)
ODD = table_info(
    {"TableName": "my-table", "KeySchema": _keys("id"), "AttributeDefinitions": _defs("id")}
)

META = StaticMetadata(
    [AUDIT, SENSORS, DRIVE, ODD],
    {
        "audit": ["PK", "SK", "action", "resource", "ok", "latencyMs", "error"],
        "sensors": ["battery", "humidity", "temperature", "status"],
        "drive": ["size", "owner", "meta", "data-class"],
    },
)


def texts(before: str, after: str = "", meta: StaticMetadata = META) -> list[str]:
    return [
        s.text
        for s in suggest(before, after, meta, commands.help_texts(), commands.argument_kinds())
    ]


def kinds(before: str, after: str = "") -> set[str]:
    return {s.kind for s in suggest(before, after, META, commands.help_texts())}


# --- keywords and functions -----------------------------------------------------------------


def _in_order(offered: list[str], known: list[str]) -> bool:
    """`known` are offered, in this order (a statement kind added since adds its own words:
    tests/test_keywords.py checks the whole list against the vocabulary)."""
    return [t for t in offered if t in known] == known


def test_statement_start_offers_statement_keywords():
    assert _in_order(
        texts(""),
        [
            "SELECT",
            "EXPLAIN",
            "SHOW",
            "CREATE",
            "ALTER",
            "DROP",
            "COPY",
            "INSERT INTO",
            "UPSERT INTO",
            "REPLACE INTO",
            "UPDATE",
            "DELETE FROM",
            "BEGIN",
            "START TRANSACTION",
            "COMMIT",
            "ROLLBACK",
            "EXISTS",
            "UNDO",
            "IMPORT MODEL",
            "EXPORT MODEL",
            "SET",
            "DESCRIBE",
        ],
    )
    assert texts("SEL") == ["SELECT"]
    assert texts("sel") == ["select"]  # the user's case


def test_keywords_after_a_semicolon_start_a_new_statement():
    assert texts("SELECT * FROM audit; DES") == ["DESCRIBE"]


def test_functions_in_where_and_aggregates_in_select():
    assert "begins_with" in texts("SELECT * FROM audit WHERE beg")
    assert "attribute_not_exists" in texts("SELECT * FROM audit WHERE attribute_n")
    assert texts("SELECT CO", " FROM audit") == ["COUNT"]
    assert "COUNT" not in texts("SELECT * FROM audit WHERE ")  # not a condition function


def test_keywords_after_a_table_and_after_a_condition():
    assert texts("SELECT * FROM audit ") == [
        "WHERE",
        "JOIN",
        "LEFT JOIN",
        "GROUP BY",
        "ORDER BY",
        "LIMIT",
    ]
    assert texts("SELECT * FROM audit ORD") == ["ORDER BY"]
    following = texts("SELECT * FROM audit WHERE PK = 'x' ")
    assert following[:2] == ["AND", "OR"] and "ORDER BY" in following
    assert texts("SELECT * FROM audit WHERE error IS ") == [
        "NULL",
        "NOT NULL",
        "DISTINCT FROM",
        "NOT DISTINCT FROM",
    ]


def test_cast_offers_the_types_it_converts_to():
    assert texts("SELECT CAST(size AS ")[:3] == ["NUMBER", "NUMERIC", "DECIMAL"]
    assert texts("SELECT CAST(ROUND(size, 1) AS VARCH") == ["VARCHAR"]
    assert {"INT", "INTEGER"} <= set(texts("SELECT * FROM audit WHERE CAST(n AS INT"))
    assert "NUMBER" not in texts("SELECT size AS ")  # an alias: no type


def test_show_explain_and_set():
    assert _in_order(
        texts("SHOW "),
        ["CREATE TABLE", "CREATE ENTITY", "ENTITIES", "ENTITIES FROM", "HOT KEYS FROM", "TABLES"],
    )
    assert texts("SHOW ENTITIES ") == ["FROM"]
    assert texts("SHOW ENTITIES FROM audit ") == ["SAMPLE", "AS CREATE"]
    assert texts("SHOW ENTITIES FROM audit SAMPLE 50 ") == ["AS CREATE"]
    assert texts("SHOW ENTITIES FROM audit AS ") == ["CREATE"]
    assert texts("SHOW ENTITIES FROM s") == ["sensors"]
    assert texts("SHOW HOT KEYS FROM s") == ["sensors"]
    assert texts("EXPLAIN ") == [
        "SELECT",
        "CREATE",
        "ALTER",
        "DROP",
        "COPY",
        "INSERT INTO",
        "UPSERT INTO",
        "REPLACE INTO",
        "UPDATE",
        "DELETE FROM",
        "IMPORT MODEL",
        "ANALYZE",
    ]
    assert texts("SET cons") == ["consistent"]
    assert texts("SET format = j") == ["json", "jsonl"]
    assert texts("SET consistent TO ") == ["on", "off"]


def test_table_and_file_statements():
    assert texts("CREATE ") == ["TABLE", "INDEX", "ENTITY"]
    assert texts("DROP TABLE a") == ["audit"]
    assert texts("ALTER TABLE ") == ["audit", "sensors", "drive", '"my-table"']
    assert texts("ALTER TABLE audit ") == ["SET"]
    assert texts("ALTER TABLE audit SET ") == ["BILLING", "TTL", "DELETION PROTECTION"]
    assert texts("CREATE INDEX by_x ") == ["ON"]
    assert texts("CREATE INDEX by_x ON s") == ["sensors"]
    assert texts("DROP INDEX by_x ON d") == ["drive"]
    assert texts("SHOW CREATE TABLE s") == ["sensors"]
    assert texts("COPY s") == ["sensors"]
    assert texts("COPY sensors ") == ["TO", "FROM"]
    assert texts("COPY sensors TO 'x.csv' ") == ["FORMAT"]
    assert texts("COPY sensors TO 'x' FORMAT ") == ["jsonl", "csv", "json", "dynamodb", "parquet"]
    after_from = ["FORMAT", "START AT LINE", "START AT ELEMENT", "SKIP BAD"]
    assert texts("COPY sensors FROM 'x.json' ") == after_from
    assert texts("COPY sensors FROM 'x' FORMAT json ") == after_from[1:]
    assert texts("COPY sensors FROM 'x' START AT ") == ["LINE", "ELEMENT"]
    assert texts("COPY sensors FROM 'x' START AT LINE 5 ") == ["FORMAT", "SKIP BAD"]
    assert texts("COPY sensors FROM 'x' SKIP BAD ") == [
        "FORMAT",
        "START AT LINE",
        "START AT ELEMENT",
    ]
    assert texts("COPY (SELECT * FROM se") == ["sensors"]  # the SELECT inside completes as one
    assert texts("EXPORT MODEL ") == ["audit", "sensors", "drive", '"my-table"', "TO"]
    assert texts("EXPORT MODEL sensors, a") == ["audit"]
    assert texts("EXPORT MODEL sensors ") == ["TO"]
    assert texts("EXPORT MODEL TO 'm.json' ") == ["SAMPLE"]
    assert texts("IMPORT MODEL ") == []
    assert texts("CREATE TABLE t (a S, PRIMARY KEY (a)) WITH GSI g (a) PROJECTION ") == [
        "ALL",
        "KEYS_ONLY",
        "INCLUDE",
    ]


# --- tables and indexes ---------------------------------------------------------------------


def test_tables_after_from_and_describe():
    assert texts("SELECT * FROM ") == ["audit", "sensors", "drive", '"my-table"']
    assert texts("SELECT * FROM se") == ["sensors"]
    assert texts("DESCRIBE a") == ["audit"]
    assert texts("DESCRIBE TABLE d") == ["drive"]
    assert kinds("SELECT * FROM ") == {"table"}


def test_table_dot_offers_its_indexes():
    assert texts("SELECT * FROM sensors.") == ["by_region"]
    assert texts("SELECT * FROM drive.by") == ["by_modified"]
    assert texts("SELECT * FROM audit.") == []  # no indexes
    found = suggest("SELECT * FROM sensors.", "", META)
    assert found[0].meta == "GSI index" and found[0].start == 0
    assert suggest("SELECT * FROM drive.by", "", META)[0].start == -2


def test_unknown_table_offers_no_indexes():
    assert texts("SELECT * FROM nosuch.") == []


# --- attributes -----------------------------------------------------------------------------


def test_attributes_after_select_come_from_the_from_clause_after_the_cursor():
    found = texts("SELECT ", " FROM sensors")
    # key attributes first (table, then index keys and INCLUDE'd), then sampled names
    assert found[:4] == ["deviceId", "readingTs", "region", "temperature"]
    assert {"battery", "humidity", "status"} <= set(found)
    assert "action" not in found  # another table's attribute
    assert "DISTINCT" in found and "COUNT" in found


def test_attributes_after_select_comma_and_in_aggregates():
    assert texts("SELECT deviceId, hum", " FROM sensors") == ["humidity"]
    assert texts("SELECT MAX(bat", ") FROM sensors") == ["battery"]


def test_attributes_after_where_and_or_not():
    assert texts("SELECT * FROM audit WHERE ac") == ["action"]
    assert texts("SELECT * FROM audit WHERE PK = 'a' AND la") == ["latencyMs"]
    assert texts("SELECT * FROM audit WHERE ok = true OR er") == ["error"]
    assert "resource" in texts("SELECT * FROM audit WHERE NOT ")
    assert "SK" in texts("SELECT * FROM audit WHERE begins_with(")


def test_attributes_after_order_by_and_group_by():
    assert texts("SELECT * FROM audit ORDER BY S") == ["SK", "SUM"]  # aggregates sort too
    assert texts("SELECT action, COUNT(*) FROM audit GROUP BY ac") == ["action"]
    assert "latencyMs" in texts("SELECT * FROM audit ORDER BY SK, ")
    assert texts("SELECT * FROM audit ORDER BY SK ") == ["ASC", "DESC", "LIMIT"]


def test_attributes_through_an_index_are_the_tables():
    assert "battery" in texts("SELECT * FROM sensors.by_region WHERE ")


def test_attribute_names_are_quoted_when_sql_needs_it():
    found = texts("SELECT ", " FROM drive")
    assert '"data-class"' in found
    assert "size" in found and "owner" in found
    assert quote_name("order") == '"order"'
    assert quote_name('say "hi"') == '"say ""hi"""'
    assert quote_name("latencyMs") == "latencyMs"


def test_a_quoted_prefix_completes_inside_the_quotes():
    found = suggest('SELECT "dat', " FROM drive", META)
    assert [s.text for s in found] == ['"data-class"']
    assert found[0].start == -4  # replaces the opening quote too


def test_without_a_table_attributes_seen_anywhere_are_offered():
    assert "latencyMs" in texts("SELECT lat")


def test_nothing_inside_strings_comments_numbers_or_nested_paths():
    assert texts("SELECT * FROM audit WHERE PK = 'ACT") == []
    assert texts("SELECT * FROM audit WHERE PK = 'x'") == []
    assert texts("SELECT * FROM audit -- a comm") == []
    assert texts("SELECT * FROM audit /* se") == []
    assert texts("SELECT * FROM audit LIMIT 1") == []
    assert texts("SELECT * FROM drive WHERE meta.") == []


def test_substring_matches_come_after_prefix_matches():
    found = texts("SELECT * FROM sensors WHERE re")
    assert found[:2] == ["readingTs", "region"]
    assert "temperature" in found  # contains "re"
    assert texts("SELECT * FROM sensors WHERE r") == ["readingTs", "region"]  # 1 letter: prefix


# --- backslash commands ---------------------------------------------------------------------


def test_backslash_commands_and_their_arguments():
    assert texts("\\") == list(commands.COMMANDS)
    assert texts("\\fo") == ["\\format"]
    assert set(texts("\\d")) >= {"\\d", "\\dt", "\\dt+"}
    assert texts("\\d s") == ["sensors"]
    assert texts("\\format c") == ["csv"]
    assert texts("\\timing ") == ["on", "off"]
    assert texts("\\q ") == []


def test_statement_table_finds_table_and_index():
    assert statement_table(tokenize("SELECT a FROM sensors.by_region WHERE x = 1")) == (
        "sensors",
        "by_region",
    )
    assert statement_table(tokenize('SELECT a FROM "my-table"')) == ("my-table", None)
    assert statement_table(tokenize("SELECT a, b")) == (None, None)


def test_key_attributes_order():
    assert key_attributes(SENSORS) == ["deviceId", "readingTs", "region", "temperature"]
    assert key_attributes(DRIVE) == ["PK", "SK", "modified"]


# --- the prompt_toolkit adapter -------------------------------------------------------------


def _complete(text: str, requested: bool = True) -> list[str]:
    completer = SqlCompleter(META, commands.help_texts(), commands.argument_kinds())
    event = CompleteEvent(completion_requested=requested)
    return [c.text for c in completer.get_completions(Document(text, len(text)), event)]


def test_adapter_yields_completions_with_meta():
    completer = SqlCompleter(META, commands.help_texts(), commands.argument_kinds())
    doc = Document("SELECT * FROM au", 16)
    (only,) = completer.get_completions(doc, CompleteEvent(completion_requested=True))
    assert (only.text, only.start_position, only.display_meta_text) == ("audit", -2, "table")


def test_while_typing_no_menu_after_a_space_but_tab_still_offers():
    assert _complete("SELECT * FROM ", requested=False) == []
    assert _complete("SELECT * FROM ", requested=True) == [
        "audit",
        "sensors",
        "drive",
        '"my-table"',
    ]
    assert _complete("SELECT * FROM a", requested=False) == ["audit"]
    assert _complete("SELECT * FROM sensors.", requested=False) == ["by_region"]


def test_paths_after_backslash_i(tmp_path, monkeypatch):
    (tmp_path / "report.sql").write_text("SELECT 1;")
    monkeypatch.chdir(tmp_path)
    assert _complete("\\i rep") == ["ort.sql"]


@pytest.mark.parametrize(
    "text",
    ["", "'", '"', "SELECT (", "SELECT * FROM audit WHERE ((", ";;", "\\", "--", "/*", "x.y.z."],
)
def test_never_fails(text):
    assert isinstance(texts(text), list)


# --- writes --------------------------------------------------------------------------------------


def test_write_keywords_at_the_start_and_after_explain():
    assert texts("INS") == ["INSERT INTO"]
    assert texts("up") == ["upsert into", "update"]  # the user's case
    # what starts with the word first, then what holds it (MODEL)
    assert texts("DEL") == ["DELETE FROM", "IMPORT MODEL", "EXPORT MODEL"]
    assert texts("ROLL") == ["ROLLBACK"]
    assert texts("EXPLAIN UPD") == ["UPDATE"]
    assert texts("BEGIN ") == [] and texts("COMMIT ") == []
    assert texts("START ") == ["TRANSACTION"] and texts("START TRANSACTION ") == []
    assert texts("UNDO ") == []  # a file name, in quotes


def test_table_names_after_into_update_and_delete_from():
    assert texts("INSERT INTO s") == ["sensors"]
    assert texts("UPSERT INTO ") == ["audit", "sensors", "drive", '"my-table"']
    assert texts("UPDATE d") == ["drive"]
    assert texts("DELETE FROM au") == ["audit"]
    assert texts("DELETE ") == ["FROM"]
    assert texts("EXPLAIN DELETE FROM a") == ["audit"]


def test_insert_columns_then_values_on_conflict_and_returning():
    assert texts("INSERT INTO audit (") == [
        "PK",
        "SK",
        "action",
        "error",
        "latencyMs",
        "ok",
        "resource",
    ]
    assert texts("INSERT INTO audit (PK, ac") == ["action"]
    assert texts("INSERT INTO audit (PK, SK) ") == ["VALUES", "SELECT"]
    assert texts("INSERT INTO audit (PK, SK) VALUES ('a', 'b') ") == [
        "ON CONFLICT DO NOTHING",
        "RETURNING",
    ]
    assert texts("UPSERT INTO audit (PK, SK) VALUES ('a', 'b') ") == ["RETURNING"]
    assert texts("INSERT INTO audit (PK, SK) VALUES ('a', 'b') ON ") == ["CONFLICT DO NOTHING"]
    assert texts("INSERT INTO audit (PK, SK) VALUES ('a', 'b') RETURNING ") == ["*", "old.*"]


def test_update_set_remove_where_returning():
    assert texts("UPDATE audit ") == ["SET", "REMOVE"]
    assert texts("UPDATE audit SET lat") == ["latencyMs"]
    assert texts("UPDATE audit SET ok = TRUE, re") == ["resource"]
    right = texts("UPDATE audit SET latencyMs = ")
    assert "latencyMs" in right and "if_not_exists" in right and "list_append" in right
    assert texts("UPDATE audit SET ok = TRUE ") == ["REMOVE", "WHERE", "RETURNING"]
    assert texts("UPDATE audit SET ok = TRUE REMOVE er") == ["error"]
    assert texts("UPDATE audit SET ok = TRUE WHERE PK = 'x' ")[-1] == "RETURNING"
    assert "begins_with" in texts("UPDATE audit SET ok = TRUE WHERE beg")
    assert texts("UPDATE audit SET ok = TRUE WHERE act") == ["action"]
    assert texts("DELETE FROM audit ") == ["WHERE", "RETURNING"]
    assert texts("DELETE FROM audit WHERE SK ")[:2] == ["AND", "OR"]


def test_a_join_completes_its_tables_keywords_and_each_alias_columns():
    after = " FROM audit a JOIN drive d ON d.PK = a.PK"
    assert texts("SELECT * FROM audit a JOIN ") == ["audit", "sensors", "drive", '"my-table"']
    assert texts("SELECT * FROM audit a JOIN drive.") == ["by_modified"]
    assert texts("SELECT * FROM audit a LEFT ") == ["OUTER JOIN", "JOIN"]
    assert texts("SELECT * FROM audit a JOIN drive d ") == ["ON"]
    assert texts("SELECT d.s", after) == ["SK", "size"]  # d's columns, not a's
    assert texts("SELECT a.", after)[:3] == ["PK", "SK", "action"]
    assert texts("SELECT * FROM audit a JOIN drive d ON d.ow") == ["owner"]
    assert texts("SELECT ", after)[:2] == ["a.", "d."]  # a join's qualifiers first
    following = texts("SELECT * FROM audit a JOIN drive d ON d.PK = a.PK ")
    assert following[:2] == ["AND", "OR"] and {"JOIN", "LEFT JOIN", "WHERE"} <= set(following)
    assert texts("SELECT x.", " FROM drive x")[:2] == ["PK", "SK"]  # one table's alias too


@pytest.mark.parametrize(
    ("before", "offered"),
    [
        ("SHOW HOT KEYS FROM sensors ", ["BY", "WITH SIZES", "SAMPLE", "LIMIT"]),
        ("SHOW HOT KEYS FROM sensors.ix ", ["BY", "WITH SIZES", "SAMPLE", "LIMIT"]),
        (
            "SHOW HOT KEYS FROM sensors BY SPLIT_PART(deviceId, '#', 1) ",
            ["WITH SIZES", "SAMPLE", "LIMIT"],
        ),
        ("SHOW HOT KEYS FROM sensors WITH ", ["SIZES"]),
        ("SHOW HOT KEYS FROM sensors WITH SIZES ", ["SAMPLE", "LIMIT"]),
        ("SHOW HOT KEYS FROM sensors SAMPLE ", []),
        ("SHOW HOT KEYS FROM sensors SAMPLE 5 ", ["PERCENT"]),
        ("SHOW HOT KEYS FROM sensors SAMPLE 5 PERCENT ", ["REPEATABLE", "LIMIT"]),
        ("SHOW HOT KEYS FROM sensors SAMPLE 5 PERCENT REPEATABLE (", []),
        ("SHOW HOT KEYS FROM sensors LIMIT 3 ", []),
    ],
)
def test_show_hot_keys_offers_its_own_clauses_not_a_selects(
    before: str, offered: list[str]
) -> None:
    assert texts(before) == offered  # not WHERE, JOIN or GROUP BY, which it refuses


def test_show_hot_keys_by_offers_the_tables_attributes() -> None:
    assert "deviceId" in texts("SHOW HOT KEYS FROM sensors BY ")


@pytest.mark.parametrize(
    ("before", "offered"),
    [
        ("EXPLAIN IMPORT ", ["MODEL"]),
        ("EXPLAIN CREATE ", ["TABLE", "INDEX", "ENTITY"]),
        ("EXPLAIN DROP TABLE ", ["audit", "sensors", "drive", '"my-table"']),
        ("DESCRIBE sensors ", []),
        ("DESCRIBE TABLE sensors ", []),
    ],
)
def test_after_explain_a_table_statement_and_after_describe_completion_goes_on(
    before: str, offered: list[str]
) -> None:
    assert texts(before) == offered  # every keyword before; nothing follows DESCRIBE's table
