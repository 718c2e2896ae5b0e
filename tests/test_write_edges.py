"""Writes at their edges (issue 21, items 1, 2, 3, 13 and RETURNING of 14), through the real
command (the CLI in-process, or Session): INSERT … SELECT maps by the select list's positions;
a WHERE the write's condition cannot check is made safe by conditioning each write on the
read's values; a transaction requires every attribute as read; RETURNING names columns.

The concurrent writer is injected deterministically: a client wrapper that runs another
client's writes at one chosen moment (between the read and the first write, or between the
GetItems and the TransactWriteItems)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli
from journal_lines import answers

from dynosql import values
from dynosql.session import Session, Settings, make_client

Item = dict[str, Any]


def _session(backend: Backend, tmp_path: Path, client: Any = None) -> Session:
    client = client or make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "journal")))
    session.assume_yes = True
    return session


def _table(backend: Backend, name: str, keys: tuple[str, ...] = ("pk", "sk")) -> dict[Any, Item]:
    client = backend.client()
    out: dict[Any, Item] = {}
    kwargs: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        for raw in page["Items"]:
            item = values.decode_item(raw)
            out[tuple(item[k] for k in keys)] = item
        if not page.get("LastEvaluatedKey"):
            return out
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class _Between:
    """A client that runs `intrude` (another client's writes) once, just before the first call
    of one of `methods`: the moment between our read and our writes. Writes sent from other
    threads wait until it has run, so no write of ours goes before it."""

    def __init__(self, client: Any, methods: tuple[str, ...], intrude: Callable[[], None]):
        self._client, self._methods, self._intrude = client, methods, intrude
        self._lock = threading.Lock()
        self.done = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if name not in self._methods:
            return attr

        def call(**params: Any) -> Any:
            with self._lock:
                if not self.done:
                    self._intrude()
                    self.done = True
            return attr(**params)

        return call


# --- 1. INSERT … SELECT maps by the select list's positions -------------------------------------


def test_insert_select_maps_by_select_list_position(moto_backend: Backend, tmp_path: Path) -> None:
    src, dst = unique_name("src"), unique_name("dst")
    for name in (src, dst):
        moto_backend.create_keyed_table(name, pk=("k", "S"), sk=None)
    moto_backend.put_items(
        src,
        [
            {"k": "full", "a": Decimal(1), "b": "two", "c": True},
            {"k": "no-b", "a": Decimal(1), "c": True},  # b absent: y must stay absent
            {"k": "no-a", "b": "two"},
        ],
    )
    endpoint = ("--endpoint-url", moto_backend.endpoint_url, "--yes")
    env = cli_env(tmp_path)
    run = run_cli(
        *endpoint,
        "-e",
        f"INSERT INTO {dst} (k, x, y, z) SELECT k, a, b, c FROM {src}",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert _table(moto_backend, dst, ("k",)) == {
        ("full",): {"k": "full", "x": Decimal(1), "y": "two", "z": True},
        ("no-b",): {"k": "no-b", "x": Decimal(1), "z": True},  # was y=True, no z
        ("no-a",): {"k": "no-a", "y": "two"},  # was x='two'
    }


@pytest.mark.parametrize(
    "select, message",
    [
        (
            "SELECT * FROM {src}",
            r"line 1, column \d+: INSERT INTO \w+ \(k, x\) SELECT \* has no order to match the "
            "named columns",
        ),
        (
            "SELECT k, a, b FROM {src}",
            r"line 1, column \d+: 3 selected columns for 2 named columns \(they are matched by "
            "position\\)",
        ),
        ("SELECT k FROM {src}", r"1 selected columns for 2 named columns"),
    ],
    ids=["star", "more", "fewer"],
)
def test_insert_select_refuses_star_and_count_mismatch_before_any_read(
    moto_backend: Backend, tmp_path: Path, select: str, message: str
) -> None:
    src, dst = unique_name("src"), unique_name("dst")
    sql = f"INSERT INTO {dst} (k, x) " + select.format(src=src)
    # the tables do not exist: a refusal after any request would name them instead
    run = run_cli(
        "--endpoint-url", moto_backend.endpoint_url, "--yes", "-e", sql, env=cli_env(tmp_path)
    )
    assert run.returncode == 1
    line = run.one_error()
    assert re.search(message, line), line


# --- 3. a WHERE part DynamoDB cannot check: each write requires its paths as read ---------------


def _groups(backend: Backend) -> str:
    name = unique_name("grp")
    backend.create_keyed_table(name)
    backend.put_items(
        name,
        [{"pk": "g", "sk": Decimal(k), "grp": f"a{k % 2}", "n": Decimal(k)} for k in range(1, 9)],
    )
    return name


def _intruder(backend: Backend, name: str) -> Callable[[], None]:
    """Between the read and the first write: sk 1 and 3 stop matching ``grp LIKE '%1'``;
    sk 7 gets an attribute the WHERE does not read (it still matches)."""

    def intrude() -> None:
        other = backend.client()
        for sk, attribute in ((1, "grp"), (3, "grp"), (7, "other")):
            other.update_item(
                TableName=name,
                Key={"pk": {"S": "g"}, "sk": {"N": str(sk)}},
                UpdateExpression="SET #a = :v",
                ExpressionAttributeNames={"#a": attribute},
                ExpressionAttributeValues={":v": {"S": "a2"}},
            )

    return intrude


@pytest.mark.parametrize("verb", ["UPDATE", "DELETE"])
def test_an_unchecked_where_part_is_required_as_read(
    backend: Backend, tmp_path: Path, verb: str
) -> None:
    name = _groups(backend)
    method = "update_item" if verb == "UPDATE" else "delete_item"
    client = _Between(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        (method,),
        _intruder(backend, name),
    )
    session = _session(backend, tmp_path, client)
    sql = (
        f"UPDATE {name} SET q = 1 WHERE pk = 'g' AND grp LIKE '%1'"
        if verb == "UPDATE"
        else f"DELETE FROM {name} WHERE pk = 'g' AND grp LIKE '%1'"
    )
    result = session.execute(sql)
    result.all()
    assert client.done
    stats = result.stats
    # sk 1, 3, 5, 7 matched when read; 1 and 3 no longer match when written: skipped
    assert (stats.matched, stats.changed, stats.skipped) == (4, 2, 2)
    assert "2 skipped (changed since read)" in result.footer()
    table = _table(backend, name)
    for sk in (1, 3):  # not clobbered: the other writer's value stands, nothing of ours
        assert table[("g", Decimal(sk))] == {
            "pk": "g",
            "sk": Decimal(sk),
            "grp": "a2",
            "n": Decimal(sk),
        }
    if verb == "UPDATE":
        assert table[("g", Decimal(5))]["q"] == 1
        assert table[("g", Decimal(7))] == {
            "pk": "g",
            "sk": Decimal(7),
            "grp": "a1",
            "n": Decimal(7),
            "other": "a2",
            "q": Decimal(1),
        }
    else:
        assert ("g", Decimal(5)) not in table and ("g", Decimal(7)) not in table
    # the journal is exact: undo gives back sk 5 and 7 as they were just before the write
    undone = session.undo(stats.journal)
    assert undone.all() == [] and undone.stats.changed == 2
    assert _table(backend, name)[("g", Decimal(7))].get("other") == "a2"
    assert "q" not in _table(backend, name)[("g", Decimal(5))]


def test_explain_says_what_the_condition_guarantees(moto_backend: Backend, tmp_path: Path) -> None:
    name = _groups(moto_backend)
    session = _session(moto_backend, tmp_path)
    text = "\n".join(
        r["plan"]
        for r in session.execute(
            f"EXPLAIN UPDATE {name} SET q = 1 WHERE pk = 'g' AND grp LIKE '%1'"
        ).all()
    )
    assert (
        "note: grp LIKE '%1' is checked when reading (DynamoDB cannot evaluate it); each write "
        "also requires grp as read, so an item whose grp changed after the read is skipped, "
        "even if it still matches"
    ) in text
    assert "never overwritten" not in text
    explained = session.execute(f"EXPLAIN DELETE FROM {name} WHERE pk = 'g' AND grp LIKE '%1'")
    assert explained.document["unchecked"] == ["grp LIKE '%1'"]
    assert explained.document["required_as_read"] == ["grp"]
    assert (
        "each write's condition holds only while the item still matches the WHERE (the parts "
        "DynamoDB checks, and the values the rest reads, as read): an item that stopped "
        "matching after the read is skipped and counted, never written"
    ) in text


# --- 2. a transaction requires every attribute as read -----------------------------------------


@pytest.fixture(params=["moto", "ddblocal"])
def server(request: pytest.FixtureRequest) -> Backend:
    """The servers with TransactWriteItems (dynalite has none)."""
    return request.getfixturevalue(f"{request.param}_backend")


@pytest.mark.parametrize("verb", ["DELETE", "UPDATE", "UPSERT"])
def test_a_transaction_is_cancelled_by_a_change_after_its_read(
    server: Backend, tmp_path: Path, verb: str
) -> None:
    name = _groups(server)
    statement = {
        "DELETE": f"DELETE FROM {name} WHERE pk = 'g' AND n > 4",
        "UPDATE": f"UPDATE {name} SET q = 1 WHERE pk = 'g' AND n > 4",
        "UPSERT": f"UPSERT INTO {name} (pk, sk, n) VALUES ('g', 5, 50), ('g', 6, 60)",
    }[verb]

    def intrude() -> None:  # another client, between the GetItems and TransactWriteItems
        server.client().update_item(
            TableName=name,
            Key={"pk": {"S": "g"}, "sk": {"N": "6"}},
            UpdateExpression="SET grp = :v",
            ExpressionAttributeValues={":v": {"S": "theirs"}},
        )

    client = _Between(
        make_client(endpoint_url=server.endpoint_url, credentials=("t", "t")),
        ("transact_write_items",),
        intrude,
    )
    session = _session(server, tmp_path, client)
    before = _table(server, name)
    with pytest.raises(
        Exception,
        match=rf"^transaction cancelled, nothing was written: action 2 \({verb} {name} "
        r'\{"pk": "g", "sk": "6"\}\) failed its condition: the item changed after it was read',
    ):
        list(session.run(f"BEGIN; {statement}; COMMIT;"))
    assert client.done
    after = _table(server, name)
    six = ("g", Decimal(6))
    assert after == {**before, six: {**before[six], "grp": "theirs"}}  # theirs, nothing of ours
    # nothing was written, so the journal has nothing to undo (every action "unchanged"; the
    # intents hold the images the actions expected)
    journals = list((tmp_path / "journal").glob("*.jsonl"))
    for path in journals:
        assert answers(path) == []


# --- 14. RETURNING col, … (and 13: a RETURNING that matched nothing is [] in json) --------------


def test_returning_named_columns_and_paths(moto_backend: Backend, tmp_path: Path) -> None:
    name = unique_name("ret")
    moto_backend.create_keyed_table(name)
    moto_backend.put_items(
        name,
        [
            {"pk": "a", "sk": Decimal(1), "n": Decimal(1), "m": {"x": [Decimal(7), "y"]}},
            {"pk": "a", "sk": Decimal(2), "n": Decimal(2)},
        ],
    )
    session = _session(moto_backend, tmp_path)

    def rows(sql: str) -> tuple[list[str], list[Item]]:
        result = session.execute(sql)
        got = sorted(result.all(), key=lambda r: (r.get("sk", 0), r.get("k", 0)))
        return result.columns, got

    # UPDATE: after the write by default, old.p before it; a path into a map and list; AS
    columns, got = rows(
        f"UPDATE {name} SET n = n + 10 WHERE pk = 'a' RETURNING sk, n, old.n AS was, m.x[0]"
    )
    assert columns == ["sk", "n", "was", "m.x[0]"]
    assert got == [
        {"sk": 1, "n": 11, "was": 1, "m.x[0]": 7},
        {"sk": 2, "n": 12, "was": 2},  # no m: the column is absent, as in a SELECT
    ]
    # INSERT: old.p of a new item is absent; new.p is the row put
    _, got = rows(
        f"INSERT INTO {name} (pk, sk, s) VALUES ('b', 1, 'x') RETURNING new.s, old.s AS was"
    )
    assert got == [{"s": "x"}]  # one row; old.s absent: there was no item
    with pytest.raises(Exception, match="two RETURNING columns are named s"):
        session.execute(f"UPSERT INTO {name} (pk, sk) VALUES ('b', 1) RETURNING s, old.s")
    # UPSERT: old.s is what it overwrote
    _, got = rows(f"UPSERT INTO {name} (pk, sk, s) VALUES ('b', 1, 'z') RETURNING s, old.s AS w")
    assert got == [{"s": "z", "w": "x"}]
    # DELETE: a column is the deleted item's
    _, got = rows(f"DELETE FROM {name} WHERE pk = 'a' AND sk = 1 RETURNING pk, sk, n")
    assert got == [{"pk": "a", "sk": 1, "n": 11}]
    assert ("a", Decimal(1)) not in _table(moto_backend, name)


@pytest.mark.parametrize(
    "returning",
    ["RETURNING *", "RETURNING old.*", "RETURNING pk, old.n"],
    ids=["new", "old", "cols"],
)
def test_returning_that_matched_nothing_prints_an_empty_json_array(
    moto_backend: Backend, tmp_path: Path, returning: str
) -> None:
    name = unique_name("ret")
    moto_backend.create_keyed_table(name)
    moto_backend.put_items(name, [{"pk": "a", "sk": Decimal(1), "tags": ["x"]}])
    base = ("--endpoint-url", moto_backend.endpoint_url, "--yes", "--format", "json", "-e")
    env = cli_env(tmp_path)
    for sql in (
        f"UPDATE {name} SET q = 1 WHERE contains(tags, 'zz') {returning}",
        f"DELETE FROM {name} WHERE contains(tags, 'zz') {returning}",
        f"INSERT INTO {name} SELECT * FROM {name} WHERE contains(tags, 'zz') {returning}",
    ):
        run = run_cli(*base, sql, env=env)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == [], (sql, run.stdout)
