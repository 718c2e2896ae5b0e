"""PartiQL for DynamoDB's syntax in dynosql (docs/partiql.md): how each form parses, what it
means when it runs (on moto, in-process), and the refusals. The differential corpus against
DynamoDB Local's own PartiQL engine is tests/test_partiql_corpus.py.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli

from dynosql import values
from dynosql.errors import SqlError
from dynosql.session import Session, Settings, make_client
from dynosql.sql import ast, parse
from dynosql.sql.bind import bind, positional


def error(sql: str) -> SqlError:
    with pytest.raises(SqlError) as info:
        parse(sql)
    return info.value


@pytest.fixture
def music(moto_backend: Backend, tmp_path: Any) -> tuple[Session, str]:
    """A Music table (Artist, SongTitle) on moto with one song, and a Session that may write."""
    name = unique_name("music")
    moto_backend.create_keyed_table(name, pk=("Artist", "S"), sk=("SongTitle", "S"))
    moto_backend.put_items(name, [{"Artist": "Acme Band", "SongTitle": "PartiQL Rocks"}])
    client = make_client(endpoint_url=moto_backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "journal")))
    session.assume_yes = True
    return session, name


def item(session: Session, table: str, artist: str, title: str) -> dict[str, Any] | None:
    got = session.client.get_item(
        TableName=table,
        Key=values.encode_item({"Artist": artist, "SongTitle": title}),
        ConsistentRead=True,
    )
    return values.decode_item(got["Item"]) if "Item" in got else None


# --- ? positional parameters -------------------------------------------------------------------


def test_question_marks_are_numbered_in_the_order_written() -> None:
    s = parse("SELECT * FROM t WHERE a = ? AND b IN (?, '?', ?) AND c = :x\nAND d = ? LIMIT ?")
    where = s.where
    assert isinstance(where, ast.And)
    assert where.items[0].right == ast.Param("1")
    assert [v for v in where.items[1].values] == [
        ast.Param("2"),
        ast.Literal("?"),  # a ? inside a string is a string
        ast.Param("3"),
    ]
    assert where.items[2].right == ast.Param("x")
    assert where.items[3].right == ast.Param("4")
    assert where.items[3].right.pos == ast.Pos(2, 9)
    assert s.limit == ast.Param("5")


def test_question_marks_bind_by_position_and_name_the_missing_one() -> None:
    s = parse("SELECT * FROM t WHERE a = ? AND b = ?")
    bound = bind(s, positional(["x", Decimal(2)]))
    assert (bound.where.items[0].right.value, bound.where.items[1].right.value) == ("x", 2)
    with pytest.raises(SqlError) as info:
        bind(s, positional(["x"]))
    assert str(info.value) == "line 1, column 37: no value for the 2nd ? (give one with -v 2=value)"


def test_question_marks_in_writes_and_collections() -> None:
    s = parse("UPDATE t SET a = ?, b = [?, {'k': ?}] WHERE k = ?")
    assert isinstance(s, ast.Update)
    assert s.assignments[0].value == ast.Param("1")
    bound = bind(s, positional(["A", Decimal(1), "v", "key"]))
    assert bound.assignments[1].value.value == [Decimal(1), {"k": "v"}]
    assert bound.where.right.value == "key"


def test_question_marks_from_the_command_line(music: tuple[Session, str], tmp_path: Any) -> None:
    session, name = music
    url = session.client.meta.endpoint_url
    run = run_cli(
        "--endpoint-url",
        url,
        "--format",
        "json",
        "-v",
        "1=Acme Band",
        "-v",
        "2=PartiQL Rocks",
        "-e",
        f'SELECT SongTitle FROM "{name}" WHERE Artist = ? AND SongTitle = ?',
        env=cli_env(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"SongTitle": "PartiQL Rocks"}]
    sql = f'SELECT * FROM "{name}" WHERE Artist = ?'
    run = run_cli("--endpoint-url", url, "-e", sql, env=cli_env(tmp_path))
    assert run.returncode == 1
    assert run.one_error() == (
        f"error: line 1, column {len(sql)}: no value for the 1st ? (give one with -v 1=value)"
    )


# --- repeated SET and REMOVE clauses ---------------------------------------------------------------


def test_repeated_set_clauses_all_apply(music: tuple[Session, str]) -> None:
    """A PartiQL UPDATE repeats SET: each clause applies (it once wrote only the last one)."""
    session, name = music
    session.execute(
        f"""UPDATE "{name}" SET AwardsWon = 1 SET AwardDetail = {{'Grammys': [2020, 2018]}}
        WHERE Artist = 'Acme Band' AND SongTitle = 'PartiQL Rocks'"""
    ).all()
    assert item(session, name, "Acme Band", "PartiQL Rocks") == {
        "Artist": "Acme Band",
        "SongTitle": "PartiQL Rocks",
        "AwardsWon": Decimal(1),
        "AwardDetail": {"Grammys": [Decimal(2020), Decimal(2018)]},
    }


def test_set_and_remove_clauses_repeat_and_interleave() -> None:
    s = parse("UPDATE t SET a = 1 REMOVE b SET c = 2, d = 3\nREMOVE e.f[0] REMOVE g WHERE k = 1")
    assert isinstance(s, ast.Update)
    changes = [(a.action, a.path.text) for a in s.assignments]
    assert sorted(changes) == sorted(
        [
            ("set", "a"),
            ("set", "c"),
            ("set", "d"),
            ("remove", "b"),
            ("remove", "e.f[0]"),
            ("remove", "g"),
        ]
    )
    assert next(a for a in s.assignments if a.path.text == "e.f[0]").pos == ast.Pos(2, 8)
    only_removes = parse("UPDATE t REMOVE a REMOVE b WHERE k = 1")
    assert [(a.action, a.path.text) for a in only_removes.assignments] == [
        ("remove", "a"),
        ("remove", "b"),
    ]


def test_a_path_changed_in_two_clauses_is_refused() -> None:
    assert str(error("UPDATE t SET n = 5 SET n = 6 WHERE k = 1")) == (
        "line 1, column 24: n is changed twice (DynamoDB allows one change per path)"
    )
    assert "changed twice" in error("UPDATE t SET m.a = 5 REMOVE m WHERE k = 1").message


def test_repeated_clauses_apply_together_or_not_at_all(music: tuple[Session, str]) -> None:
    """Every clause of one UPDATE goes into one UpdateItem: a refused change leaves the others
    unwritten too."""
    session, name = music
    where = "WHERE Artist = 'Acme Band' AND SongTitle = 'PartiQL Rocks'"
    session.execute(f"UPDATE \"{name}\" SET n = 1 SET tags = <<'a'>> {where}").all()
    with pytest.raises(Exception) as info:
        session.execute(f'UPDATE "{name}" SET x = 1 SET n = set_add(n, <<2>>) {where}').all()
    assert "wrong type" in str(info.value)
    after = item(session, name, "Acme Band", "PartiQL Rocks")
    assert after is not None and "x" not in after and after["n"] == 1
    session.execute(
        f"UPDATE \"{name}\" SET x = 1 REMOVE n SET tags = set_add(tags, <<'b'>>) {where}"
    ).all()
    assert item(session, name, "Acme Band", "PartiQL Rocks") == {
        "Artist": "Acme Band",
        "SongTitle": "PartiQL Rocks",
        "x": Decimal(1),
        "tags": values.StringSet({"a", "b"}),
    }


# --- <<sets>>, [lists] and {maps} ------------------------------------------------------------------


def test_bags_are_sets() -> None:
    s = parse("UPDATE t SET a = <<'x', 'y'>>, b = [4, <<1, 2.5>>], c = {'k': <<'z'>>} WHERE k = 1")
    assert [a.value.value for a in s.assignments] == [
        values.StringSet({"x", "y"}),
        [Decimal(4), values.NumberSet({Decimal(1), Decimal("2.5")})],
        {"k": values.StringSet({"z"})},
    ]
    assert s.source.startswith("UPDATE t SET a = <<'x', 'y'>>")  # the journal keeps it as written
    where = parse("SELECT * FROM t WHERE tags = <<'a', 'b'>> AND s = '<<not a set>>'").where
    assert where.items[0].right.value == values.StringSet({"a", "b"})
    assert where.items[1].right.value == "<<not a set>>"


@pytest.mark.parametrize(
    "sql, at, message",
    [
        (
            "UPDATE t SET a = <<>> WHERE k = 1",
            18,
            "DynamoDB has no empty sets: <<>> holds nothing (a set needs a value; {} is the "
            "empty map)",
        ),
        ("UPDATE t SET a = <<1, 1.0>> WHERE k = 1", 20, "a set holds each value once"),
        ("UPDATE t SET a = <<1, 'x'>> WHERE k = 1", 20, "a set holds strings, numbers or binary"),
        ("SELECT * FROM t WHERE m = {'a': 1, 'a': 2}", 41, "the map names a twice"),
    ],
)
def test_bad_collections_are_refused(sql: str, at: int, message: str) -> None:
    err = error(sql)
    assert err.message.startswith(message), err.message
    assert (err.line, err.col) == (1, at)


def test_an_empty_map_is_a_map() -> None:
    s = parse("UPDATE t SET a = {}, b = [] WHERE k = 1")
    assert [a.value.value for a in s.assignments] == [{}, []]


def test_conditions_compare_lists_maps_and_sets() -> None:
    where = parse(
        "SELECT * FROM t WHERE l = [1, 'a'] AND m <> {'a': [1]} AND s = <<1, 2>> AND x IN [1, 2]"
    ).where
    assert [c.right.value for c in where.items[:3]] == [
        [Decimal(1), "a"],
        {"a": [Decimal(1)]},
        values.NumberSet({Decimal(1), Decimal(2)}),
    ]
    assert [v.value for v in where.items[3].values] == [1, 2]
    with_param = parse("SELECT * FROM t WHERE l = [?, 1]").where
    assert isinstance(with_param.right, ast.Collection)
    assert bind(parse("SELECT * FROM t WHERE l = [?, 1]"), positional(["a"])).where.right.value == [
        "a",
        Decimal(1),
    ]


# --- INSERT … VALUE {…} ----------------------------------------------------------------------------


def test_insert_value_is_one_item() -> None:
    s = parse(
        "INSERT INTO \"Music\" value {'Artist' : 'Acme Band', 'SongTitle' : ?,\n"
        "'tags': <<'a'>>, 'm': {'k': [1]}}"
    )
    assert isinstance(s, ast.Insert)
    assert (s.table, s.verb, s.replace) == ("Music", "INSERT", False)
    assert s.columns == ("Artist", "SongTitle", "tags", "m")
    assert s.rows[0][0] == ast.Literal("Acme Band")
    assert s.rows[0][1] == ast.Param("1")
    assert s.rows[0][2].value == values.StringSet({"a"})
    assert s.table_pos == ast.Pos(1, 13)
    upsert = parse("UPSERT INTO t VALUE {'k': 1}")
    assert (upsert.verb, upsert.replace, upsert.columns) == ("UPSERT", True, ("k",))


@pytest.mark.parametrize(
    "sql, at, message",
    [
        (
            "INSERT INTO t VALUE {'k': 1}, {'k': 2}",
            29,
            "INSERT … VALUE takes one item {…} (several: one INSERT each, or VALUES (…), (…) "
            "with a column list), not , after it",
        ),
        ("INSERT INTO t VALUE {'k': 1, 'k': 2}", 35, "the item names k twice"),
        ("INSERT INTO t VALUE {'a', 'b'}", 21, "VALUE takes one item: a map {'k': v, …}"),
        ("INSERT INTO t VALUE {}", 13, "the item holds no attributes: t needs its key"),
    ],
)
def test_insert_value_refusals(sql: str, at: int, message: str) -> None:
    err = error(sql)
    assert (err.message, err.col) == (message, at)


# --- RETURNING ALL|MODIFIED OLD|NEW * ------------------------------------------------------------


@pytest.mark.parametrize(
    "clause, old, modified",
    [
        ("ALL OLD *", True, False),
        ("all new *", False, False),
        ("MODIFIED OLD *", True, True),
        ("MODIFIED NEW*", False, True),
    ],
)
def test_partiql_returning(clause: str, old: bool, modified: bool) -> None:
    s = parse(f"UPDATE t SET a = 1 WHERE k = 1 RETURNING {clause}")
    assert s.returning == ast.Returning(old=old, modified=modified)


def test_partiql_returning_refusals() -> None:
    assert str(error("DELETE FROM t WHERE k = 1 RETURNING ALL NEW *")) == (
        "line 1, column 27: DELETE … RETURNING takes ALL OLD * (the item deleted), not ALL NEW *"
    )
    assert error("DELETE FROM t WHERE k = 1 RETURNING MODIFIED OLD *").col == 27
    assert "UPDATE's" in error("INSERT INTO t VALUE {'k': 1} RETURNING MODIFIED NEW *").message
    assert parse("DELETE FROM t WHERE k = 1 RETURNING ALL OLD *").returning == ast.Returning(
        old=True
    )


# --- set_add and set_delete ------------------------------------------------------------------------


def test_set_add_and_set_delete_are_add_and_delete() -> None:
    s = parse(
        "UPDATE t SET a = set_add(a, <<1>>) SET b = SET_DELETE(b, <<'x'>>) SET c = set_add(c, ?) "
        "WHERE k = 1"
    )
    assert [(a.action, a.path.text) for a in s.assignments] == [
        ("add", "a"),
        ("delete", "b"),
        ("add", "c"),
    ]
    assert s.assignments[2].value == ast.Param("1")


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "UPDATE t SET a = set_add(b, <<1>>) WHERE k = 1",
            "set_add() changes the set it is assigned to: a = set_add(a, <<…>>)",
        ),
        (
            "UPDATE t SET a = set_add(a, 1) WHERE k = 1",
            "set_add() takes a set second: set_add(a, <<…>>)",
        ),
        (
            "UPDATE t SET a = set_delete(a) WHERE k = 1",
            "set_delete() takes 2 arguments: set_delete(path, <<…>>)",
        ),
        (
            "UPDATE t SET a = list_append(a, set_add(a, <<1>>)) WHERE k = 1",
            "set_add() is a whole change: path = set_add(path, <<…>>)",
        ),
    ],
)
def test_set_add_refusals(sql: str, message: str) -> None:
    assert error(sql).message == message


# --- running them ----------------------------------------------------------------------------------


def rows(session: Session, sql: str, *params: Any) -> list[dict[str, Any]]:
    return list(session.execute(sql, positional(params)))


def test_the_reference_examples_run_with_dynamodb_s_meaning(music: tuple[Session, str]) -> None:
    """AWS's PartiQL reference examples on the Music table, with the rows RETURNING gives
    (as DynamoDB Local's ExecuteStatement answers them: tests/test_partiql_corpus.py)."""
    session, name = music
    key = "WHERE Artist = ? AND SongTitle = ?"
    song = ("Acme Band", "PartiQL Rocks")
    assert rows(
        session,
        f"UPDATE \"{name}\" SET AwardsWon=1 SET AwardDetail={{'Grammys':[2020, 2018]}} {key} "
        "RETURNING ALL OLD *",
        *song,
    ) == [{"Artist": "Acme Band", "SongTitle": "PartiQL Rocks"}]
    # MODIFIED: each attribute a change touched, whole
    assert rows(
        session,
        f'UPDATE "{name}" SET AwardDetail.Grammys[1] = 5 SET q = 3 {key} RETURNING MODIFIED OLD *',
        *song,
    ) == [{"AwardDetail": {"Grammys": [Decimal(2020), Decimal(2018)]}}]
    assert rows(
        session,
        f'UPDATE "{name}" SET AwardDetail.Grammys =list_append(AwardDetail.Grammys,[2016]) '
        f"REMOVE q REMOVE nothing {key} RETURNING MODIFIED NEW *",
        *song,
    ) == [{"AwardDetail": {"Grammys": [Decimal(2020), Decimal(5), Decimal(2016)]}}]
    assert (
        rows(session, f'UPDATE "{name}" REMOVE nothing {key} RETURNING MODIFIED OLD *', *song) == []
    )
    session.execute(
        f"UPDATE \"{name}\" SET BandMembers =<<'member1', 'member2'>> {key}", positional(song)
    ).all()
    assert rows(
        session,
        f"UPDATE \"{name}\" SET BandMembers =set_add(BandMembers, <<'newmember'>>) {key} "
        "RETURNING MODIFIED NEW *",
        *song,
    ) == [{"BandMembers": values.StringSet({"member1", "member2", "newmember"})}]
    session.execute(
        f"INSERT INTO \"{name}\" value {{'Artist' : 'Acme Band','SongTitle' : ?}}",
        positional(["Best Song"]),
    ).all()
    assert item(session, name, "Acme Band", "Best Song") == {
        "Artist": "Acme Band",
        "SongTitle": "Best Song",
    }
    deleted = rows(session, f'DELETE FROM "{name}" {key} RETURNING ALL OLD *', *song)
    assert [(r["SongTitle"], r["AwardsWon"]) for r in deleted] == [("PartiQL Rocks", 1)]
    assert item(session, name, *song) is None


# --- EXISTS(SELECT …): a transaction's condition check ---------------------------------------------


def test_exists_parses_as_a_condition_check() -> None:
    s = parse(
        "EXISTS(\n  SELECT * FROM \"Music\" WHERE Artist = ? AND SongTitle = 'x' AND n IS MISSING)"
    )
    assert isinstance(s, ast.ConditionCheck)
    assert s.table == "Music" and s.select.table_pos == ast.Pos(2, 17)
    assert str(error("EXISTS(UPDATE t SET a = 1)")) == (
        "line 1, column 8: EXISTS takes a SELECT: EXISTS(SELECT * FROM t WHERE …)"
    )
    assert error("EXISTS(SELECT * FROM t WHERE k = 1").message.startswith("EXISTS takes one SELECT")


def test_exists_guards_a_transaction(music: tuple[Session, str]) -> None:
    session, name = music
    song = "Artist = 'Acme Band' AND SongTitle = 'PartiQL Rocks'"

    def commit(check: str, title: str) -> None:
        session.execute("BEGIN").all()
        session.execute(f'EXISTS(SELECT * FROM "{name}" WHERE {check})').all()
        session.execute(
            f"INSERT INTO \"{name}\" VALUE {{'Artist': 'Acme Band', 'SongTitle': '{title}'}}"
        ).all()
        session.execute("COMMIT").all()

    commit(f"{song} AND Awards IS MISSING", "Second")
    assert item(session, name, "Acme Band", "Second") is not None
    for check in (f"{song} AND Awards IS NOT MISSING", "Artist = 'Acme Band' AND SongTitle = 'no'"):
        with pytest.raises(Exception) as info:
            commit(check, "Third")
        assert "transaction cancelled, nothing was written: action 1 (EXISTS" in str(info.value)
        assert "no such item, or it does not match the WHERE" in str(info.value)
        assert item(session, name, "Acme Band", "Third") is None


@pytest.mark.parametrize(
    "where, message",
    [
        (
            "Artist = 'Acme Band'",
            "EXISTS(SELECT …) checks one item: its WHERE gives the full primary key by equality "
            "(Artist = … AND SongTitle = …), then any other conditions",
        ),
        (
            "Artist = 'Acme Band' AND SongTitle = 'x' AND n LIKE '%1'",
            "EXISTS(SELECT …): DynamoDB cannot check n LIKE '%1' in a condition",
        ),
    ],
)
def test_exists_checks_one_item_by_its_key(
    music: tuple[Session, str], where: str, message: str
) -> None:
    session, name = music
    session.execute("BEGIN").all()
    with pytest.raises(Exception) as info:
        session.execute(f'EXISTS(SELECT * FROM "{name}" WHERE {where})').all()
    assert str(info.value).endswith(message)
    session.execute("ROLLBACK").all()


def test_exists_outside_a_transaction_is_refused(music: tuple[Session, str]) -> None:
    session, name = music
    with pytest.raises(Exception) as info:
        session.execute(f"EXISTS(SELECT * FROM \"{name}\" WHERE Artist = 'a' AND SongTitle = 'b')")
    assert str(info.value).startswith("EXISTS(SELECT …) is a transaction's condition check")


def test_question_marks_from_the_repl(music: tuple[Session, str]) -> None:
    from repl_driver import drive

    session, name = music
    keys = (
        "\\set 1 Acme Band\r\\set ?2 PartiQL Rocks\r"
        f'SELECT SongTitle FROM "{name}" WHERE Artist = ? AND SongTitle = ?;\r\\set\r'
    )
    screen, _ = drive(session, keys)
    assert "?1 = " in screen and "?2 = " in screen  # \set names them by place
    assert "| PartiQL Rocks |" in screen  # the row, found by both
    assert "1 row · GetItem" in screen


# --- EXPLAIN (FORMAT PARTIQL): the translation (pure; run on DynamoDB Local in the corpus) ----------


def _tables() -> dict[str, Any]:
    from pathlib import Path

    from dynosql.plan.schema import table_info

    raw = json.loads((Path(__file__).parent.parent / "grammar" / "tables.json").read_text())
    return {name: table_info(description) for name, description in raw.items()}


def _partiql(sql: str, segments: int | None = None, **params: Any) -> list[str]:
    from dynosql.plan import partiql as translate
    from dynosql.plan.planner import Options, plan_select
    from dynosql.plan.write import WriteOptions, plan_write

    tables = _tables()
    statement = bind(parse(sql), params)
    if isinstance(statement, ast.Select):
        options = Options(segments=segments)
        found = translate.for_select(plan_select(statement, tables[statement.table], options))
    else:
        plan = plan_write(statement, tables[statement.table], WriteOptions(Options(), False))
        found = translate.for_write(plan)
    return found.lines()[1:]


def test_partiql_of_reads_one_statement_a_request() -> None:
    assert _partiql("SELECT * FROM users WHERE id IN ('a', 'b')") == [
        "  1. SELECT * FROM \"users\" WHERE \"id\" IN ['a', 'b']"
    ]
    assert _partiql("SELECT total FROM orders WHERE customer = 'c1' ORDER BY created DESC") == [
        '  1. SELECT "total" FROM "orders" WHERE "customer" = \'c1\' ORDER BY "created" DESC'
    ]
    lines = _partiql("SELECT * FROM big WHERE n > 3", segments=4)
    assert lines[0] == '  1. SELECT * FROM "big" WHERE "n" > 3'
    assert lines[1].startswith("note: PartiQL cannot split a Scan: dynosql reads it in 4 parallel")


def test_partiql_of_a_fetch_through_an_index() -> None:
    lines = _partiql("SELECT * FROM orders WHERE sku = 'X' AND note = 'n'")
    assert lines[:2] == [
        '  1. SELECT * FROM "orders"."by_sku" WHERE "sku" = \'X\'',
        "  2. for each item statement 1 returns, its key as the last parameters: SELECT * FROM "
        '"orders" WHERE "customer" = ? AND "created" = ? AND ("note" = \'n\')',
    ]


def test_partiql_of_writes_by_key_with_binary_values_as_parameters() -> None:
    lines = _partiql("UPDATE users SET b = :b, l = [1, :b] WHERE id IN ('a', 'b')", b=b"\x01")
    assert lines == [
        '  1. UPDATE "users" SET "b" = ? SET "l" = ? WHERE "id" = \'a\'',
        '     parameters: [{"B": "AQ=="}, {"L": [{"N": "1"}, {"B": "AQ=="}]}]',
        '  2. UPDATE "users" SET "b" = ? SET "l" = ? WHERE "id" = \'b\'',
        '     parameters: [{"B": "AQ=="}, {"L": [{"N": "1"}, {"B": "AQ=="}]}]',
    ]
    assert _partiql("UPSERT INTO users (id) VALUES ('a')") == [
        "  (no statement)",
        "note: PartiQL has no UPSERT: its INSERT never overwrites an item (dynosql puts each item "
        "with PutItem)",
    ]
