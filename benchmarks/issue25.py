"""Issue 25's figures: decoding, whole-process CPU against raw boto3 scripts, memory at 1M items.

    python benchmarks/issue25.py --only decode            # offline, a few seconds
    python benchmarks/issue25.py --only e2e --items 100000 --runs 3
    python benchmarks/issue25.py --only memory --items 100000 --big 1000000
    python benchmarks/issue25.py --only startup --runs 11   # a minute or two

Printed, not written into README.md (benchmarks/README.md records the runs). Every figure is
CPU time from rusage (user + system) unless it says wall: the machine this was written on is
shared with other work, and CPU time moves far less than wall time with the load. The load
average is printed before and after each section.

Sections:
  decode  one Scan page's JSON decoded three ways, offline: `json.loads` + `values.decode_item`
          (what dynosql does), `json.loads` + decoding only the attributes the plan needs
          (`values.decode_item(…, names)`, used on pages that came back unprojected), and
          msgspec (a C decoder that skips unknown fields) into a schema of only those attributes,
          when msgspec is installed. Pages: the key alone (what a projected GROUP BY pk reads),
          whole items of which one or three attributes are needed, whole items all needed.
  e2e     on a dynalite server with `--items` Zipf-keyed items of ~250 bytes: GROUP BY pk as
          `dynosql -e` against a raw paginator + Counter script (whole processes), and in one
          process per item; SHOW HOT KEYS (and WITH SIZES) against the GROUP BY; a jsonl export against
          raw_export.py (whole processes); `dynosql -e` of a keyed lookup against a raw boto3
          GetItem script (whole processes); `dynosql --local -e` (wall).
  memory  GROUP BY pk (1,000 groups) as a whole `dynosql -e` process: peak RSS at `--items`
          and at `--big` items (small items: pk, sk, n), and the raw paginator's beside it.
  startup `dynosql -e "SELECT * FROM t WHERE pk = 'x'"` (a GetItem on a one-item table) against
          a raw boto3 script sending the same GetItem, whole processes, alternating: with the
          script kept parsed on disk by an earlier run (the usual case for a pipeline's `-e` or
          `-f`; also with `--format csv`, which needs no table renderer), and cold (a new empty cache directory each run: the parser and sqlglot load);
          `python -c pass` for the floor; `dynosql --local -q -e …` (wall and CPU). Bytecode is
          compiled first (PYTHONDONTWRITEBYTECODE dropped, one unmeasured run of each), as an
          installed wheel has it. `--before DIR` adds the same `-e` run with the dynosql of DIR
          (`git archive <commit> dynosql | tar -x -C DIR`) in the same alternation.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import LAUNCHER, cli_env, dynosql_cmd  # noqa: E402
from server import Dynalite, create_export_table, export_items  # noqa: E402

RAW_GROUP = """
import collections, sys, boto3
client = boto3.client("dynamodb", endpoint_url=sys.argv[1])
counts = collections.Counter()
for page in client.get_paginator("scan").paginate(TableName=sys.argv[2], ProjectionExpression="pk"):
    for item in page["Items"]:
        counts[item["pk"]["S"]] += 1
for key, n in counts.most_common():
    print(key, n)
"""

RAW_GET = """
import sys, boto3
client = boto3.client("dynamodb", endpoint_url=sys.argv[1])
item = client.get_item(TableName=sys.argv[2], Key={"pk": {"S": sys.argv[3]}, "sk": {"S": sys.argv[4]}})
print(item.get("Item"))
"""


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def usage_of(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS MiB) of one whole process, from the rusage of a
    launcher's child (Linux carries a peak RSS across fork, so the launcher is small)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        probe = LAUNCHER.replace(
            "print(usage.ru_maxrss, file=sys.stderr)",
            "print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime, file=sys.stderr)",
        ).replace("stderr=subprocess.DEVNULL", "stderr=None")  # a failure says why
        done = subprocess.run(
            [sys.executable, "-c", probe, *cmd],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env or cli_env(),
        )
        err.seek(0)
        text = err.read().decode()
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:6]} exited {done.returncode}: {text[-400:]}")
    rss, cpu = text.split()[-2:]
    return float(cpu), wall, int(rss) / 1024


def medians(runs: int, cmd: list[str]) -> tuple[float, float, float]:
    samples = [usage_of(cmd) for _ in range(runs)]
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))  # type: ignore[return-value]


def paired(runs: int, ours: list[str], raw: list[str]) -> dict[str, Any]:
    """Ours and the baseline alternating (A B A B), CPU medians and the median of the ratios."""
    a, b = [], []
    for _ in range(runs):
        a.append(usage_of(ours))
        b.append(usage_of(raw))
    ratios = [x[0] / y[0] for x, y in zip(a, b, strict=True)]
    return {
        "ours_cpu": statistics.median(x[0] for x in a),
        "raw_cpu": statistics.median(y[0] for y in b),
        "ratio": statistics.median(ratios),
        "ours_wall": statistics.median(x[1] for x in a),
        "raw_wall": statistics.median(y[1] for y in b),
    }


# --- decode (offline) ---------------------------------------------------------------------------


def bench_decode(runs: int) -> None:
    from dynosql import values
    from dynosql.dynamo import wire

    items = [values.encode_item(i) for i in export_items(4000)]

    def page(rows: list[dict[str, Any]]) -> bytes:
        return json.dumps({"Items": rows, "Count": len(rows), "ScannedCount": len(rows)}).encode()

    keys_only = page([{"pk": i["pk"]} for i in items] * 8)  # 32,000 keys, ~0.9 MB
    whole = page(items)  # 4,000 items, ~1.6 MB
    cases = [
        ("key only (projected GROUP BY pk), 32k items", keys_only, ("pk",)),
        ("whole items, 1 attribute needed, 4k items", whole, ("pk",)),
        ("whole items, 3 attributes needed, 4k items", whole, ("pk", "sk", "temperature")),
        ("whole items, all needed (SELECT *), 4k items", whole, None),
    ]
    try:
        import msgspec
    except ImportError:
        msgspec = None  # type: ignore[assignment]

    def cpu(fn: Callable[[], Any]) -> float:
        samples = []
        for _ in range(runs):
            started = time.process_time()
            fn()
            samples.append(time.process_time() - started)
        return statistics.median(samples)

    print(f"\n## decode: one page, CPU ms, median of {runs} (load {load()})\n")
    print("| page | json + decode_item | json + decode only needed | msgspec typed + decode |")
    print("|---|---:|---:|---:|")
    for label, body, names in cases:
        full = cpu(lambda body=body: [values.decode_item(i) for i in wire._loads(body)["Items"]])
        some = cpu(
            lambda body=body, names=names: [
                values.decode_item(i, names) for i in wire._loads(body)["Items"]
            ]
        )
        typed = "not installed"
        if msgspec is not None:
            typed = f"{cpu(_msgspec_decoder(msgspec, body, names)) * 1000:.1f}"
        print(f"| {label} | {full * 1000:.1f} | {some * 1000:.1f} | {typed} |")
    print(f"\nload after: {load()}")


def _msgspec_decoder(msgspec: Any, body: bytes, names: tuple[str, ...] | None) -> Callable[[], Any]:
    """A page schema holding only `names` (each value a generic AttributeValue, decoded by
    `values.decode` like every other path), built once; None: whole items."""
    from dynosql import values

    if names is None:
        generic = msgspec.json.Decoder(dict[str, Any])
        return lambda: [values.decode_item(i) for i in generic.decode(body)["Items"]]
    fields = [(f"f{i}", dict[str, Any] | None, None) for i in range(len(names))]
    item = msgspec.defstruct("Item", fields, rename={f"f{i}": n for i, n in enumerate(names)})
    schema = msgspec.defstruct("Page", [("Items", list[item], []), ("Count", int, 0)])
    decoder = msgspec.json.Decoder(schema)
    astuple = msgspec.structs.astuple
    decode = values.decode

    def go() -> Any:
        return [
            {n: decode(v) for n, v in zip(names, astuple(it), strict=True) if v is not None}
            for it in decoder.decode(body).Items
        ]

    return go


# --- end to end (dynalite) ----------------------------------------------------------------------


def bench_e2e(server: Dynalite, runs: int, items: int) -> None:
    import resource

    from dynosql.session import Session, make_client

    client = server.client()
    print(f"loading {items:,} items ... (load {load()})", file=sys.stderr)
    started = time.perf_counter()
    create_export_table(client, "speed", items)
    print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr)
    url = server.url
    group = "SELECT pk, COUNT(*) AS n FROM speed GROUP BY pk"
    print(f"\n## end to end: {items:,} items on dynalite, medians of {runs} (load {load()})\n")

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        raw_group = Path(tmp, "raw_group.py")
        raw_group.write_text(RAW_GROUP)
        raw_get = Path(tmp, "raw_get.py")
        raw_get.write_text(RAW_GET)
        base = ["--endpoint-url", url, "-q", "--format", "csv"]
        figures["group"] = paired(
            runs, dynosql_cmd(*base, "-e", group), [sys.executable, str(raw_group), url, "speed"]
        )
        figures["export"] = paired(
            runs,
            dynosql_cmd(*base[:3], "--format", "jsonl", "-e", "SELECT * FROM speed"),
            [sys.executable, str(HERE / "raw_export.py"), url, "speed"],
        )
        one = client.scan(TableName="speed", Limit=1)["Items"][0]
        pk, sk = one["pk"]["S"], one["sk"]["S"]
        lookup = f"SELECT * FROM speed WHERE pk = '{pk}' AND sk = '{sk}'"
        figures["get"] = paired(
            max(runs, 5),
            dynosql_cmd(*base, "-e", lookup),
            [sys.executable, str(raw_get), url, "speed", pk, sk],
        )
    local_sql = "SELECT PK, SK FROM audit WHERE PK = 'ACTOR#ivan.petrov' LIMIT 3"
    local = [usage_of(dynosql_cmd("--local", "-q", "-e", local_sql)) for _ in range(runs)]

    # in one process: per item, the GROUP BY against the paginator + Counter; SHOW HOT KEYS
    import collections

    session = Session(make_client(endpoint_url=url, credentials=("bench", "bench")))
    raw = make_client(endpoint_url=url, credentials=("bench", "bench"))

    def cpu_now() -> float:
        u = resource.getrusage(resource.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime

    def timed(fn: Callable[[], Any]) -> float:
        gc.collect()  # each starts clean of the garbage the one before it left (not timed)
        started = cpu_now()
        fn()
        return cpu_now() - started

    def paginate() -> None:
        counts: collections.Counter[str] = collections.Counter()
        for page in raw.get_paginator("scan").paginate(
            TableName="speed", ProjectionExpression="pk"
        ):
            for item in page["Items"]:
                counts[item["pk"]["S"]] += 1

    ours_in: list[float] = []
    raw_in: list[float] = []
    hot: list[float] = []
    hot_sized: list[float] = []
    measures: list[tuple[list[float], Callable[[], Any]]] = [
        (ours_in, lambda: session.execute(group).all()),
        (raw_in, paginate),
        (hot, lambda: session.execute("SHOW HOT KEYS FROM speed LIMIT 20").all()),
        (hot_sized, lambda: session.execute("SHOW HOT KEYS FROM speed WITH SIZES LIMIT 20").all()),
    ]
    # a fifth of a second each: more rounds than the whole processes, each in another order,
    # so that no measurement always follows the same one (what it left behind costs the next)
    for round_ in range(max(3 * runs, 9)):
        for into, fn in measures[round_ % 4 :] + measures[: round_ % 4]:
            into.append(timed(fn))
    g = figures["group"]
    rows = [
        ("GROUP BY pk, whole process (CPU)", g, "≤ 0.5x"),
        ("jsonl export, whole process (CPU)", figures["export"], "≤ 0.5x"),
        ("`-e` keyed lookup, whole process (CPU)", figures["get"], "≤ 1.2x"),
    ]
    print("| measurement | dynosql | raw boto3 script | ratio (median of pairs) | goal |")
    print("|---|---:|---:|---:|---:|")
    for label, f, goal in rows:
        print(
            f"| {label} | {f['ours_cpu']:.3f} s | {f['raw_cpu']:.3f} s | {f['ratio']:.2f}x | {goal} |"
        )
    per_ours = statistics.median(ours_in) / items * 1e6
    per_raw = statistics.median(raw_in) / items * 1e6
    print(
        f"| GROUP BY pk in one process, per item | {per_ours:.2f} µs | {per_raw:.2f} µs | "
        f"{per_ours / per_raw:.2f}x | ≤ 0.25x |"
    )
    hot_ratio = statistics.median(hot) / statistics.median(ours_in)
    print(
        f"| SHOW HOT KEYS vs the GROUP BY, one process | {statistics.median(hot):.3f} s | "
        f"{statistics.median(ours_in):.3f} s | {hot_ratio:.2f}x | ≤ 1.0x |"
    )
    sized_ratio = statistics.median(hot_sized) / statistics.median(ours_in)
    print(
        f"| SHOW HOT KEYS WITH SIZES (whole items) vs the GROUP BY, one process | "
        f"{statistics.median(hot_sized):.3f} s | {statistics.median(ours_in):.3f} s | "
        f"{sized_ratio:.2f}x | |"
    )
    print(
        f"| `dynosql --local -q -e …` (wall; CPU {statistics.median(x[0] for x in local):.2f} s) "
        f"| {statistics.median(x[1] for x in local):.2f} s | | | ≤ 1.0 s idle |"
    )
    print(
        f"\nwall medians: GROUP BY {g['ours_wall']:.2f} s vs {g['raw_wall']:.2f} s; load after: {load()}"
    )


# --- start-up ----------------------------------------------------------------------------------

# `python -m dynosql` with another tree's package first on sys.path (argv[1]: that tree)
BEFORE = "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); runpy.run_module('dynosql', run_name='__main__')"

RAW_GET_ONE = """
import sys, boto3
client = boto3.client("dynamodb", endpoint_url=sys.argv[1])
item = client.get_item(TableName=sys.argv[2], Key={"pk": {"S": sys.argv[3]}})
print(item.get("Item"))
"""


def bench_startup(server: Dynalite, runs: int, before: str | None = None) -> None:
    client = server.client()
    from dynosql.dynamo import loader

    table = "startup"
    loader.create_table(
        client,
        {
            "TableName": table,
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    client.put_item(TableName=table, Item={"pk": {"S": "x"}, "n": {"N": "1"}, "s": {"S": "hi"}})
    sql = f"SELECT * FROM {table} WHERE pk = 'x'"
    env = cli_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed wheel has its bytecode compiled
    with tempfile.TemporaryDirectory() as tmp:
        raw_get = Path(tmp, "raw_get.py")
        raw_get.write_text(RAW_GET_ONE)
        kept_env = {**env, "XDG_CACHE_HOME": str(Path(tmp, "kept"))}
        ours = dynosql_cmd("--endpoint-url", server.url, "-e", sql)
        raw = [sys.executable, str(raw_get), server.url, table, "x"]
        floor = [sys.executable, "-c", "pass"]
        local_sql = "SELECT PK, SK FROM audit WHERE PK = 'ACTOR#ivan.petrov' LIMIT 3"
        local = dynosql_cmd("--local", "-q", "-e", local_sql)
        csv = dynosql_cmd("--endpoint-url", server.url, "--format", "csv", "-e", sql)
        commands = {"raw": raw, "kept": ours, "csv": csv, "floor": floor}
        if before:
            commands["before"] = [sys.executable, "-c", BEFORE, before, *ours[3:]]
        for cmd in (*commands.values(), local):  # bytecode written, the parse kept
            usage_of(cmd, kept_env)
        print(f"\n## start-up: one GetItem as a whole process, medians of {runs} (load {load()})\n")
        samples: dict[str, list[tuple[float, float, float]]] = {
            k: [] for k in (*commands, "cold", "local")
        }
        for i in range(runs):  # alternating, so that a change of load hits every command alike
            for key, cmd in commands.items():
                samples[key].append(usage_of(cmd, kept_env))
            cold_env = {**env, "XDG_CACHE_HOME": str(Path(tmp, f"cold{i}"))}
            samples["cold"].append(usage_of(ours, cold_env))
            if i < max(3, runs // 3):
                samples["local"].append(usage_of(local, kept_env))

    def cpu(key: str) -> float:
        return statistics.median(x[0] for x in samples[key])

    def ratio(key: str) -> float:
        pairs = zip(samples[key], samples["raw"], strict=False)
        return statistics.median(a[0] / b[0] for a, b in pairs)

    print("| command | CPU (median) | ratio to the boto3 script (median of pairs) | goal |")
    print("|---|---:|---:|---:|")
    print(f"| raw boto3 script: `boto3.client(...).get_item(...)` | {cpu('raw'):.3f} s | 1.00x | |")
    print(
        f"| `dynosql -e`, the script kept parsed (a run before) | {cpu('kept'):.3f} s | {ratio('kept'):.2f}x | ≤ 1.2x |"
    )
    print(
        f"| the same, `--format csv` (no table renderer: tabulate, wcwidth) | {cpu('csv'):.3f} s | {ratio('csv'):.2f}x | |"
    )
    print(
        f"| `dynosql -e`, cold (parsed: sqlglot loaded) | {cpu('cold'):.3f} s | {ratio('cold'):.2f}x | |"
    )
    if before:
        print(
            f"| `dynosql -e` of `--before` ({before}) | {cpu('before'):.3f} s | {ratio('before'):.2f}x | |"
        )
    print(f"| `python -c pass` | {cpu('floor'):.3f} s | | |")
    local_wall = statistics.median(x[1] for x in samples["local"])
    print(
        f"| `dynosql --local -q -e …` ({len(samples['local'])} runs) | {cpu('local'):.2f} s "
        f"(wall {local_wall:.2f} s) | | ≤ 1.0 s wall, idle |"
    )
    print(f"\nload after: {load()}")


# --- memory ----------------------------------------------------------------------------------------


def small_items(n: int, groups: int = 1000, seed: int = 3) -> Iterator[dict[str, Any]]:
    """`n` small items over `groups` partition keys, Zipf-like (key k has weight 1/(k+1))."""
    rng = random.Random(seed)
    weights = [1 / (k + 1) for k in range(groups)]
    keys = rng.choices(range(groups), weights, k=n)
    for i, k in enumerate(keys):
        yield {"pk": f"k{k:04d}", "sk": f"{i:08d}", "n": Decimal(i % 997)}


def load_small(client: Any, table: str, n: int) -> None:
    from server import EXPORT_TABLE

    from dynosql.dynamo import loader
    from dynosql.values import encode_item

    loader.create_table(client, {"TableName": table, **EXPORT_TABLE})
    batch: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = []
        for item in small_items(n):
            batch.append({"PutRequest": {"Item": encode_item(item)}})
            if len(batch) == 25:
                futures.append(pool.submit(loader.write_batch, client, table, batch))
                batch = []
            if len(futures) > 64:
                futures.pop(0).result()
        if batch:
            futures.append(pool.submit(loader.write_batch, client, table, batch))
        for f in futures:
            f.result()


def bench_memory(server: Dynalite, runs: int, items: int, big: int) -> None:
    client = server.client()
    for name, n in (("small", items), ("big", big)):
        print(f"loading {name} ({n:,} items) ... (load {load()})", file=sys.stderr)
        started = time.perf_counter()
        load_small(client, name, n)
        print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(f"\n## memory: GROUP BY pk (1,000 groups), peak RSS, medians of {runs} (load {load()})\n")
    with tempfile.TemporaryDirectory() as tmp:
        raw_group = Path(tmp, "raw_group.py")
        raw_group.write_text(RAW_GROUP)
        print("| | dynosql peak RSS | dynosql CPU | raw script peak RSS | raw CPU |")
        print("|---|---:|---:|---:|---:|")
        peaks = {}
        for name, n in (("small", items), ("big", big)):
            sql = f"SELECT pk, COUNT(*) AS n FROM {name} GROUP BY pk"
            ours = medians(
                runs,
                dynosql_cmd("--endpoint-url", server.url, "-q", "--deadline", "300", "-e", sql),
            )
            raw = medians(runs, [sys.executable, str(raw_group), server.url, name])
            peaks[name] = ours[2]
            print(
                f"| {n:,} items | {ours[2]:.1f} MiB | {ours[0]:.2f} s | {raw[2]:.1f} MiB | {raw[0]:.2f} s |"
            )
    print(
        f"\npeak at {big:,} / at {items:,}: {peaks['big'] / peaks['small']:.2f}x (goal ≤ 1.2x); load after: {load()}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="decode,e2e,memory,startup")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--before", metavar="DIR", help="startup: also run the dynosql of DIR")
    args = parser.parse_args()
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    print(
        f"python {sys.version.split()[0]}; load at start {load()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    if "decode" in chosen:
        bench_decode(max(args.runs, 5))
    if {"e2e", "memory", "startup"} & set(chosen):
        server = Dynalite()
        try:
            if "startup" in chosen:
                bench_startup(server, args.runs, args.before)
            if "e2e" in chosen:
                bench_e2e(server, args.runs, args.items)
            if "memory" in chosen:
                bench_memory(server, args.runs, args.items, args.big)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
