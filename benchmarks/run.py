"""dynosql's benchmarks, side by side with raw boto3, on a dynalite server on loopback.

    python benchmarks/run.py            # everything, results into benchmarks/README.md
    python benchmarks/run.py --only read,plan --runs 3 --no-write

Sections (see benchmarks/README.md for what each measures and its goal):
  read     consumed capacity per access pattern: dynosql vs hand-optimal boto3 requests
  export   SELECT * --format jsonl of a 20k-item table vs a raw boto3 Scan paginator
  plan     milliseconds to parse and plan each statement of a script of several hundred
  memory   peak RSS of a 20k-row export vs a 2k-row export
  startup  `dynosql --version` and `dynosql --local -e ...` wall time
  retry    how long a statement takes to fail when every call fails (real backoff)
  speed    client CPU of GROUP BY pk, SHOW HOT KEYS, --segments 8, a jsonl export and a point
           lookup over a 100k-item table, against raw boto3 and against the botocore parser
           (before dynosql/dynamo/wire.py); --local start-up with and without the direct load

The script starts its own dynalite (node_modules/dynalite, in memory) and stops it at the end.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import json
import os
import platform
import pstats
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))  # faultproxy, for the retry section

from server import CREDENTIALS, REGION, Dynalite, create_export_table  # noqa: E402

README = HERE / "README.md"
SPEED_SMALL = "speed_small"  # a fifth of the speed table, for the memory figure
START, END = "<!-- results:start -->", "<!-- results:end -->"
SECTIONS = ("read", "export", "plan", "memory", "startup", "retry", "speed")


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(CREDENTIALS)
    env.update(AWS_REGION=REGION, AWS_DEFAULT_REGION=REGION, AWS_EC2_METADATA_DISABLED="true")
    env.update(PYTHONIOENCODING="utf-8")
    return env


def dynosql_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "dynosql", *args]


def median_of(runs: int, fn: Callable[[], float]) -> tuple[float, list[float]]:
    samples = [fn() for _ in range(runs)]
    return statistics.median(samples), samples


def wall(cmd: list[str], stdout: Any = subprocess.DEVNULL, env: dict | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env or cli_env())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])}... failed: {done.stderr.decode()[-500:]}")
    return elapsed


# Linux carries a process's peak RSS across fork and exec, so a child started from this (large)
# process would report at least our own peak. A small launcher forks the command instead and
# reports the wait4 rusage of that grandchild, whose peak starts from the launcher's ~10 MB.
LAUNCHER = (
    "import os, subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(p.pid, 0)\n"
    "print(usage.ru_maxrss, file=sys.stderr)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def peak_rss_mb(cmd: list[str], env: dict | None = None) -> float:
    """Peak resident memory of one run of ``cmd``, in MiB (Linux rusage is in KiB)."""
    with open(os.devnull, "wb") as sink:
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, *cmd],
            stdout=sink,
            stderr=subprocess.PIPE,
            env=env or cli_env(),
        )
    if done.returncode != 0:
        raise RuntimeError(f"{cmd} exited {done.returncode}")
    return int(done.stderr.split()[-1]) / 1024


def ratio_text(value: float, goal: str, ok: bool) -> str:
    return f"{value:.2f}x {'✅' if ok else '❌'} (goal {goal})"


# --- 1. read cost -------------------------------------------------------------------------------


def _capacity(response: dict) -> Decimal:
    consumed = response.get("ConsumedCapacity")
    if not consumed:
        return Decimal(0)
    if isinstance(consumed, list):
        return sum((Decimal(str(c.get("CapacityUnits", 0))) for c in consumed), Decimal(0))
    return Decimal(str(consumed.get("CapacityUnits", 0)))


def _pages(client: Any, method: str, **kwargs: Any) -> tuple[Decimal, int]:
    """Every page of a Query/Scan: total capacity and items returned."""
    kwargs["ReturnConsumedCapacity"] = "TOTAL"
    capacity, items = Decimal(0), 0
    while True:
        page = getattr(client, method)(**kwargs)
        capacity += _capacity(page)
        items += page.get("Count", 0) if kwargs.get("Select") == "COUNT" else len(page["Items"])
        if not page.get("LastEvaluatedKey"):
            return capacity, items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _s(value: str) -> dict:
    return {"S": value}


def read_patterns() -> list[tuple[str, str, Callable[[Any], tuple[Decimal, int]]]]:
    """(pattern, SQL, the hand-optimal boto3 requests → (capacity, rows))."""

    def get(c: Any) -> tuple[Decimal, int]:
        key = {"PK": _s("ACTOR#ana.silva"), "SK": _s("EVT#2026-03-01T06:56:13.455Z")}
        r = c.get_item(TableName="audit", Key=key, ReturnConsumedCapacity="TOTAL")
        return _capacity(r), int("Item" in r)

    def batch(c: Any) -> tuple[Decimal, int]:
        paths = ["root/documents/cv.pdf", "root/documents/lease.pdf", "root/documents/budget.xlsx"]
        keys = [{"PK": _s("DRIVE#alice"), "SK": _s(p)} for p in paths]
        r = c.batch_get_item(RequestItems={"drive": {"Keys": keys}}, ReturnConsumedCapacity="TOTAL")
        return _capacity(r), len(r["Responses"]["drive"])

    def subtree(c: Any) -> tuple[Decimal, int]:
        return _pages(
            c,
            "query",
            TableName="drive",
            KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
            ExpressionAttributeValues={":p": _s("DRIVE#alice"), ":s": _s("root/photos/")},
        )

    def newest(c: Any) -> tuple[Decimal, int]:
        r = c.query(
            TableName="audit",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": _s("ACTOR#svc-backup")},
            ScanIndexForward=False,
            Limit=10,
            ReturnConsumedCapacity="TOTAL",
        )
        return _capacity(r), len(r["Items"])

    def count_partition(c: Any) -> tuple[Decimal, int]:
        capacity, count = _pages(
            c,
            "query",
            TableName="audit",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": _s("ACTOR#svc-backup")},
            Select="COUNT",
        )
        return capacity, 1 if count else 0

    def gsi(c: Any) -> tuple[Decimal, int]:
        return _pages(
            c,
            "query",
            TableName="tenants",
            IndexName="gsi1",
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": _s("STATUS#open")},
        )

    def gsi_include(c: Any) -> tuple[Decimal, int]:
        return _pages(
            c,
            "query",
            TableName="sensors",
            IndexName="by_region",
            KeyConditionExpression="#r = :r",
            ExpressionAttributeNames={"#r": "region"},
            ExpressionAttributeValues={":r": _s("eu-west")},
        )

    def lsi(c: Any) -> tuple[Decimal, int]:
        return _pages(
            c,
            "query",
            TableName="drive",
            IndexName="by_modified",
            KeyConditionExpression="PK = :p AND modified >= :m",
            ExpressionAttributeValues={":p": _s("DRIVE#alice"), ":m": _s("2026-06-01")},
        )

    def keys_only_fetch(c: Any) -> tuple[Decimal, int]:
        r = c.query(
            TableName="drive",
            IndexName="by_modified",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": _s("DRIVE#alice")},
            ScanIndexForward=False,
            Limit=5,
            ReturnConsumedCapacity="TOTAL",
        )
        keys = [{"PK": i["PK"], "SK": i["SK"]} for i in r["Items"]]
        b = c.batch_get_item(RequestItems={"drive": {"Keys": keys}}, ReturnConsumedCapacity="TOTAL")
        return _capacity(r) + _capacity(b), len(b["Responses"]["drive"])

    def in_keys(c: Any) -> tuple[Decimal, int]:
        total, rows = Decimal(0), 0
        for actor in ("ivan.petrov", "julia.romero", "kofi.mensah"):
            capacity, n = _pages(
                c,
                "query",
                TableName="audit",
                KeyConditionExpression="PK = :p",
                ExpressionAttributeValues={":p": _s(f"ACTOR#{actor}")},
            )
            total, rows = total + capacity, rows + n
        return total, rows

    def scan_filter(c: Any) -> tuple[Decimal, int]:
        return _pages(
            c,
            "scan",
            TableName="audit",
            FilterExpression="#a = :a",
            ExpressionAttributeNames={"#a": "action"},
            ExpressionAttributeValues={":a": _s("delete")},
        )

    def group_by(c: Any) -> tuple[Decimal, int]:
        capacity, _ = _pages(c, "scan", TableName="sensors", ProjectionExpression="deviceId")
        return capacity, 40

    return [
        ("key lookup (GetItem)",
         "SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva' AND SK = 'EVT#2026-03-01T06:56:13.455Z'",
         get),
        ("sort-key IN (BatchGetItem)",
         "SELECT * FROM drive WHERE PK = 'DRIVE#alice' AND SK IN ('root/documents/cv.pdf', "
         "'root/documents/lease.pdf', 'root/documents/budget.xlsx')", batch),
        ("subtree begins_with",
         "SELECT * FROM drive WHERE PK = 'DRIVE#alice' AND SK LIKE 'root/photos/%'", subtree),
        ("newest-N",
         "SELECT * FROM audit WHERE PK = 'ACTOR#svc-backup' ORDER BY SK DESC LIMIT 10", newest),
        ("COUNT(*) of a partition",
         "SELECT COUNT(*) FROM audit WHERE PK = 'ACTOR#svc-backup'", count_partition),
        ("sparse GSI (picked by the planner)",
         "SELECT * FROM tenants WHERE gsi1pk = 'STATUS#open' AND attribute_exists(gsi1sk)", gsi),
        ("GSI INCLUDE, covered",
         "SELECT deviceId, readingTs, temperature FROM sensors.by_region WHERE region = 'eu-west'",
         gsi_include),
        ("LSI (picked by the planner)",
         "SELECT PK, SK, modified FROM drive WHERE PK = 'DRIVE#alice' AND modified >= '2026-06-01'",
         lsi),
        ("keys-only index + fetch",
         "SELECT * FROM drive.by_modified WHERE PK = 'DRIVE#alice' ORDER BY modified DESC LIMIT 5",
         keys_only_fetch),
        ("IN on the partition key",
         "SELECT * FROM audit WHERE PK IN ('ACTOR#ivan.petrov', 'ACTOR#julia.romero', "
         "'ACTOR#kofi.mensah')", in_keys),
        ("scan + filter",
         "SELECT PK, SK FROM audit WHERE action = 'delete'", scan_filter),
        ("GROUP BY (hot keys)",
         "SELECT deviceId, COUNT(*) AS n FROM sensors GROUP BY deviceId", group_by),
    ]  # fmt: skip


def bench_read(server: Dynalite, runs: int) -> dict:
    from dynosql.session import Session

    client = server.client()
    rows_out = []
    for pattern, sql, raw in read_patterns():
        session = Session(server.client())
        result = session.execute(sql)
        n = len(result.all())
        ours_capacity = result.stats.capacity
        raw_capacity, raw_rows = raw(client)

        def ours_time(sql: str = sql) -> float:
            s = Session(server.client())
            t = time.perf_counter()
            s.execute(sql).all()
            return time.perf_counter() - t

        def raw_time(raw: Callable = raw) -> float:
            t = time.perf_counter()
            raw(client)
            return time.perf_counter() - t

        ours_ms, _ = median_of(runs, ours_time)
        raw_ms, _ = median_of(runs, raw_time)
        ratio = float(ours_capacity / raw_capacity) if raw_capacity else float("nan")
        rows_out.append(
            {
                "pattern": pattern,
                "sql": sql,
                "operation": ", ".join(result.stats.operations),
                "rows": n,
                "raw_rows": raw_rows,
                "ours": str(ours_capacity.normalize()),
                "raw": str(raw_capacity.normalize()),
                "ratio": ratio,
                "ours_ms": ours_ms * 1000,
                "raw_ms": raw_ms * 1000,
            }
        )
    return {"patterns": rows_out}


# --- 2. export throughput and 4. streaming memory ------------------------------------------------


def _same_lines(ours: Path, raw: Path) -> bool:
    def load(path: Path) -> list:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line, parse_float=Decimal, parse_int=Decimal) for line in f]
        return sorted(rows, key=lambda r: (r["pk"], r["sk"]))

    return load(ours) == load(raw)


def bench_export(server: Dynalite, runs: int, table: str, items: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="dynosql-bench-"))
    ours_cmd = dynosql_cmd("--endpoint-url", server.url, "--format", "jsonl", "-q")
    ours_cmd += ["-e", f"SELECT * FROM {table}"]
    raw_cmd = [sys.executable, str(HERE / "raw_export.py"), server.url, table]

    def timed(cmd: list[str], out: Path) -> Callable[[], float]:
        def go() -> float:
            with open(out, "wb") as f:
                return wall(cmd, stdout=f)

        return go

    # alternate the two so that drifting load hits both alike
    ours_samples, raw_samples = [], []
    for _ in range(runs):
        ours_samples.append(timed(ours_cmd, tmp / "ours.jsonl")())
        raw_samples.append(timed(raw_cmd, tmp / "raw.jsonl")())
    same = _same_lines(tmp / "ours.jsonl", tmp / "raw.jsonl")
    ours, raw = statistics.median(ours_samples), statistics.median(raw_samples)
    startup = statistics.median(wall(dynosql_cmd("--version")) for _ in range(3))
    size = (tmp / "ours.jsonl").stat().st_size
    result = {
        "items": items,
        "bytes": size,
        "ours_s": ours,
        "raw_s": raw,
        "ratio": ours / raw,
        "same_output": same,
        "ours_samples": ours_samples,
        "raw_samples": raw_samples,
        "version_s": startup,
    }
    result["in_process"] = export_in_process(server, runs, table)
    if ours / raw > 1.2:
        result["profile"] = profile_export(server, table)
    return result


def export_in_process(server: Dynalite, runs: int, table: str) -> dict[str, float]:
    """The same export inside this process (no start-up), and its parts, medians in seconds."""
    import raw_export

    from dynosql.render import render
    from dynosql.session import Session, make_client

    client = server.client()
    sql = f"SELECT * FROM {table}"

    def session() -> Session:
        return Session(make_client(endpoint_url=server.url, credentials=("bench", "bench")))

    def pages() -> Any:
        return client.get_paginator("scan").paginate(TableName=table)

    def ours() -> None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            render(session().execute(sql), "jsonl", sink)

    def ours_rows() -> None:
        for _row in session().execute(sql):
            pass

    def raw() -> None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            for page in pages():
                for item in page["Items"]:
                    sink.write(raw_export.to_json({"M": item}) + "\n")

    def raw_pages() -> None:
        for _page in pages():
            pass

    def timed(fn: Callable[[], None]) -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    return {
        name: statistics.median(timed(fn) for _ in range(runs))
        for name, fn in (
            ("ours", ours),
            ("ours_rows", ours_rows),
            ("raw", raw),
            ("raw_pages", raw_pages),
        )
    }


def profile_text(fn: Callable[[], Any], top: int = 14, sort: str = "tottime") -> str:
    """cProfile of one call: the top functions (by own time unless told), as text."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats(sort).print_stats(top)
    lines = [ln for ln in text.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    total = next((ln for ln in lines if "function calls" in ln), "")
    body = [re.sub(r"/\S*/(site-packages|dynosql|benchmarks)/", r"\1/", ln) for ln in lines[start:]]
    return "\n".join([total.strip(), *body])


def profile_export(server: Dynalite, table: str) -> str:
    """Where an in-process export spends its time."""
    from dynosql.render import render
    from dynosql.session import Session, make_client

    client = make_client(endpoint_url=server.url, credentials=("bench", "bench"))
    session = Session(client)
    return profile_text(
        lambda: render(session.execute(f"SELECT * FROM {table}"), "jsonl", io.StringIO())
    )


def bench_memory(server: Dynalite, runs: int, tables: dict[int, str]) -> dict:
    out = {}
    for fmt, select in (
        ("jsonl", "*"),
        ("json", "*"),
        ("csv", "pk, sk, temperature"),
        ("csv", "*"),
    ):
        label = f"{fmt} SELECT {select}"
        out[label] = {}
        for n, table in tables.items():
            cmd = dynosql_cmd("--endpoint-url", server.url, "--format", fmt, "-q")
            cmd += ["-e", f"SELECT {select} FROM {table}"]
            out[label][n] = statistics.median(peak_rss_mb(cmd) for _ in range(runs))
    raw = {}
    for n, table in tables.items():
        cmd = [sys.executable, str(HERE / "raw_export.py"), server.url, table]
        raw[n] = statistics.median(peak_rss_mb(cmd) for _ in range(runs))
    out["raw boto3 paginator (baseline)"] = raw
    return out


# --- 3. planning cost ---------------------------------------------------------------------------


def planning_script() -> tuple[str, dict]:
    """Several hundred statements: the golden planner fixtures and the example scripts."""
    from dynosql.examples import datasets
    from dynosql.plan.schema import table_info
    from dynosql.sql import parse_script, split_script

    tables = {
        name: table_info({**d.table, "ItemCount": 2000, "TableSizeBytes": 900_000})
        for name, d in datasets.DATASETS.items()
    }
    tables.update(
        {
            n: table_info(d)
            for n, d in json.loads((ROOT / "grammar/tables.json").read_text()).items()
        }
    )
    statements = []
    for path in sorted((ROOT / "grammar" / "plans").glob("*.txt")):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            sql = [ln for ln in block.split("\n{")[0].splitlines() if not ln.startswith("--")]
            if sql and "\n".join(sql).strip():
                statements.append("\n".join(sql).strip())
    for path in sorted((ROOT / "examples").glob("*.sql")):
        statements += [c.text.strip() for c in split_script(path.read_text(encoding="utf-8"))]
    usable = []
    for text in statements:  # keep the ones that parse (fixtures may hold error cases)
        try:
            parse_script(text)
            usable.append(text)
        except Exception:
            pass
    script_statements = (usable * (600 // max(1, len(usable)) + 1))[:600]
    return ";\n".join(script_statements) + ";\n", tables


def bench_plan(runs: int) -> dict:
    from dynosql.errors import DynosqlError
    from dynosql.plan.planner import Options, plan_select
    from dynosql.sql import ast, parse_script

    script, tables = planning_script()

    def once() -> tuple[float, float, int, int]:
        t0 = time.perf_counter()
        statements = parse_script(script)
        t1 = time.perf_counter()
        planned = 0
        for st in statements:
            select = st.statement if isinstance(st, ast.Explain) else st
            if isinstance(select, ast.Select) and select.table in tables:
                try:
                    plan_select(select, tables[select.table], Options())
                    planned += 1
                except DynosqlError:
                    pass
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1, len(statements), planned

    samples = [once() for _ in range(runs)]
    n = samples[0][2]
    parse = statistics.median(s[0] for s in samples)
    plan = statistics.median(s[1] for s in samples)
    total = statistics.median(s[0] + s[1] for s in samples)
    result = {
        "statements": n,
        "planned": samples[0][3],
        "parse_ms": parse * 1000 / n,
        "plan_ms": plan * 1000 / max(1, samples[0][3]),
        "total_ms": total * 1000 / n,
    }
    if result["total_ms"] >= 2:
        result["profile"] = profile_text(once, top=16, sort="cumulative")
    return result


# --- 5. start-up --------------------------------------------------------------------------------


def bench_startup(runs: int) -> dict:
    env = cli_env()
    python, _ = median_of(runs, lambda: wall([sys.executable, "-c", "pass"], env=env))
    version, _ = median_of(runs, lambda: wall(dynosql_cmd("--version"), env=env))
    sql = "SELECT PK, SK FROM audit WHERE PK = 'ACTOR#ivan.petrov' LIMIT 3"
    local, _ = median_of(max(3, runs // 2), lambda: wall(dynosql_cmd("--local", "-q", "-e", sql)))
    probe = (
        "import sys; sys.argv = ['dynosql', '--version']\n"
        "from dynosql.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env
    ).stdout.splitlines()[-1]
    heavy = [m for m in ("boto3", "botocore", "moto", "sqlglot", "prompt_toolkit") if m in loaded]
    return {"python_s": python, "version_s": version, "local_s": local, "version_imports": heavy}


# --- 7. speed against the raw SDK (client CPU) --------------------------------------------------


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_of(runs: int, fn: Callable[[], Any]) -> float:
    """Median client CPU seconds (this process: user + system) of `fn`."""

    def once() -> float:
        started = cpu_seconds()
        fn()
        return cpu_seconds() - started

    return statistics.median(once() for _ in range(runs))


def bench_speed(server: Dynalite, runs: int, table: str, before: str | None) -> dict:
    """The speed figures of this tree and, with `before` (a checkout of an earlier commit),
    of that tree too, in a child process against the same server and data: side by side in
    one run, each dynosql against raw boto3 in its own process."""
    out = {"after": speed_figures(server.url, runs, table)}
    if before:
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            env = {**cli_env(), "PYTHONPATH": before}
            cmd = [sys.executable, __file__, "--speed-child", server.url, "--runs", str(runs)]
            subprocess.run([*cmd, "--json", f.name], env=env, check=True)
            out["before"] = json.loads(Path(f.name).read_text())
        out["before_tree"] = before
    return out


def speed_figures(url: str, runs: int, table: str) -> dict:
    import collections

    import raw_export

    from dynosql.dynamo import wire
    from dynosql.render import render
    from dynosql.session import Session, make_client

    try:
        forget_parsed = importlib.import_module("dynosql.sql.cache").clear
    except ImportError:  # a tree from before sql/cache.py (--before)
        forget_parsed = importlib.import_module("dynosql.sql.parse")._parse_cached.cache_clear

    def session(fast: bool = True, **settings: Any) -> Session:
        s = Session(make_client(endpoint_url=url, credentials=("bench", "bench")))
        if not fast:  # the botocore parser, as before dynosql/dynamo/wire.py
            for op in wire.OPERATIONS:
                s.client.meta.events.unregister(
                    f"before-parse.dynamodb.{op}", unique_id=f"dynosql-wire-{op}"
                )
        for name, value in settings.items():
            s.set(name, str(value))
        return s

    client = make_client(endpoint_url=url, credentials=("bench", "bench"))

    def raw_group() -> None:
        counts: collections.Counter = collections.Counter()
        pages = client.get_paginator("scan").paginate(TableName=table, ProjectionExpression="pk")
        for page in pages:
            for item in page["Items"]:
                counts[item["pk"]["S"]] += 1

    group_sql = f"SELECT pk, COUNT(*) AS n FROM {table} GROUP BY pk"

    # one Session per measurement, made before it is timed (a client costs ~0.1 s of CPU to
    # make; the raw side reuses its client too)
    def ours_group(fast: bool = True, **settings: Any) -> Callable[[], None]:
        s = session(fast, **settings)
        return lambda: s.execute(group_sql).all()

    def hot_keys(**settings: Any) -> Callable[[], None]:
        s = session(**settings)
        return lambda: s.execute(f"SHOW HOT KEYS FROM {table} LIMIT 20").all()

    def raw_export_lines() -> None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            for page in client.get_paginator("scan").paginate(TableName=table):
                for item in page["Items"]:
                    sink.write(raw_export.to_json({"M": item}) + "\n")

    def ours_export(fast: bool = True) -> Callable[[], None]:
        s = session(fast)

        def go() -> None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                render(s.execute(f"SELECT * FROM {table}"), "jsonl", sink)

        return go

    out: dict[str, Any] = {"items": 0}
    out["items"] = len(session().execute(f"SELECT pk FROM {table}").all())
    out["raw_group"] = cpu_of(runs, raw_group)
    out["group"] = cpu_of(runs, ours_group())
    out["group_botocore"] = cpu_of(runs, ours_group(fast=False))
    out["group_segments"] = cpu_of(runs, ours_group(segments=8))
    out["hot_keys"] = cpu_of(runs, hot_keys())
    out["hot_keys_segments"] = cpu_of(runs, hot_keys(segments=8))
    # Python's own peak (tracemalloc), one run each: a fifth of the table, and all of it
    small = f"SHOW HOT KEYS FROM {SPEED_SMALL} LIMIT 20"
    s8 = session(segments=8)
    out["hot_keys_memory_small"] = peak_python_mb(lambda: s8.execute(small).all())
    out["hot_keys_memory"] = peak_python_mb(hot_keys(segments=8))
    out["raw_export"] = cpu_of(runs, raw_export_lines)
    out["export"] = cpu_of(runs, ours_export())
    out["export_botocore"] = cpu_of(runs, ours_export(fast=False))

    # a point lookup: one statement with new parameters each time, against get_item
    sample = client.scan(TableName=table, Limit=50)["Items"]
    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in sample]
    s = session()
    sql = f"SELECT * FROM {table} WHERE pk = :pk AND sk = :sk"

    def gets() -> None:
        for key in keys * 10:
            client.get_item(TableName=table, Key=key)

    def statements(cached: bool = True) -> Callable[[], None]:
        def go() -> None:
            for key in keys * 10:
                if not cached:
                    forget_parsed()
                s.execute(sql, {"pk": key["pk"]["S"], "sk": key["sk"]["S"]}).all()

        return go

    out["point_raw"] = cpu_of(runs, gets) / (len(keys) * 10)
    out["point"] = cpu_of(runs, statements()) / (len(keys) * 10)
    out["point_uncached"] = cpu_of(runs, statements(cached=False)) / (len(keys) * 10)

    # --local: start-up with the direct load, and with BatchWriteItem over HTTP as before
    from dynosql.dynamo import loader
    from dynosql.local.embedded import LocalDynamo

    def local(direct: bool) -> float:
        started = time.perf_counter()
        with LocalDynamo() as dynamo:
            if direct:
                dynamo.load_examples()
            else:
                loader.load(dynamo.client(parameter_validation=False))
        return time.perf_counter() - started

    out["local"] = statistics.median(local(True) for _ in range(runs))
    out["local_http"] = statistics.median(local(False) for _ in range(runs))
    # the whole command, as users run it (python start-up and imports included)
    sql = "SELECT PK, SK FROM audit WHERE PK = 'ACTOR#ivan.petrov' LIMIT 3"
    command = dynosql_cmd("--local", "-q", "-e", sql)
    env = {**cli_env(), "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    out["local_cli"] = statistics.median(wall(command, env=env) for _ in range(max(3, runs)))
    out.update(moto_reads(runs))
    return out


def peak_python_mb(fn: Callable[[], Any]) -> float:
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def moto_reads(runs: int, items: int = 5000) -> dict[str, float]:
    """A GROUP BY over `items` items on the embedded moto against a paginator that projects
    the key (wall time: moto serves from this process)."""
    import collections

    from dynosql.local.embedded import LocalDynamo
    from dynosql.session import Session

    with LocalDynamo() as dynamo:
        client = dynamo.client()
        create_export_table(client, "moto5k", items)

        def raw() -> None:
            counts: collections.Counter = collections.Counter()
            paginator = client.get_paginator("scan")
            for page in paginator.paginate(TableName="moto5k", ProjectionExpression="pk"):
                for item in page["Items"]:
                    counts[item["pk"]["S"]] += 1

        session = Session(dynamo.client())
        sql = "SELECT pk, COUNT(*) AS n FROM moto5k GROUP BY pk"
        session.execute(sql).all()  # DescribeTable and the size sample, once

        def ours() -> None:
            session.execute(sql).all()

        def timed(fn: Callable[[], None]) -> float:
            started = time.perf_counter()
            fn()
            return time.perf_counter() - started

        return {
            "moto_group": statistics.median(timed(ours) for _ in range(runs)),
            "moto_raw_group": statistics.median(timed(raw) for _ in range(runs)),
        }


# --- 6. retries exhausted -----------------------------------------------------------------------


def bench_retry(server: Dynalite, runs: int) -> dict:
    from faultproxy import FaultProxy

    sql = "SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva'"
    out = {}
    with FaultProxy(server.url) as proxy:
        for action in ("throttle", "500", "reset"):
            proxy.reset_rules()
            proxy.fail("Query", action)

            def go() -> float:
                cmd = dynosql_cmd("--endpoint-url", proxy.url, "-q", "-e", sql)
                t = time.perf_counter()
                done = subprocess.run(cmd, capture_output=True, env=cli_env())
                assert done.returncode == 1, done.stderr
                return time.perf_counter() - t

            out[action], _ = median_of(runs, go)
            out[action + "_calls"] = len(proxy.calls("Query")) // runs
    url = f"http://127.0.0.1:{_closed_port()}"

    def unreachable() -> float:
        t = time.perf_counter()
        done = subprocess.run(
            dynosql_cmd("--endpoint-url", url, "-q", "-e", sql), capture_output=True, env=cli_env()
        )
        assert done.returncode == 1
        return time.perf_counter() - t

    out["unreachable"], _ = median_of(runs, unreachable)
    return out


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the report ---------------------------------------------------------------------------------


def machine() -> dict:
    import boto3
    import botocore
    import moto
    import sqlglot

    import dynosql

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    dynalite = json.loads((ROOT / "node_modules/dynalite/package.json").read_text())["version"]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": (
            f"dynosql {dynosql.__version__}, boto3 {boto3.__version__}, botocore "
            f"{botocore.__version__}, sqlglot {sqlglot.__version__}, moto {moto.__version__}, "
            f"node {node}, dynalite {dynalite}"
        ),
        "load": f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}",
    }


def report(results: dict, info: dict, runs: int) -> str:
    lines = [
        f"Measured {info['date']} with `python benchmarks/run.py` (median of {runs} runs "
        "unless noted).",
        "",
        f"- Machine: {info['cpu']}, {info['cores']} cores, {info['os']}",
        f"- Python {info['python']}; {info['versions']}",
        f"- Load average when the run started (1/5/15 min): {info['load']}",
        "",
    ]
    if "read" in results:
        lines += [
            "### 1. Read cost: consumed capacity, dynosql vs hand-optimal boto3 (goal 1.00x)",
            "",
            "| pattern | dynosql plan | rows | dynosql RCU | boto3 RCU | ratio | dynosql ms | boto3 ms |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in results["read"]["patterns"]:
            ok = abs(r["ratio"] - 1) < 1e-9
            mark = "✅" if ok else "❌"
            lines.append(
                f"| {r['pattern']} | {r['operation']} | {r['rows']} | {r['ours']} | {r['raw']} | "
                f"{r['ratio']:.2f}x {mark} | {r['ours_ms']:.1f} | {r['raw_ms']:.1f} |"
            )
        lines += ["", "<details><summary>the SQL of each pattern</summary>", ""]
        for r in results["read"]["patterns"]:
            lines.append(f"- {r['pattern']}: `{r['sql']}`")
        lines += ["", "</details>", ""]
    if "export" in results:
        e = results["export"]
        lines += [
            "### 2. Export throughput (goal: within 1.2x of the raw SDK)",
            "",
            f"`SELECT * FROM export20k --format jsonl` ({e['items']} items, "
            f"{e['bytes'] / 1e6:.1f} MB of JSON lines) against `benchmarks/raw_export.py` (a "
            "boto3 Scan paginator writing the same lines); both are whole processes, start-up "
            "included.",
            "",
            "| | wall time | items/s |",
            "|---|---:|---:|",
            f"| dynosql | {e['ours_s']:.2f} s | {e['items'] / e['ours_s']:,.0f} |",
            f"| raw boto3 | {e['raw_s']:.2f} s | {e['items'] / e['raw_s']:,.0f} |",
            f"| ratio | {ratio_text(e['ratio'], '≤ 1.2x', e['ratio'] <= 1.2)} | |",
            "",
            "The same export inside one Python process (no start-up), and its parts:",
            "",
            "| in-process | seconds | items/s |",
            "|---|---:|---:|",
        ]
        ip = e["in_process"]
        for key, label in (
            ("ours", "dynosql: `Session.execute` + jsonl renderer"),
            ("ours_rows", "dynosql: rows only (read + decode, not rendered)"),
            ("raw", "raw boto3: paginator + JSON lines"),
            ("raw_pages", "raw boto3: paginator only (read + botocore parsing)"),
        ):
            lines.append(f"| {label} | {ip[key]:.2f} | {e['items'] / ip[key]:,.0f} |")
        lines += [
            f"| ratio dynosql / raw, in-process | {ip['ours'] / ip['raw']:.2f}x | |",
            "",
            f"Same lines (as JSON values): {'yes' if e['same_output'] else 'NO'}. Samples: dynosql "
            + ", ".join(f"{s:.2f}" for s in e["ours_samples"])
            + " s; boto3 "
            + ", ".join(f"{s:.2f}" for s in e["raw_samples"])
            + f" s. (`dynosql --version` alone: {e['version_s']:.2f} s.)",
            "",
        ]
        if "profile" in e:
            lines += [
                "Goal missed. Where an in-process export of the same table spends its time "
                "(cProfile, by own time):",
                "",
                "```",
                e["profile"],
                "```",
                "",
            ]
    if "plan" in results:
        p = results["plan"]
        ok = p["total_ms"] < 2
        lines += [
            "### 3. Planning cost (goal < 2 ms per statement)",
            "",
            f"A script of {p['statements']} statements (the golden planner fixtures and the "
            f"example scripts, repeated), parsed with `parse_script`, then {p['planned']} SELECTs "
            "planned with `plan_select` on offline table descriptions.",
            "",
            "| parse ms/statement | plan ms/SELECT | total ms/statement |",
            "|---:|---:|---:|",
            f"| {p['parse_ms']:.3f} | {p['plan_ms']:.3f} | {p['total_ms']:.3f} "
            f"{'✅' if ok else '❌'} |",
            "",
        ]
        if "profile" in p:
            lines += [
                "Goal missed. Where one pass over the script spends its time (cProfile, by "
                "cumulative time):",
                "",
                "```",
                p["profile"],
                "```",
                "",
            ]
    if "memory" in results:
        m = results["memory"]
        lines += [
            "### 4. Streaming memory: peak RSS, 20k rows vs 2k rows (goal: flat)",
            "",
            "Peak RSS of the whole process exporting a table to /dev/null; the 40k column shows "
            "whether the growth goes on past 20k.",
            "",
            "| output | 2k rows | 20k rows | 40k rows | 20k / 2k | 40k / 20k |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for label, by_n in m.items():
            sizes = sorted(by_n)
            small, mid, big = (by_n[n] for n in (sizes[0], sizes[1], sizes[-1]))
            growth = mid / small
            mark = "" if "baseline" in label else (" ✅" if growth <= 1.1 else " ❌")
            lines.append(
                f"| {label} | {small:.1f} MiB | {mid:.1f} MiB | {big:.1f} MiB | "
                f"{growth:.2f}x{mark} | {big / mid:.2f}x |"
            )
        lines.append("")
    if "startup" in results:
        s = results["startup"]
        heavy = (
            ", ".join(s["version_imports"]) or "none of boto3/botocore/moto/sqlglot/prompt_toolkit"
        )
        lines += [
            "### 5. Start-up",
            "",
            "| command | wall time |",
            "|---|---:|",
            f"| `python -c pass` (baseline) | {s['python_s'] * 1000:.0f} ms |",
            f"| `dynosql --version` | {s['version_s'] * 1000:.0f} ms |",
            f'| `dynosql --local -e "SELECT … LIMIT 3"` | {s["local_s"] * 1000:.0f} ms |',
            "",
            f"Heavy modules imported by `--version`: {heavy}.",
            "",
        ]
    if "retry" in results:
        r = results["retry"]
        lines += [
            "### 6. Retries exhausted: time until `error:` and exit 1 (real backoff)",
            "",
            "Every Query answered with the fault by `tests/faultproxy.py`, the CLI as users run "
            "it; and an endpoint where nothing listens.",
            "",
            "| fault | time to fail | Query calls sent |",
            "|---|---:|---:|",
            f"| 400 ProvisionedThroughputExceededException | {r['throttle']:.1f} s | "
            f"{r['throttle_calls']} |",
            f"| 500 InternalServerError | {r['500']:.1f} s | {r['500_calls']} |",
            f"| connection reset | {r['reset']:.1f} s | {r['reset_calls']} |",
            f"| connection refused (unreachable endpoint) | {r['unreachable']:.1f} s | – |",
            "",
        ]
    if "speed" in results:
        lines += speed_report(results["speed"])
    return "\n".join(lines)


# (label, figure, baseline figure, goal as a ratio, what the baseline is); a figure missing
# from an earlier tree's results is shown as –
SPEED_ROWS = [
    ("GROUP BY pk", "group", "raw_group", 0.8, "paginator + Counter"),
    ("GROUP BY pk, botocore's parser", "group_botocore", "raw_group", None, "paginator + Counter"),
    ("GROUP BY pk, --segments 8", "group_segments", "group", 1.05, "1 segment"),
    ("SHOW HOT KEYS", "hot_keys", "group", 1.5, "the GROUP BY"),
    ("SHOW HOT KEYS, --segments 8", "hot_keys_segments", "hot_keys", 1.05, "1 segment"),
    ("jsonl export", "export", "raw_export", 0.8, "paginator + JSON lines"),
    ("jsonl export, botocore's parser", "export_botocore", "raw_export", None, "paginator + JSON lines"),
    ("point lookup statement", "point", "point_raw", 1.3, "get_item"),
    ("point lookup, parsed each time", "point_uncached", "point_raw", None, "get_item"),
    ("GROUP BY pk on moto, 5k items (wall)", "moto_group", "moto_raw_group", None, "paginator projecting pk"),
]  # fmt: skip


def speed_report(speed: dict) -> list[str]:
    after, before = speed["after"], speed.get("before")

    def cell(r: dict | None, key: str, base: str, goal: float | None) -> str:
        if r is None or key not in r or base not in r:
            return "–"
        ratio = r[key] / r[base]
        mark = "" if goal is None else (" ✅" if ratio <= goal else " ❌")
        return f"{r[key]:.3f} s / {r[base]:.3f} s = {ratio:.2f}x{mark}"

    lines = [
        "### 7. Speed against the raw SDK: client CPU (issue 14)",
        "",
        f"A {after['items']:,}-item table on dynalite; client CPU of the measuring process (user "
        "+ system, from rusage), median of the runs; each figure is divided by its baseline "
        "measured in the same process. *Before* is "
        + (
            f"the tree at `{speed['before_tree']}` (an earlier commit), run in a child process "
            "against the same server in the same run."
            if before
            else "not measured in this run (`--before DIR`)."
        ),
        "",
        "| measurement | baseline | goal | before | after |",
        "|---|---|---:|---:|---:|",
    ]
    for label, key, base, goal, base_name in SPEED_ROWS:
        goal_text = f"≤ {goal}x" if goal is not None else ""
        lines.append(
            f"| {label} | {base_name} | {goal_text} | {cell(before, key, base, None)} | "
            f"{cell(after, key, base, goal)} |"
        )

    def seconds(r: dict | None, key: str) -> str:
        return "–" if r is None or key not in r else f"{r[key]:.2f} s"

    def mb(r: dict | None, key: str) -> str:
        return "–" if r is None or key not in r else f"{r[key]:.1f} MB"

    lines += [
        "",
        "| `--local` | goal | before | after |",
        "|---|---:|---:|---:|",
        f"| server + four example tables, in-process (wall) | | {seconds(before, 'local')} | "
        f"{seconds(after, 'local')} |",
        f"| the same, items through BatchWriteItem over HTTP (wall) | | "
        f"{seconds(before, 'local_http')} | {seconds(after, 'local_http')} |",
        f'| `dynosql --local -q -e "SELECT … LIMIT 3"`, whole command (wall) | ≤ 1.5 s | '
        f"{seconds(before, 'local_cli')} | {seconds(after, 'local_cli')} |",
        "",
        "| SHOW HOT KEYS --segments 8, peak Python memory (tracemalloc) | before | after |",
        "|---|---:|---:|",
        f"| {after['items'] // 5:,} items | {mb(before, 'hot_keys_memory_small')} | "
        f"{mb(after, 'hot_keys_memory_small')} |",
        f"| {after['items']:,} items | {mb(before, 'hot_keys_memory')} | "
        f"{mb(after, 'hot_keys_memory')} |",
        "",
    ]
    return lines


def write_readme(text: str) -> None:
    current = README.read_text(encoding="utf-8")
    if START not in current or END not in current:
        raise SystemExit(f"{README} lacks the {START} / {END} markers")
    head, rest = current.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(SECTIONS), help="sections, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--no-write", action="store_true", help="print, do not update README")
    parser.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    parser.add_argument(
        "--speed-items", type=int, default=100_000, help="items in the speed section's table"
    )
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="speed: also measure the dynosql of DIR (a checkout of an earlier commit, e.g. "
        "`git worktree add /tmp/before <commit>`) in a child process, side by side",
    )
    parser.add_argument("--speed-child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_child:  # the --before side: this process imports the earlier dynosql
        figures = speed_figures(args.speed_child, args.runs, "speed")
        Path(args.json).write_text(json.dumps(figures))
        return 0
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    info = machine()
    results: dict[str, Any] = {}
    server = Dynalite()
    try:
        client = server.client()
        if {"read"} & set(chosen):
            from dynosql.dynamo import loader

            print("loading the example datasets into dynalite ...", file=sys.stderr)
            loader.load(client)
        tables = {}
        if {"export", "memory"} & set(chosen):
            sizes = (2000, 20000, 40000) if "memory" in chosen else (2000, 20000)
            for n in sizes:
                name = f"export{n // 1000}k"
                print(f"loading {name} ({n} items) ...", file=sys.stderr)
                create_export_table(client, name, n)
                tables[n] = name
        if "speed" in chosen:
            print(f"loading speed ({args.speed_items} items) ...", file=sys.stderr)
            create_export_table(client, "speed", args.speed_items)
            create_export_table(client, SPEED_SMALL, args.speed_items // 5)
        for section in chosen:
            print(f"running {section} ...", file=sys.stderr)
            started = time.perf_counter()
            if section == "read":
                results["read"] = bench_read(server, args.runs)
            elif section == "export":
                results["export"] = bench_export(server, args.runs, tables[20000], 20000)
            elif section == "plan":
                results["plan"] = bench_plan(args.runs)
            elif section == "memory":
                results["memory"] = bench_memory(server, max(1, args.runs // 2), tables)
            elif section == "startup":
                results["startup"] = bench_startup(max(args.runs, 10))
            elif section == "retry":
                results["retry"] = bench_retry(server, max(1, min(args.runs, 3)))
            elif section == "speed":
                runs = max(1, min(args.runs, 3))
                results["speed"] = bench_speed(server, runs, "speed", args.before)
            print(f"  {section}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    finally:
        server.stop()
    text = report(results, info, args.runs)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    if not args.no_write:
        write_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
