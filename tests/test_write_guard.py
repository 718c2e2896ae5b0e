"""Exactly once for non-idempotent UPDATEs (dynosql.statements.exactly_once), on dynalite and moto.

The fault proxy forwards some UpdateItems to the server, which applies them, and then resets the
connection instead of answering (``lost``): botocore sends the write again. Without the guard
``n = n + 1`` would apply twice (the control test shows it does); with it every item's n goes up
by exactly one, the counts are exact and the journal holds every item's true old image.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from backends import Backend, quick_session, unique_name
from faultproxy import FaultProxy
from journal_lines import answers
from test_writes import _table as _scan

from dynosql import values
from dynosql.plan.write import guarded_paths
from dynosql.result import counted
from dynosql.session import Session, Settings, make_client
from dynosql.sql import ast, parse

ITEMS = 30
LOST = [2, 9, 16, 23, 28]  # UpdateItem calls whose answers are lost (the retries are others)


# Keys (sk) whose first attempts lose their answer, and how many of them: 28 loses its retry's
# answer too. Chosen by key, not by call number: with several writes in flight, which key the
# n-th call carries depends on timing, and a retry could take several of the numbers.
LOST_KEYS = {"2": 1, "9": 1, "16": 1, "23": 1, "28": 2}


def _first_attempts(losses: dict[str, int]) -> Callable[[dict], bool]:
    """A FaultProxy match: the first `losses[sk]` calls for each chosen key."""
    left = dict(losses)

    def match(body: dict) -> bool:
        sk = (body.get("Key") or body.get("Item") or {}).get("sk", {}).get("N")
        if left.get(sk, 0) > 0:
            left[sk] -= 1
            return True
        return False

    return match


def _assignments(sql: str) -> tuple[ast.Assignment, ...]:
    statement = parse(sql)
    assert isinstance(statement, ast.Update)
    return statement.assignments


@pytest.mark.parametrize(
    ("sql", "guarded"),
    [
        ("UPDATE t SET n = n + 1 WHERE k = 1", ["n"]),
        ("UPDATE t SET n = n + 1, a = 'x' WHERE k = 1", ["n", "a"]),
        ("UPDATE t SET l = list_append(l, [1]) WHERE k = 1", ["l"]),
        ("UPDATE t SET m.c = m.c - 2 WHERE k = 1", ["m.c"]),
        ("UPDATE t SET a = b + 1, b = 2 WHERE k = 1", ["b", "a"]),
        ("UPDATE t SET a = 1, REMOVE b WHERE k = 1", []),
        ("UPDATE t SET a = b + 1 WHERE k = 1", []),  # reads b, writes a: twice = once
        ("UPDATE t SET n = if_not_exists(n, 0) WHERE k = 1", []),
        ("UPDATE t SET tags = tags + {'x'}, old = old - {'y'} WHERE k = 1", []),
    ],
)
def test_which_updates_are_guarded(sql: str, guarded: list[str]) -> None:
    assert [p.text for p in guarded_paths(_assignments(sql))] == guarded


def _setup(backend: Backend) -> tuple[str, dict]:
    name = unique_name("wg")
    backend.create_keyed_table(name)
    rows = [
        {"pk": f"p{i % 3}", "sk": Decimal(i), "n": Decimal(i), "l": [Decimal(i)]}
        for i in range(ITEMS)
    ]
    backend.put_items(name, rows)
    return name, {(r["pk"], r["sk"]): r for r in rows}


def _run(backend: Backend, name: str, tmp_path: Path, sql: str) -> tuple[object, list]:
    with FaultProxy(backend.endpoint_url) as proxy:
        proxy.fail("UpdateItem", "lost", calls=LOST)
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        result = session.execute(sql)
        result.all()
        lost = [c for c in proxy.calls("UpdateItem") if c.action == "lost"]
    return result.stats, lost


@pytest.mark.slow
def test_lost_answers_do_not_apply_an_update_twice(backend: Backend, tmp_path: Path) -> None:
    name, before = _setup(backend)
    stats, lost = _run(
        backend,
        name,
        tmp_path,
        f"UPDATE {name} SET n = n + 1, l = list_append(l, [7]) WHERE n >= 0",
    )
    assert len(lost) == len(LOST)  # the faults really happened
    assert (stats.matched, stats.changed, stats.skipped) == (ITEMS, ITEMS, 0)
    after = _scan(backend, name)
    assert after == {
        k: {**v, "n": v["n"] + 1, "l": [*v["l"], Decimal(7)]} for k, v in before.items()
    }
    entries = [json.loads(line) for line in Path(stats.journal).read_text().splitlines()[1:]]
    # the answers' old images, and the intents' (the item as read, journaled before the write
    # was sent): both are the items before the statement, each once
    for lines in (answers(stats.journal), [e for e in entries if e.get("intent")]):
        olds = [values.decode_item(e["old"]) for e in lines]
        assert sorted(olds, key=lambda i: i["sk"]) == sorted(before.values(), key=lambda i: i["sk"])


@pytest.mark.slow
def test_lost_answers_by_key_without_a_scan(backend: Backend, tmp_path: Path) -> None:
    name, before = _setup(backend)
    keys = ", ".join(str(i) for i in range(0, ITEMS, 3))  # pk p0: sk 0, 3, 6, …
    stats, _ = _run(
        backend, name, tmp_path, f"UPDATE {name} SET n = n + 1 WHERE pk = 'p0' AND sk IN ({keys})"
    )
    assert stats.changed == ITEMS // 3 and stats.skipped == 0
    after = _scan(backend, name)
    assert after == {k: {**v, "n": v["n"] + (1 if k[0] == "p0" else 0)} for k, v in before.items()}


@pytest.mark.slow
def test_control_without_the_guard_the_same_faults_apply_twice(
    dynalite_backend: Backend,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dynosql.plan.write as write_plan

    monkeypatch.setattr(write_plan, "guarded_paths", lambda _assignments: ())
    name, before = _setup(dynalite_backend)
    _run(dynalite_backend, name, tmp_path, f"UPDATE {name} SET n = n + 1 WHERE n >= 0")
    after = _scan(dynalite_backend, name)
    extra = {k: v["n"] - before[k]["n"] - 1 for k, v in after.items()}
    assert min(extra.values()) == 0
    assert sum(extra.values()) == len(LOST)  # every lost answer applied its write once more


def test_a_change_by_someone_else_is_still_skipped(backend: Backend, tmp_path: Path) -> None:
    """The guard's condition failing on the first attempt is someone else's change: skipped."""
    name, before = _setup(backend)
    client = backend.client()
    session = Session(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        settings=Settings(journal_dir=str(tmp_path)),
    )
    session.assume_yes = True
    import dynosql.statements.write as ws

    real = ws._targets

    def targets_then_change(*args: object) -> object:
        found = list(real(*args))  # type: ignore[arg-type]
        client.update_item(
            TableName=name,
            Key={"pk": {"S": "p1"}, "sk": {"N": "1"}},
            UpdateExpression="SET n = :v",
            ExpressionAttributeValues={":v": {"N": "100"}},
        )
        return iter(found)

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(ws, "_targets", targets_then_change)
    try:
        result = session.execute(f"UPDATE {name} SET n = n + 1 WHERE n >= 0")
        result.all()
    finally:
        monkeypatch.undo()
    assert (result.stats.changed, result.stats.skipped) == (ITEMS - 1, 1)
    assert _scan(backend, name)[("p1", Decimal(1))]["n"] == Decimal(100)


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["INSERT", "DELETE", "UPDATE", "UPSERT"])
def test_lost_answers_of_other_writes_count_once_and_undo_lists_them(
    backend: Backend, tmp_path: Path, verb: str
) -> None:
    """A retried INSERT fails on its own first attempt's row, a retried DELETE on the item its
    first attempt deleted, a retried idempotent UPDATE or UPSERT succeeds again on its own
    result: each is counted once as written and the journal leaves its intent open. An INSERT's
    or UPSERT's old image nobody knows (nothing was read): not guessed, undo lists it. The
    DELETE and UPDATE read each item whole before writing it, so their intents hold the images:
    undo restores those items too (the item is exactly as the write leaves it)."""
    name, before = _setup(backend)
    operation = {"INSERT": "PutItem", "UPSERT": "PutItem", "DELETE": "DeleteItem"}
    if verb in ("INSERT", "UPSERT"):
        backend.delete_table(name)
        backend.create_keyed_table(name)
        rows = ", ".join(f"('p{i % 3}', {i}, {i})" for i in range(ITEMS))
        sql = f"{verb} INTO {name} (pk, sk, n) VALUES {rows}"
    elif verb == "DELETE":
        sql = f"DELETE FROM {name} WHERE n >= 0"
    else:
        sql = f"UPDATE {name} SET s = 'x' WHERE n >= 0"
    with FaultProxy(backend.endpoint_url) as proxy:
        proxy.fail(operation.get(verb, "UpdateItem"), "lost", match=_first_attempts(LOST_KEYS))
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        result = session.execute(sql)
        result.all()
        lost = {
            (c.body.get("Key") or c.body["Item"])["sk"]["N"]
            for c in proxy.log
            if c.action == "lost"
        }
    stats = result.stats
    # every chosen key lost an answer (28 its retry's too): one uncertain item per key
    assert lost == set(LOST_KEYS)
    assert (stats.changed, stats.skipped, stats.uncertain) == (ITEMS, 0, len(lost))
    after = _scan(backend, name)
    if verb == "DELETE":
        assert after == {}
    elif verb == "UPDATE":
        assert after == {k: {**v, "s": "x"} for k, v in before.items()}
    else:
        assert after == {
            (f"p{i % 3}", Decimal(i)): {"pk": f"p{i % 3}", "sk": Decimal(i), "n": Decimal(i)}
            for i in range(ITEMS)
        }
    # the writes went through the proxy: the same server, another endpoint (FORCE TARGET)
    undo = _session(backend, tmp_path).undo(stats.journal, force_target=True)
    listed = undo.all()
    if verb in ("DELETE", "UPDATE"):  # read whole first: restored from their intents
        assert listed == [] and undo.stats.changed == ITEMS
        assert f"{counted(len(lost), 'write')} whose answer" in " ".join(undo.warnings)
        assert _scan(backend, name) == before
        return
    assert {str(r["sk"]) for r in listed} == lost
    assert all(r["state"].startswith("unknown") for r in listed)
    assert undo.stats.changed == ITEMS - len(lost)
    restored = _scan(backend, name)
    unknown = {(r["pk"], r["sk"]) for r in listed}
    assert set(restored) == unknown  # the rest were deleted again


def _session(backend: Backend, tmp_path: Path) -> Session:
    client = make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    return Session(client, settings=Settings(journal_dir=str(tmp_path)))
