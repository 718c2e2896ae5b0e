"""COPY against hand-written boto3, on a dynalite server this script starts and stops.

    python benchmarks/copy_bench.py [--to-items 100000] [--from-items 50000] [--runs 3]

1. COPY t TO 'x.jsonl' (in-process ``Session.execute``) against a raw boto3 Scan paginator
   writing JSON lines (``raw_export.to_json``). Goal: within 1.2x. Memory: the tracemalloc peak
   of COPY TO (one segment) of the table and of one a third its size: flat means the peak does
   not grow with the row count (it is bounded by the pages in flight and the executor's queue).
2. COPY t FROM 'x.json' FORMAT dynamodb against a hand-written loop over the same file
   (json.loads of each line, base64 for binary, BatchWriteItem 25 a call, UnprocessedItems
   retried), with the undo journal off (the same calls as the loop) and on: into a fresh
   table (one Scan says it is empty: nothing else is read) and into one that already holds
   every key (a consistent BatchGetItem of each batch's keys first, every item journaled as an
   overwrite). Each run loads into a fresh table.

The machine may be shared: each measure is wall time and this process's CPU (user + system,
from rusage: the client's work, not the server's), ours and the baseline alternating, medians
of ``--runs``; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
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
from run import cpu_seconds  # noqa: E402
from server import Dynalite, create_export_table  # noqa: E402

from dynosql.session import Session  # noqa: E402
from dynosql.settings import Settings  # noqa: E402


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


def measured(fn: Any) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds of one call."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def row(what: str, ours: tuple[float, float], base: tuple[float, float]) -> str:
    """A Markdown row: wall and CPU, ours and the baseline's, and the ratios."""
    return (
        f"| {what} | {ours[0]:.2f} s | {base[0]:.2f} s | {ours[0] / base[0]:.2f}x "
        f"| {ours[1]:.2f} s | {base[1]:.2f} s | {ours[1] / base[1]:.2f}x |"
    )


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


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
    parser.add_argument("--skip-to", action="store_true", help="only COPY FROM")
    args = parser.parse_args()
    server = Dynalite()
    work = Path(tempfile.mkdtemp(prefix="dynosql-copy-bench-"))
    rows: list[str] = []
    try:
        client = server.client()
        journal = Settings(journal_dir=str(work / "journal"))
        session = Session(server.client(), settings=journal)
        session.confirm = lambda question: True
        print(f"loading {args.to_items} items …", flush=True)
        create_export_table(client, "copy_src", args.to_items)
        out = work / "out.jsonl"
        if not args.skip_to:
            ours, raw = [], []
            for _ in range(args.runs):
                ours.append(measured(lambda: session.execute(f"COPY copy_src TO '{out}'").all()))
                raw.append(measured(lambda: raw_copy_to(client, "copy_src", work / "raw.jsonl")))
                print(f"  COPY TO run: ours {ours[-1]}, raw {raw[-1]} (load {load_average()})")
            lines = sum(1 for _ in open(out, encoding="utf-8"))
            rows.append(
                row(f"COPY TO {lines:,} items vs boto3 paginator", *map(medians, (ours, raw)))
            )
            third = args.to_items // 3
            create_export_table(client, "copy_third", third)
            session.set("segments", "1")  # the same reader for both: only the row count differs
            small = peak_bytes(
                lambda: session.execute(f"COPY copy_third TO '{work / 'small.jsonl'}'").all()
            )
            full = peak_bytes(lambda: session.execute(f"COPY copy_src TO '{out}'").all())
            session.set("segments", "auto")
            rows.append(
                f"| COPY TO peak Python memory (1 segment), {third:,} vs {args.to_items:,} items "
                f"| {small / 1e6:.1f} MB | {full / 1e6:.1f} MB | {full / small:.2f}x | | | |"
            )

        source = work / "load.json"
        session.execute(
            f"COPY (SELECT * FROM copy_src LIMIT {args.from_items}) TO '{source}' FORMAT dynamodb"
        ).all()
        copy = f"FROM '{source}' FORMAT dynamodb"
        off, on, over, raw = [], [], [], []
        for run in range(args.runs):
            for name, results, journal_dir in (
                (f"off{run}", off, "off"),
                (f"raw{run}", raw, None),
                (f"on{run}", on, str(work / "journal")),
                (f"over{run}", over, str(work / "journal")),
            ):
                session.execute(f"CREATE TABLE {name} (pk S, sk S, PRIMARY KEY (pk, sk))").all()
                if results is over:  # every key exists: every batch is read for the journal
                    raw_copy_from(client, name, source)
                if journal_dir is None:
                    results.append(measured(lambda n=name: raw_copy_from(client, n, source)))
                else:
                    session.set("journal_dir", journal_dir)
                    results.append(
                        measured(lambda n=name: session.execute(f"COPY {n} {copy}").all())
                    )
                session.execute(f"DROP TABLE {name}").all()
            print(
                f"  COPY FROM run: off {off[-1]}, raw {raw[-1]}, on {on[-1]}, "
                f"over {over[-1]} (load {load_average()})"
            )
        n = f"{args.from_items:,}"
        base = medians(raw)
        rows.append(
            row(f"COPY FROM {n} items, journal off, vs BatchWriteItem loop", medians(off), base)
        )
        rows.append(row(f"COPY FROM {n} items, journal on, empty table", medians(on), base))
        rows.append(
            row(f"COPY FROM {n} items, journal on, every key overwritten", medians(over), base)
        )
    finally:
        server.stop()
    print(f"\nload average at the end: {load_average()} ({os.cpu_count()} cores)")
    print("| measure | dynosql wall | baseline wall | ratio | dynosql CPU | baseline CPU | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
