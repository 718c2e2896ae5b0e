"""COPY against hand-written boto3, on a dynalite server this script starts and stops.

    python benchmarks/copy_bench.py [--to-items 100000] [--from-items 50000] [--runs 3]

1. COPY t TO 'x.jsonl' (in-process ``Session.execute``) against a raw boto3 Scan paginator
   writing JSON lines (``raw_export.to_json``). Goal: within 1.2x. Memory: the tracemalloc peak
   of COPY TO (one segment) of the table and of one a third its size: flat means the peak does
   not grow with the row count (it is bounded by the pages in flight and the executor's queue).
2. COPY t FROM 'x.json' FORMAT dynamodb against a hand-written loop over the same file
   (json.loads of each line, base64 for binary, BatchWriteItem 25 a call, UnprocessedItems
   retried). Each run loads into a fresh table.

Timings are medians of ``--runs``; numbers depend on the machine and what else runs on it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from raw_export import to_json  # noqa: E402
from server import Dynalite, create_export_table  # noqa: E402

from dynosql.session import Session  # noqa: E402


def raw_copy_to(client: Any, table: str, path: Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for page in client.get_paginator("scan").paginate(TableName=table):
            for item in page["Items"]:
                out.write(to_json({"M": item}) + "\n")
                n += 1
    return n


def raw_copy_from(client: Any, table: str, path: Path) -> int:
    """What a careful person writes by hand: DynamoDB JSON lines straight into BatchWriteItem."""
    import base64

    def wire(value: dict) -> dict:
        ((kind, v),) = value.items()
        if kind == "B":
            return {"B": base64.b64decode(v)}
        if kind == "BS":
            return {"BS": [base64.b64decode(x) for x in v]}
        if kind == "L":
            return {"L": [wire(x) for x in v]}
        if kind == "M":
            return {"M": {k: wire(x) for k, x in v.items()}}
        return value

    def send(batch: list[dict]) -> None:
        pending = batch
        while pending:
            answer = client.batch_write_item(RequestItems={table: pending})
            pending = (answer.get("UnprocessedItems") or {}).get(table) or []

    n = 0
    batch: list[dict] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            item = json.loads(line)["Item"]
            batch.append({"PutRequest": {"Item": {k: wire(v) for k, v in item.items()}}})
            if len(batch) == 25:
                send(batch)
                n += 25
                batch = []
    if batch:
        send(batch)
        n += len(batch)
    return n


def timed(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def peak_bytes(fn: Any) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--to-items", type=int, default=100_000)
    parser.add_argument("--from-items", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    server = Dynalite()
    work = Path(tempfile.mkdtemp(prefix="dynosql-copy-bench-"))
    try:
        client = server.client()
        session = Session(server.client())
        session.confirm = lambda question: True
        print(f"loading {args.to_items} items …", flush=True)
        create_export_table(client, "copy_src", args.to_items)
        out = work / "out.jsonl"
        ours = [timed(lambda: session.execute(f"COPY copy_src TO '{out}'").all())]
        raw = [timed(lambda: raw_copy_to(client, "copy_src", work / "raw.jsonl"))]
        for _ in range(args.runs - 1):
            ours.append(timed(lambda: session.execute(f"COPY copy_src TO '{out}'").all()))
            raw.append(timed(lambda: raw_copy_to(client, "copy_src", work / "raw.jsonl")))
        t_ours, t_raw = statistics.median(ours), statistics.median(raw)
        lines = sum(1 for _ in open(out, encoding="utf-8"))
        print(
            f"COPY TO {lines} items: dynosql {t_ours:.2f}s, raw boto3 {t_raw:.2f}s "
            f"→ {t_ours / t_raw:.2f}x (goal ≤ 1.2x)"
        )
        third = args.to_items // 3
        create_export_table(client, "copy_third", third)
        session.set("segments", "1")  # the same reader for both: only the row count differs
        small = peak_bytes(
            lambda: session.execute(f"COPY copy_third TO '{work / 'small.jsonl'}'").all()
        )
        full = peak_bytes(lambda: session.execute(f"COPY copy_src TO '{out}'").all())
        session.set("segments", "auto")
        print(
            f"COPY TO peak Python memory (1 segment): {third} rows {small / 1e6:.1f} MB, "
            f"{args.to_items} rows {full / 1e6:.1f} MB (flat: about equal)"
        )

        source = work / "load.json"
        session.execute(
            f"COPY (SELECT * FROM copy_src LIMIT {args.from_items}) TO '{source}' FORMAT dynamodb"
        ).all()
        ours, raw = [], []
        for run in range(args.runs):
            for name, results, load in (
                (f"ours{run}", ours, None),
                (f"raw{run}", raw, raw_copy_from),
            ):
                session.execute(f"CREATE TABLE {name} (pk S, sk S, PRIMARY KEY (pk, sk))").all()
                if load is None:
                    results.append(
                        timed(
                            lambda n=name: session.execute(
                                f"COPY {n} FROM '{source}' FORMAT dynamodb"
                            ).all()
                        )
                    )
                else:
                    results.append(timed(lambda n=name, f=load: f(client, n, source)))
                session.execute(f"DROP TABLE {name}").all()
        t_ours, t_raw = statistics.median(ours), statistics.median(raw)
        print(
            f"COPY FROM {args.from_items} items: dynosql {t_ours:.2f}s, hand-written loop "
            f"{t_raw:.2f}s → {t_ours / t_raw:.2f}x"
        )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
