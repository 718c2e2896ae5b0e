"""Writes (issue 12) on moto, dynalite and DynamoDB Local: the table after each statement equals an oracle that
applies the statement to the items in Python (written here, independently of dynosql's own
evaluate.update); RETURNING rows exact; undo puts the table back exactly; a second writer
between the read and the write is skipped and counted; the guards refuse before any request.

Transactions are not here: dynalite has no TransactWriteItems (see test_transactions.py, moto
only).
"""

from __future__ import annotations

import copy
import json
import os
import stat
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli
from journal_lines import answers
from repl_driver import drive

from dynosql import values
from dynosql.errors import DynosqlError, GuardError
from dynosql.session import Session, Settings, make_client
from dynosql.settings import SettingError
from dynosql.values import StringSet

Item = dict[str, Any]


def _items() -> list[Item]:
    items = []
    for p in "abcd":
        for k in range(1, 7):
            item: Item = {"pk": p, "sk": Decimal(k), "n": Decimal(k * 10)}
            if k % 2:
                item["tags"] = StringSet({f"t{k}", "odd"})
            if k % 3 == 0:
                item["g"] = f"g{p}"  # the GSI's key: a sparse index
            if p in "ab":
                item["m"] = {"x": Decimal(k), "name": f"{p}{k}"}
                item["l"] = [Decimal(k)]
                item["note"] = f"note {p}{k}"
            items.append(item)
    return items


def _create(backend: Backend) -> str:
    name = unique_name("w")
    backend.create_keyed_table(name, gsis={"by_g": ("g", "S")})
    backend.put_items(name, _items())
    return name


def _session(backend: Backend, tmp_path: Path, client: Any = None, **settings: Any) -> Session:
    client = client or make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    settings.setdefault("journal_dir", str(tmp_path / "journal"))
    session = Session(client, settings=Settings(**settings))
    session.assume_yes = True
    return session


def _table(backend: Backend, name: str) -> dict[tuple, Item]:
    client = backend.client()
    out: dict[tuple, Item] = {}
    kwargs: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        for raw in page["Items"]:
            item = values.decode_item(raw)
            out[(item["pk"], item["sk"])] = item
        if not page.get("LastEvaluatedKey"):
            return out
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _keyed(items: list[Item]) -> dict[tuple, Item]:
    return {(i["pk"], i["sk"]): i for i in items}


# --- the oracle: each statement applied to the items in plain Python -----------------------------

Change = Callable[[Item], Item | None]  # the item after the statement (None: deleted)


def _set(**changes: Any) -> Change:
    def change(item: Item) -> Item:
        new = copy.deepcopy(item)
        for name, value in changes.items():
            new[name] = value(item) if callable(value) else value
        return new

    return change


CASES: list[tuple[str, Callable[[Item], bool], Change]] = [
    (
        "UPDATE {t} SET n = n + 1 WHERE pk = 'a'",
        lambda i: i["pk"] == "a",
        _set(n=lambda i: i["n"] + 1),
    ),
    (
        "UPDATE {t} SET tags = tags + {{'new'}}, REMOVE note WHERE n > 35",
        lambda i: i["n"] > 35,
        lambda i: {
            **{k: v for k, v in i.items() if k != "note"},
            "tags": StringSet(i.get("tags", set()) | {"new"}),
        },
    ),
    (
        "UPDATE {t} SET tags = tags - {{'odd'}} WHERE pk IN ('b', 'c') AND sk BETWEEN 1 AND 3",
        lambda i: i["pk"] in ("b", "c") and 1 <= i["sk"] <= 3,
        lambda i: {**i, "tags": StringSet(i["tags"] - {"odd"})} if "tags" in i else dict(i),
    ),
    (
        "UPDATE {t} SET m.x = -1, l = list_append(l, [9]), c = if_not_exists(c, 0), "
        "\"note\" = 'changed' WHERE pk = 'a' AND sk = 2",
        lambda i: i["pk"] == "a" and i["sk"] == 2,
        lambda i: {
            **i,
            "m": {**i["m"], "x": Decimal(-1)},
            "l": i["l"] + [Decimal(9)],
            "c": Decimal(0),
            "note": "changed",
        },
    ),
    (
        "UPDATE {t} SET flag = TRUE, nothing = NULL WHERE g = 'gc'",
        lambda i: i.get("g") == "gc",
        _set(flag=True, nothing=None),
    ),
    (
        "UPDATE {t} REMOVE tags WHERE note LIKE '%a3%'",
        lambda i: "a3" in i.get("note", ""),
        lambda i: {k: v for k, v in i.items() if k != "tags"},
    ),
    (
        "DELETE FROM {t} WHERE pk = 'd' AND n >= 30",
        lambda i: i["pk"] == "d" and i["n"] >= 30,
        lambda i: None,
    ),
    (
        "DELETE FROM {t} WHERE begins_with(note, 'note b')",
        lambda i: i.get("note", "").startswith("note b"),
        lambda i: None,
    ),
    (
        "DELETE FROM {t} WHERE pk = 'a' AND sk IN (1, 2, 99)",
        lambda i: i["pk"] == "a" and i["sk"] in (1, 2),
        lambda i: None,
    ),
    ("DELETE FROM {t} WHERE pk = 'zz'", lambda i: False, lambda i: None),
]


@pytest.mark.parametrize("sql, where, change", CASES, ids=[c[0][:50] for c in CASES])
def test_update_and_delete_match_the_oracle_and_undo_restores(
    backend: Backend, tmp_path: Path, sql: str, where: Callable, change: Change
) -> None:
    name = _create(backend)
    before = _table(backend, name)
    expected = {}
    for key, item in before.items():
        after = change(item) if where(item) else item
        if after is not None:
            expected[key] = after
    session = _session(backend, tmp_path)
    statement = sql.format(t=name) + " RETURNING *"
    result = session.execute(statement)
    rows = result.all()
    assert _table(backend, name) == expected
    matched = [k for k, i in before.items() if where(i)]
    stats = result.stats
    assert (stats.matched, stats.changed, stats.skipped) == (len(matched), len(matched), 0)
    # RETURNING *: the item after the write (for DELETE: the item deleted)
    returned = _keyed(rows)
    if sql.startswith("DELETE"):
        assert returned == {k: before[k] for k in matched}
    else:
        assert returned == {k: expected[k] for k in matched}
    if matched:
        journal = Path(stats.journal)
        assert stat.S_IMODE(journal.stat().st_mode) == 0o600
        lines = [json.loads(x) for x in journal.read_text().splitlines()[1:]]
        # write-ahead: an intent line before each write, the images after it
        assert len(answers(journal)) == len(matched)
        intents = [e for e in lines if e.get("intent")]
        assert len(intents) == len(answers(journal)) + len([e for e in lines if "unchanged" in e])
        # a read of whole items: each intent holds the item as read and as the write leaves it
        # (undo's images should the answer be lost); not the DELETE by keys (nothing read), nor
        # the read through the KEYS_ONLY GSI by_g (whole items would cost a fetch)
        imaged = [e for e in intents if "old" in e]
        keys_only = "sk IN (1, 2, 99)" in sql or "g = 'gc'" in sql
        assert len(imaged) == (0 if keys_only else len(matched))
        for e in imaged:
            key = tuple(values.decode_item(e["key"]).values())
            assert values.decode_item(e["old"]) == before[key]
            assert (e["new"] and values.decode_item(e["new"])) == expected.get(key)
        undone = session.undo(str(journal))
        really = [
            k for k in matched if expected.get(k) != before[k]
        ]  # DELETE of a missing set element: no change
        assert undone.all() == [] and undone.stats.changed == len(really)
        assert _table(backend, name) == before


def test_insert_upsert_replace(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    session = _session(backend, tmp_path)
    rows = session.execute(
        f"INSERT INTO {name} (pk, sk, s, m, big) VALUES ('e', 1, 'x', {{'k': [1, 'two']}}, "
        "12345678901234567890123456789012345678), ('e', 2, :v, NULL, -0.5) RETURNING *",
        {"v": "from a parameter"},
    ).all()
    new = {
        ("e", 1): {
            "pk": "e",
            "sk": Decimal(1),
            "s": "x",
            "m": {"k": [Decimal(1), "two"]},
            "big": Decimal("12345678901234567890123456789012345678"),
        },
        ("e", 2): {
            "pk": "e",
            "sk": Decimal(2),
            "s": "from a parameter",
            "m": None,
            "big": Decimal("-0.5"),
        },
    }
    assert _keyed(rows) == new
    assert _table(backend, name) == {**before, **new}

    # an existing key is never overwritten: counted, reported, exit-1 error; the others go in
    with pytest.raises(DynosqlError, match=r"^1 row already exists .*1 written, 1 skipped"):
        session.execute(f"INSERT INTO {name} (pk, sk, s) VALUES ('e', 1, 'CLOBBER'), ('e', 3, 'y')")
    assert _table(backend, name)[("e", 1)]["s"] == "x"
    assert _table(backend, name)[("e", 3)]["s"] == "y"
    quiet = session.execute(
        f"INSERT INTO {name} (pk, sk, s) VALUES ('e', 1, 'CLOBBER') ON CONFLICT DO NOTHING"
    )
    quiet.all()
    assert quiet.stats.skipped == 1 and _table(backend, name)[("e", 1)]["s"] == "x"

    # UPSERT / REPLACE overwrite whole items; RETURNING old.* gives what was there
    old = session.execute(
        f"UPSERT INTO {name} (pk, sk, z) VALUES ('a', 1, 1), ('e', 9, 2) RETURNING old.*"
    ).all()
    assert old == [before[("a", Decimal(1))]]
    table = _table(backend, name)
    assert table[("a", Decimal(1))] == {"pk": "a", "sk": Decimal(1), "z": Decimal(1)}
    session.execute(f"REPLACE INTO {name} (pk, sk, z) VALUES ('a', 1, 3)").all()
    assert _table(backend, name)[("a", Decimal(1))]["z"] == 3


def test_returning_rows_come_in_the_statements_order(moto_backend: Backend, tmp_path: Path) -> None:
    """RETURNING gives its rows in the statement's order (VALUES', or the read's: a Query's
    sort key order), not as the concurrent writes happen to finish (60 writes finished out of
    order in every run before)."""
    name = unique_name("returning")
    moto_backend.create_keyed_table(name)
    session = _session(moto_backend, tmp_path)
    written = list(range(59, -1, -1))
    values_ = ", ".join(f"('p', {i})" for i in written)
    rows = session.execute(f"INSERT INTO {name} (pk, sk) VALUES {values_} RETURNING sk").all()
    assert [int(r["sk"]) for r in rows] == written
    rows = session.execute(f"UPDATE {name} SET v = 1 WHERE pk = 'p' RETURNING sk, v").all()
    assert [int(r["sk"]) for r in rows] == list(range(60))
    rows = session.execute(f"DELETE FROM {name} WHERE pk = 'p' RETURNING old.sk").all()
    assert [int(r["sk"]) for r in rows] == list(range(60))


def test_upsert_without_journal_uses_batches(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    session = _session(backend, tmp_path, journal_dir="off")
    rows = ", ".join(f"('u', {i}, {i})" for i in range(60))
    explain = "\n".join(
        r["plan"]
        for r in session.execute(f"EXPLAIN UPSERT INTO {name} (pk, sk, n) VALUES {rows}").all()
    )
    assert "BatchWriteItem, 25 rows a call" in explain and "write 3 of 3" in explain
    result = session.execute(f"UPSERT INTO {name} (pk, sk, n) VALUES {rows}")
    result.all()
    assert result.stats.changed == 60 and result.stats.journal is None
    table = _table(backend, name)
    assert all(table[("u", Decimal(i))]["n"] == i for i in range(60))
    assert not (tmp_path / "journal").exists()


def test_insert_select_copies_between_tables(backend: Backend, tmp_path: Path) -> None:
    source, target = _create(backend), _create(backend)
    session = _session(backend, tmp_path)
    session.execute(f"DELETE FROM {target}").all()
    result = session.execute(f"INSERT INTO {target} SELECT * FROM {source} WHERE pk = 'b'")
    result.all()
    want = {k: v for k, v in _table(backend, source).items() if k[0] == "b"}
    assert _table(backend, target) == want and result.stats.changed == len(want)
    # re-keyed with named columns
    session.execute(
        f"INSERT INTO {target} (pk, sk, copied) SELECT note, n, pk FROM {source} WHERE pk = 'a'"
    ).all()
    table = _table(backend, target)
    assert table[("note a1", Decimal(10))] == {"pk": "note a1", "sk": Decimal(10), "copied": "a"}


# --- concurrency ---------------------------------------------------------------------------------


class _Intruder:
    """A client that lets another writer change an item just before our first write to it."""

    def __init__(self, client: Any, other: Any, table: str, key: Item):
        self._client, self._other, self._table, self._key = client, other, table, key
        self.done = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def update_item(self, **params: Any) -> Any:
        return self._intrude(self._client.update_item, params)

    def delete_item(self, **params: Any) -> Any:
        return self._intrude(self._client.delete_item, params)

    def _intrude(self, call: Callable, params: dict) -> Any:
        if not self.done and params["Key"] == values.encode_item(self._key):
            self.done = True
            self._other.update_item(
                TableName=self._table,
                Key=params["Key"],
                UpdateExpression="SET #n = :v",
                ExpressionAttributeNames={"#n": "n"},
                ExpressionAttributeValues={":v": {"N": "-5"}},
            )
        return call(**params)


@pytest.mark.parametrize("verb", ["UPDATE", "DELETE"])
def test_a_second_writer_between_read_and_write_is_skipped(
    backend: Backend, tmp_path: Path, verb: str
) -> None:
    name = _create(backend)
    victim = {"pk": "c", "sk": Decimal(4)}
    client = _Intruder(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        backend.client(),
        name,
        victim,
    )
    session = _session(backend, tmp_path, client=client)
    sql = (
        f"UPDATE {name} SET n = n + 1000 WHERE pk = 'c' AND n > 15"
        if verb == "UPDATE"
        else f"DELETE FROM {name} WHERE pk = 'c' AND n > 15"
    )
    result = session.execute(sql)
    result.all()
    assert client.done
    stats = result.stats
    assert (stats.matched, stats.changed, stats.skipped) == (5, 4, 1)
    assert "1 skipped (changed since read)" in result.footer()
    table = _table(backend, name)
    assert table[("c", Decimal(4))]["n"] == -5  # the other writer's value stands
    journal = [json.loads(x) for x in Path(stats.journal).read_text().splitlines()[1:]]
    written = {values.decode_item(e["key"])["sk"] for e in answers(stats.journal)}
    assert written == {2, 3, 5, 6}
    # the skipped one: its intent, then "unchanged" (so undo knows its state)
    assert [e for e in journal if e.get("unchanged")][0]["key"]["sk"] == {"N": "4"}


# --- guards --------------------------------------------------------------------------------------


class _Counting:
    def __init__(self, client: Any):
        self._client = client
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if callable(attr) and not name.startswith("_") and name not in ("meta", "exceptions"):

            def call(*a: Any, **k: Any) -> Any:
                self.calls.append(name)
                return attr(*a, **k)

            return call
        return attr


WRITE_CALLS = {"put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items"}


def test_read_only_refuses_before_any_request(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    client = _Counting(make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")))
    session = _session(backend, tmp_path, client=client, read_only=True)
    for sql in (
        f"DELETE FROM {name} WHERE pk = 'a'",
        f"INSERT INTO {name} (pk, sk) VALUES ('q', 1)",
        f"UPDATE {name} SET n = 1 WHERE pk = 'a' AND sk = 1",
        "UNDO 'no-such-file'",
    ):
        with pytest.raises(GuardError, match="^refused: read_only is on"):
            session.execute(sql)
    assert client.calls == []
    with pytest.raises(SettingError, match="cannot turn it off"):
        session.set("read_only", "off")  # a script cannot switch the guard off


def test_dry_run_counts_and_writes_nothing(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    client = _Counting(make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")))
    session = _session(backend, tmp_path, client=client)
    session.set("dry_run", "on")
    result = session.execute(f"DELETE FROM {name} WHERE n > 25")
    assert result.footer().startswith(
        f"DELETE {name}: dry run: 16 items would be written, nothing was written"
    )
    assert _table(backend, name) == before and not WRITE_CALLS & set(client.calls)


def test_confirmation_is_asked_through_the_callback(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    session = _session(backend, tmp_path)
    session.assume_yes = False
    asked: list[str] = []
    session.confirm = lambda q: asked.append(q) or False
    with pytest.raises(GuardError, match="not confirmed"):
        session.execute(f"DELETE FROM {name}")
    # each item is priced with its write on the GSI by_g too (an upper bound: sparse)
    assert asked == [f"DELETE 24 items from {name} (~48 WCU)?"]
    assert _table(backend, name) == before
    session.settings.confirm_over = 3
    session.confirm = lambda q: asked.append(q) or True
    session.execute(f"UPDATE {name} SET n = 0 WHERE pk = 'a'").all()
    assert asked[-1] == f"UPDATE 6 items in {name} (~6 WCU)?"
    session.execute(f"UPDATE {name} SET n = 1 WHERE pk = 'a' AND sk < 3").all()
    assert len(asked) == 2  # 2 items, a Query: nothing to ask


def test_script_guards_exit_3_before_writing(examples_backend: Backend, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    url = ["--endpoint-url", examples_backend.endpoint_url]
    for sql in ("DELETE FROM audit", "UPDATE drive SET x = 1 WHERE size > 0"):
        run = run_cli(*url, "-e", sql, env=env)
        assert run.returncode == 3, run.stderr
        assert "needs --yes" in run.one_error()
    run = run_cli(
        *url, "--confirm-over", "2", "-e", "DELETE FROM audit WHERE PK = 'ACTOR#ana.silva'", env=env
    )
    assert run.returncode == 3 and "needs a confirmation; run it with --yes" in run.one_error()
    run = run_cli(*url, "--read-only", "-e", "DELETE FROM audit WHERE PK = 'x'", env=env)
    assert run.returncode == 3 and "read_only is on" in run.one_error()
    run = run_cli(
        *url, "--fail-on-scan", "--yes", "-e", "DELETE FROM drive WHERE size = 1", env=env
    )
    assert run.returncode == 3 and "would Scan" in run.one_error()
    count = run_cli(*url, "--format", "csv", "-e", "SELECT COUNT(*) FROM audit", env=env)
    assert count.stdout.splitlines()[1] == str(examples_backend.datasets["audit"])


BAD = [
    (
        "UPDATE {t} SET sk = 2 WHERE pk = 'a' AND sk = 1",
        "sk is a key attribute of {t}: it can never be changed",
    ),
    (
        "UPDATE {t} SET g = 5 WHERE pk = 'a' AND sk = 1",
        "g is a key of index by_g of type S: it takes a string, not a number",
    ),
    ("UPDATE {t} SET g.x = 'a' WHERE pk = 'a'", "g is a key of index by_g (S): it has no paths"),
    (
        "INSERT INTO {t} (pk, sk) VALUES ('a', 'one')",
        "sk is a key of {t} of type N: it takes a number, not a string",
    ),
    ("INSERT INTO {t} (pk, n) VALUES ('a', 1)", "every row needs the key attribute sk"),
    ("INSERT INTO {t} (pk, sk, g) VALUES ('a', 1, 7)", "g is a key of index by_g of type S"),
    ("INSERT INTO {t} (pk, sk, blob) VALUES ('a', 1, :big)", "over DynamoDB's 400 KB item limit"),
    ("INSERT INTO {t} (pk, sk) VALUES ('x', 1), ('x', 1)", "row 2 repeats the key of row 1"),
    ("UPDATE {t} SET a = 1, a = 2", "a is changed twice"),
    (
        "UPDATE {t} SET tags = tags + {{1, 'a'}} WHERE pk = 'a'",
        "a set holds strings, numbers or binary",
    ),
    (
        "INSERT INTO {t} VALUES ('a', 1, 'x')",
        "INSERT INTO {t} VALUES without column names fills the key (pk, sk): 2 values, not 3; "
        "name the columns: INSERT INTO {t} (pk, sk, …) VALUES (…)",
    ),
]


@pytest.mark.parametrize("sql, message", BAD, ids=[b[1][:40] for b in BAD])
def test_bad_writes_are_one_line_errors_before_any_write(
    backend: Backend, tmp_path: Path, sql: str, message: str
) -> None:
    name = _create(backend)
    before = _table(backend, name)
    big = "x" * (400 * 1024)
    run = run_cli(
        "--endpoint-url",
        backend.endpoint_url,
        "--yes",
        "-v",
        f"big={big}",
        "-e",
        sql.format(t=name),
        env=cli_env(tmp_path),
    )
    assert run.returncode == 1, run.stderr
    assert message.format(t=name) in run.one_error()
    assert _table(backend, name) == before
    assert not (tmp_path / "state" / "dynosql" / "journal").exists()


def test_explain_prices_the_write_and_sends_no_write(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    client = _Counting(make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")))
    session = _session(backend, tmp_path, client=client)
    lines = [
        r["plan"]
        for r in session.execute(f"EXPLAIN UPDATE {name} SET n = n + 1 WHERE g = 'ga'").all()
    ]
    assert lines[0] == f"UPDATE {name}: UpdateItem per item (conditional)"
    assert lines[1].startswith("estimate: up to ~") and "WCU written" in lines[1]
    # n = n + 1 is guarded (exactly once): the read also fetches n, which by_g does not hold
    assert "read (the keys):" in lines and f"  Query {name}.by_g + BatchGetItem {name}" in lines
    text = "\n".join(lines)
    assert '"ConditionExpression": "attribute_exists(#pk) AND #g = :v1"' in text
    assert not WRITE_CALLS & set(client.calls)
    keyed = [
        r["plan"]
        for r in session.execute(f"EXPLAIN DELETE FROM {name} WHERE pk = 'a' AND sk = 1").all()
    ]
    assert keyed[:2] == [
        f"DELETE {name}: DeleteItem per item (conditional)",
        "estimate: 1 item, ~0 RCU read + ~2 WCU written",  # the table and GSI by_g
    ]
    # a Query of the table: whole items for the same RCU, so each intent can hold its image
    whole = [
        r["plan"]
        for r in session.execute(f"EXPLAIN DELETE FROM {name} WHERE pk = 'a' AND n > 10").all()
    ]
    assert "read (whole items):" in whole and '"ProjectionExpression"' not in "\n".join(whole)
    assert any("each write's intent line holds the item as read" in x for x in whole)
    assert _table(backend, name)[("a", Decimal(1))]


def test_undo_lists_items_changed_since_and_leaves_them(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    session = _session(backend, tmp_path)
    result = session.execute(f"UPDATE {name} SET n = 0 WHERE pk = 'b'")
    result.all()
    backend.client().update_item(
        TableName=name,
        Key={"pk": {"S": "b"}, "sk": {"N": "3"}},
        UpdateExpression="SET extra = :x",
        ExpressionAttributeValues={":x": {"S": "later"}},
    )
    undo = session.undo(result.stats.journal)
    listed = undo.all()
    assert [(r["pk"], r["sk"]) for r in listed] == [("b", 3)]
    assert undo.stats.changed == 5 and undo.stats.skipped == 1
    table = _table(backend, name)
    assert table[("b", Decimal(3))]["extra"] == "later" and table[("b", Decimal(3))]["n"] == 0
    assert {k: v for k, v in table.items() if k != ("b", 3)} == {
        k: v for k, v in before.items() if k != ("b", 3)
    }
    # the undo journaled itself: undoing it re-applies the statement's values
    again = session.undo(undo.stats.journal)
    again.all()
    assert all(i["n"] == 0 for k, i in _table(backend, name).items() if k[0] == "b")


def test_cli_undo_subcommand_and_journal_flag(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    env = cli_env(tmp_path)
    url = ["--endpoint-url", backend.endpoint_url]
    journal = tmp_path / "j.jsonl"
    run = run_cli(
        *url, "--journal", str(journal), "-e", f"DELETE FROM {name} WHERE pk = 'a'", env=env
    )
    assert run.returncode == 0, run.stderr
    assert f"DELETE {name}: 6 matched, 6 written, 0 skipped" in run.stderr
    assert oct(os.stat(journal).st_mode & 0o777) == "0o600"
    run = run_cli("undo", str(journal), *url, env=env)
    assert run.returncode == 0, run.stderr
    assert "UNDO" in run.stderr and "6 written" in run.stderr
    assert _table(backend, name) == before
    bad = run_cli("undo", str(tmp_path / "missing.jsonl"), *url, env=env)
    assert bad.returncode == 1 and "cannot read journal" in bad.one_error()


def test_the_repl_asks_before_a_delete_without_where(moto_backend: Backend, tmp_path: Path) -> None:
    name = _create(moto_backend)
    session = _session(moto_backend, tmp_path)
    session.assume_yes = False
    for answer, left in (("n", 24), ("y", 0)):
        text, _ = drive(session, f"DELETE FROM {name};\r{answer}\r\\q\r")
        assert len(_table(moto_backend, name)) == left, text
    assert f"DELETE {name}: 24 matched, 24 written" in text


def test_returning_old_and_max_wcu(backend: Backend, tmp_path: Path) -> None:
    name = _create(backend)
    before = _table(backend, name)
    session = _session(backend, tmp_path)
    old = session.execute(f"UPDATE {name} SET n = 0 WHERE pk = 'c' RETURNING old.*").all()
    assert _keyed(old) == {k: v for k, v in before.items() if k[0] == "c"}
    # --max-wcu stops the statement; what was written is exactly what the journal holds
    session.settings.max_wcu = Decimal(2)
    with pytest.raises(GuardError, match=r"^stopped: the statement wrote 2 WCU .* --max-wcu 2"):
        session.execute(f"DELETE FROM {name} WHERE pk = 'd'")
    journal = answers(session.last_write.journal)  # not the intents (which hold images too)
    gone = {k for k in before if k[0] == "d"} - set(_table(backend, name))
    assert len(gone) == 2 and len(journal) == 2  # small items: 1 WCU each
