"""Writes: dynosql vs hand-written boto3, on a dynalite server on loopback.

    python benchmarks/writes.py [--items 10000] [--runs 1]   (medians; wall and client CPU)

- UPDATE: ``UPDATE t SET n = n + 1 WHERE n >= 0`` over every item (a Scan of the keys and n,
  then one conditional UpdateItem per item, 8 in flight, exactly once: each also requires n as
  read; each old image journaled, write-ahead) vs boto3: the same Scan, then the same UpdateItem
  requests (condition, ReturnValues ALL_OLD) from a thread pool of 8, no journal. Goal: within
  1.2x the time, the same WCU.
- INSERT: ``INSERT INTO t (pk, sk, n) VALUES …`` of N rows (one conditional PutItem per row)
  vs boto3 PutItem with the same condition from 8 threads.
- UPSERT without a journal: BatchWriteItem (write_batches) vs boto3 BatchWriteItem from 4
  threads.

The journal is synced (fdatasync; write-ahead: intents on disk before their writes are sent,
128 a chunk with one sync); the row "UPDATE (fsync off)" runs the same UPDATE with the syncs
counted but not done, beside its own boto3 run, to show what durability costs; the journal directory is a new one under $TMPDIR (a real disk here, not
tmpfs: say which when recording figures). The fsyncs each statement made are counted and
printed.

Prints a table; nothing is written to benchmarks/README.md (run.py owns that file).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from server import Dynalite  # noqa: E402

from dynosql.session import Session, Settings, make_client  # noqa: E402

TABLE = {
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def fresh(server: Dynalite, name: str, items: int) -> None:
    server.create_table(TableName=name, **TABLE)
    if items:
        server.put_items(
            name, ({"pk": f"p{i % 16}", "sk": Decimal(i), "n": Decimal(i)} for i in range(items))
        )


FSYNCS = [0]
_real_sync = os.fdatasync  # the journal's (fsync for a new file's directory)
SYNC_ON = [True]


def _counted_sync(fd: int) -> None:
    FSYNCS[0] += 1
    if SYNC_ON[0]:
        _real_sync(fd)


os.fdatasync = _counted_sync  # counted, still done (except in the "fsync off" row)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this process: the client, not dynalite
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], Decimal]) -> tuple[float, float, Decimal]:
    """Wall seconds, client CPU seconds, WCU."""
    start, cpu = time.perf_counter(), _cpu()
    wcu = fn()
    return time.perf_counter() - start, _cpu() - cpu, wcu


def session(server: Dynalite, journal: bool = True) -> Session:
    client = make_client(endpoint_url=server.url, credentials=("bench", "bench"))
    settings = Settings(journal_dir=tempfile.mkdtemp() if journal else "off")
    s = Session(client, settings=settings)
    s.assume_yes = True
    return s


def dynosql_update(server: Dynalite, name: str) -> Decimal:
    result = session(server).execute(f"UPDATE {name} SET n = n + 1 WHERE n >= 0")
    result.all()
    return result.stats.wcu


def boto3_update(server: Dynalite, name: str) -> Decimal:
    """The same exactly-once requests written by hand: the Scan reads n with the keys, and each
    UpdateItem also requires n as read (a retried write that already applied then fails)."""
    client = server.client()
    items: list[dict] = []
    kwargs: dict[str, Any] = {
        "TableName": name,
        "ProjectionExpression": "pk, sk, #n",
        "ExpressionAttributeNames": {"#n": "n"},
    }
    while True:
        page = client.scan(**kwargs)
        items.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def one(item: dict) -> Decimal:
        response = client.update_item(
            TableName=name,
            Key={"pk": item["pk"], "sk": item["sk"]},
            UpdateExpression="SET #n = #n + :one",
            ConditionExpression="attribute_exists(#pk) AND #n >= :zero AND #n = :old",
            ExpressionAttributeNames={"#n": "n", "#pk": "pk"},
            ExpressionAttributeValues={":one": {"N": "1"}, ":zero": {"N": "0"}, ":old": item["n"]},
            ReturnValues="ALL_OLD",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            ReturnConsumedCapacity="TOTAL",
        )
        return Decimal(str(response["ConsumedCapacity"]["CapacityUnits"]))

    with ThreadPoolExecutor(8) as pool:
        return sum(pool.map(one, items), Decimal(0))


def dynosql_insert(server: Dynalite, name: str, n: int) -> Decimal:
    rows = ", ".join(f"('q{i % 16}', {i}, {i})" for i in range(n))
    result = session(server).execute(f"INSERT INTO {name} (pk, sk, n) VALUES {rows}")
    result.all()
    return result.stats.wcu


def boto3_insert(server: Dynalite, name: str, n: int) -> Decimal:
    client = server.client()

    def one(i: int) -> Decimal:
        response = client.put_item(
            TableName=name,
            Item={"pk": {"S": f"q{i % 16}"}, "sk": {"N": str(i)}, "n": {"N": str(i)}},
            ConditionExpression="attribute_not_exists(#pk)",
            ExpressionAttributeNames={"#pk": "pk"},
            ReturnConsumedCapacity="TOTAL",
        )
        return Decimal(str(response["ConsumedCapacity"]["CapacityUnits"]))

    with ThreadPoolExecutor(8) as pool:
        return sum(pool.map(one, range(n)), Decimal(0))


def dynosql_upsert(server: Dynalite, name: str, n: int) -> Decimal:
    rows = ", ".join(f"('u{i % 16}', {i}, {i})" for i in range(n))
    result = session(server, journal=False).execute(f"UPSERT INTO {name} (pk, sk, n) VALUES {rows}")
    result.all()
    return result.stats.wcu


def boto3_upsert(server: Dynalite, name: str, n: int) -> Decimal:
    client = server.client()
    requests = [
        {
            "PutRequest": {
                "Item": {"pk": {"S": f"u{i % 16}"}, "sk": {"N": str(i)}, "n": {"N": str(i)}}
            }
        }
        for i in range(n)
    ]

    def one(chunk: list[dict]) -> Decimal:
        total = Decimal(0)
        while chunk:
            response = client.batch_write_item(
                RequestItems={name: chunk}, ReturnConsumedCapacity="TOTAL"
            )
            total += sum(
                Decimal(str(c["CapacityUnits"])) for c in response.get("ConsumedCapacity", [])
            )
            chunk = response.get("UnprocessedItems", {}).get(name, [])
        return total

    chunks = [requests[i : i + 25] for i in range(0, n, 25)]
    with ThreadPoolExecutor(4) as pool:
        return sum(pool.map(one, chunks), Decimal(0))


def unsynced(fn: Callable[[], Decimal]) -> Decimal:
    """`fn` with the journal's fsyncs counted but not done: what durability costs."""
    SYNC_ON[0] = False
    try:
        return fn()
    finally:
        SYNC_ON[0] = True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1, help="medians of this many runs")
    args = parser.parse_args(argv)
    n = args.items
    server = Dynalite()
    rows = []
    try:
        for run in range(args.runs):
            rows.extend(_run(server, n, run))
    finally:
        server.stop()
    print(f"{n:,} items on dynalite (loopback), median of {args.runs} run(s)")
    print(
        f"{'statement':<22}{'dynosql s':>10}{'boto3 s':>10}{'ratio':>7}"
        f"{'cpu dynosql':>12}{'cpu boto3':>10}{'ratio':>7}{'WCU dynosql':>13}{'WCU boto3':>11}"
        f"{'fsyncs':>8}"
    )
    for label in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == label]
        t_ours, t_raw, c_ours, c_raw = (statistics.median(r[i] for r in mine) for i in (1, 2, 3, 4))
        w_ours, w_raw = mine[0][5], mine[0][6]
        syncs = statistics.median(r[7] for r in mine)
        print(
            f"{label:<22}{t_ours:>10.2f}{t_raw:>10.2f}{t_ours / t_raw:>7.2f}"
            f"{c_ours:>12.2f}{c_raw:>10.2f}{c_ours / c_raw:>7.2f}{w_ours:>13}{w_raw:>11}"
            f"{syncs:>8.0f}"
        )
    return 0


def _run(server: Dynalite, n: int, run: int) -> list[tuple]:
    rows = []
    for row, (label, ours, theirs, preload) in enumerate(
        (
            ("UPDATE", lambda t: dynosql_update(server, t), lambda t: boto3_update(server, t), n),
            (
                "UPDATE (fsync off)",
                lambda t: unsynced(lambda: dynosql_update(server, t)),
                lambda t: boto3_update(server, t),
                n,
            ),
            (
                "INSERT",
                lambda t: dynosql_insert(server, t, n),
                lambda t: boto3_insert(server, t, n),
                0,
            ),
            (
                "UPSERT (no journal)",
                lambda t: dynosql_upsert(server, t, n),
                lambda t: boto3_upsert(server, t, n),
                0,
            ),
        )
    ):
        a, b = f"bench_{row}_{run}a", f"bench_{row}_{run}b"
        fresh(server, a, preload)
        fresh(server, b, preload)
        syncs = FSYNCS[0]
        t_ours, c_ours, w_ours = timed(lambda t=a, f=ours: f(t))
        syncs = FSYNCS[0] - syncs
        t_raw, c_raw, w_raw = timed(lambda t=b, f=theirs: f(t))
        rows.append((label, t_ours, t_raw, c_ours, c_raw, w_ours, w_raw, syncs))
    return rows


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
