"""Writes under faults, on moto, dynalite and DynamoDB Local through tests/faultproxy.py:
throttles, 500s and reset connections during a 2,000-item UPDATE (every item changed exactly
once, counts exact, journal complete); BatchWriteItem's UnprocessedItems sent again; SIGINT
half-way through an UPDATE in a real process, then ``dynosql undo`` puts the table back exactly.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from backends import Backend, quick_session, unique_name
from cli_runner import cli_env, run_cli
from faultproxy import FaultProxy
from journal_lines import answers
from test_writes import _table as _scan

from dynosql import values
from dynosql.dynamo.writer import write_batches
from dynosql.errors import DynosqlError
from dynosql.plan.port import put_requests
from dynosql.result import WriteStats
from dynosql.session import Session, Settings, make_client

ROOT = Path(__file__).resolve().parent.parent
ITEMS = 600


def _table(backend: Backend, items: int = ITEMS) -> tuple[str, dict[tuple, dict]]:
    name = unique_name("wf")
    backend.create_keyed_table(name)
    rows = [
        {"pk": f"p{i % 4}", "sk": Decimal(i), "n": Decimal(i), "s": f"item {i}"}
        for i in range(items)
    ]
    backend.put_items(name, rows)
    return name, {(r["pk"], r["sk"]): r for r in rows}


@pytest.mark.slow
def test_update_under_faults_changes_every_item_exactly_once(
    dynalite_backend: Backend, tmp_path: Path
) -> None:
    # dynalite only: the same 600 writes take three times longer on moto (its Query sorts
    # the whole table); the write path is the same code on both
    backend = dynalite_backend
    name, before = _table(backend)
    with FaultProxy(backend.endpoint_url) as proxy:
        proxy.fail("UpdateItem", "throttle", calls=[3, 40, 41, 270, 510])
        proxy.fail("UpdateItem", "throttling", calls=[10, 360])
        proxy.fail("UpdateItem", "500", calls=[77, 450])
        proxy.fail("UpdateItem", "reset", calls=[5, 180, 599])
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        result = session.execute(f"UPDATE {name} SET n = n + 1, seen = TRUE WHERE n >= 0")
        result.all()
        forwarded = [c for c in proxy.calls("UpdateItem") if c.action == "forward"]
        failed = [c for c in proxy.calls("UpdateItem") if c.action != "forward"]
    stats = result.stats
    assert (stats.matched, stats.changed, stats.skipped) == (ITEMS, ITEMS, 0)
    assert len(failed) == 12 and len(forwarded) == ITEMS
    assert len({json.dumps(c.body["Key"], sort_keys=True) for c in forwarded}) == ITEMS
    after = _scan(backend, name)
    assert after == {k: {**v, "n": v["n"] + 1, "seen": True} for k, v in before.items()}
    entries = answers(stats.journal)
    assert len(entries) == ITEMS
    assert {json.dumps(e["key"], sort_keys=True) for e in entries} == {
        json.dumps(values.encode_item({"pk": k[0], "sk": k[1]}), sort_keys=True) for k in before
    }
    assert all(
        values.decode_item(e["old"]) == before[(e["old"]["pk"]["S"], Decimal(e["old"]["sk"]["N"]))]
        for e in entries
    )


def test_write_batches_resends_unprocessed_items(backend: Backend) -> None:
    name, _ = _table(backend, items=0)
    rows = [{"pk": "b", "sk": Decimal(i), "v": f"v{i}"} for i in range(110)]
    with FaultProxy(backend.endpoint_url) as proxy:
        proxy.fail("BatchWriteItem", "unprocessed", calls=[1, 2, 3])
        proxy.fail("BatchWriteItem", "throttle", calls=[5])
        quick = quick_session(proxy.url)
        written: list[int] = []
        stats = write_batches(
            quick.client,
            name,
            put_requests(rows),
            workers=2,
            on_written=lambda done: written.append(len(done)),
            policy=quick.port.policy(),
        )
        calls = proxy.calls("BatchWriteItem")
    assert isinstance(stats, WriteStats)
    assert stats.changed == 110 and sum(written) == 110 and stats.matched == 110
    assert all(len(c.body["RequestItems"][name]) <= 25 for c in calls)
    assert len(calls) >= 5 + 3 + 1  # five batches, three resends, one throttled call
    assert _scan(backend, name) == {("b", r["sk"]): r for r in rows}
    assert stats.wcu > 0


@pytest.mark.slow
def test_sigint_mid_update_then_undo_restores_exactly(
    dynalite_backend: Backend, tmp_path: Path
) -> None:
    backend = dynalite_backend
    name, before = _table(backend)
    journal = tmp_path / "update.jsonl"
    env = {**cli_env(tmp_path), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dynosql.cli",
            "--endpoint-url",
            backend.endpoint_url,
            "--yes",
            "--journal",
            str(journal),
            "--rate-limit",
            "200",
            "-e",
            f"UPDATE {name} SET n = n + 1000 WHERE n >= 0",
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        # written items: answer lines (intent lines hold the images too: the UPDATE read them)
        lines = journal.read_text().splitlines() if journal.exists() else []
        if sum('"new"' in x and '"intent"' not in x for x in lines) > 150:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert f"dynosql undo {journal}" in err
    entries = answers(journal)
    assert 150 <= len(entries) < ITEMS
    changed = {(e["key"]["pk"]["S"], Decimal(e["key"]["sk"]["N"])) for e in entries}
    after = _scan(backend, name)
    # what was written is exactly what the journal says
    assert {k for k in before if after[k] != before[k]} == changed
    assert all(after[k]["n"] == before[k]["n"] + 1000 for k in changed)
    run = run_cli(  # more than --confirm-over writes: a script says --yes
        "undo", str(journal), "--yes", "--endpoint-url", backend.endpoint_url, env=cli_env(tmp_path)
    )
    assert run.returncode == 0, run.stderr
    assert _scan(backend, name) == before


@pytest.mark.slow
def test_exhausted_retries_leave_a_journal_undo_handles(backend: Backend, tmp_path: Path) -> None:
    name, before = _table(backend, items=120)
    with FaultProxy(backend.endpoint_url) as proxy:
        proxy.fail("UpdateItem", "throttle", calls=range(40, 10_000))  # from the 40th on, always
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        with pytest.raises(DynosqlError, match=r"kept throttling .* written, 0 skipped; journal "):
            session.execute(f"UPDATE {name} SET n = n - 1 WHERE n >= 0")
        journal = session.last_write.journal
    entries = answers(journal)
    changed = {(e["key"]["pk"]["S"], Decimal(e["key"]["sk"]["N"])) for e in entries}
    after = _scan(backend, name)
    assert 0 < len(changed) < 120
    assert {k for k in before if after[k] != before[k]} == changed
    # written through the proxy, undone on the server behind it: FORCE TARGET
    undo = _session_direct(backend, tmp_path).undo(journal, force_target=True)
    # the writes that were sent and never answered (retries exhausted): the journal cannot know
    # whether DynamoDB applied them, but their intents hold the items as read (the UPDATE read
    # them whole), and each item is still as read: not applied (here: throttled), nothing to do
    listed = undo.all()
    assert listed == [] and undo.stats.changed == len(changed)
    (note,) = [w for w in undo.warnings if "whose outcome was not journaled had not applied" in w]
    assert 1 <= int(note.split()[0]) <= 16
    assert _scan(backend, name) == before


def _session_direct(backend: Backend, tmp_path: Path) -> Session:
    client = make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    return Session(client, settings=Settings(journal_dir=str(tmp_path)))
