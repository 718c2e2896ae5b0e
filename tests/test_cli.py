"""The ``dynosql`` command, run for real: a subprocess per invocation, checking stdout, stderr
and the exit code of every flag and behaviour of issue 3.

Each ``--local`` run starts its own embedded moto (about 2 s of CPU), so those runs are declared
up front (``LOCAL_RUNS``, next to the tests that read them) and started together, a few at a
time, the first time a test asks for one; only the runs of the selected tests are started.
Expected values come from ``dynosql.examples.datasets`` (deterministic) or are written out literally.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import unique_name
from cli_runner import Run, cli_env, run_cli

import dynosql
from dynosql.examples import datasets
from dynosql.values import StringSet

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
TIMEOUT = 120

FOOTER_TIME = r"\d+\.\d{3}s"
# the embedded server reports capacity computed by DynamoDB's rules: exact, no "~ … est."
EST = r"(\d+(?:\.\d+)?) RCU"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess: no AWS settings of the machine running the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    env["AWS_CONFIG_FILE"] = os.devnull
    env["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    env.update(extra)
    return env


def dynosql_cmd(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Run:
    """``python -m dynosql ARGS`` with stdin (not a terminal: /dev/null unless given)."""
    proc = subprocess.run(
        [sys.executable, "-m", "dynosql", *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env or clean_env(),
        cwd=ROOT,
        timeout=TIMEOUT,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def console_script() -> str:
    """The installed ``dynosql`` console script: next to sys.executable, else on PATH."""
    beside = Path(sys.executable).parent / "dynosql"
    if beside.exists():
        return str(beside)
    found = shutil.which("dynosql")
    if not found:
        pytest.fail("the dynosql console script is not installed (pip install -e .)")
    return found


# --- the --local runs, started together ----------------------------------------------------------

LOCAL_RUNS: dict[str, tuple[tuple[str, ...], str | None]] = {}


def local_run(key: str, *args: str, stdin: str | None = None) -> str:
    """Declare the run ``dynosql --local ARGS`` under ``key``."""
    assert key not in LOCAL_RUNS, key
    LOCAL_RUNS[key] = (("--local", *args), stdin)
    return key


def uses(*keys: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a test as reading these --local runs (so only selected tests' runs start)."""
    for key in keys:
        assert key in LOCAL_RUNS, key

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._local_runs = keys  # type: ignore[attr-defined]
        return fn

    return mark


class LocalRuns:
    """The declared runs, run in-process (tests/cli_runner.py) against the shared moto server
    with the example datasets, in place of ``--local``: the same data and the same backend,
    without booting an embedded moto per run. `runs[key]` runs one once and keeps its result.
    The ``--local`` path itself keeps real-process tests (test_local_*, test_repl_e2e)."""

    def __init__(self, endpoint_url: str, env: dict[str, str]):
        self.endpoint_url = endpoint_url
        self.env = env
        self.done: dict[str, Run] = {}

    def __getitem__(self, key: str) -> Run:
        if key not in self.done:
            args, stdin = LOCAL_RUNS[key]
            assert args[0] == "--local", args
            got = run_cli("--endpoint-url", self.endpoint_url, *args[1:], stdin=stdin, env=self.env)
            self.done[key] = Run(got.returncode, got.stdout, got.stderr)
        return self.done[key]


@pytest.fixture(scope="module")
def local(moto_examples_backend: Any, tmp_path_factory: pytest.TempPathFactory) -> LocalRuns:
    return LocalRuns(moto_examples_backend.endpoint_url, cli_env(tmp_path_factory.mktemp("cli")))


# --- values from the example datasets ------------------------------------------------------------


def items_of(name: str) -> list[dict[str, Any]]:
    return list(datasets.DATASETS[name].items())


BEACH = "WHERE PK = 'DRIVE#alice' AND SK = 'root/photos/2026/beach.jpg'"
GET_BEACH = f"SELECT name FROM drive {BEACH}"
ACME_ITEMS = sum(1 for i in items_of("tenants") if i["pk"] == "TENANT#acme")  # 146
FALSE_OK = sum(1 for i in items_of("audit") if i["ok"] is False)
COUNT_FAILED = "SELECT COUNT(*) AS n FROM audit WHERE ok = false"  # a Scan with a filter


# --- --format: exact output of a small known query ------------------------------------------------

# BatchGetItem of two items of alice's drive: a file (a number, a string set, a map) and a folder
# (no size, tags or meta: missing attributes).
FORMAT_QUERY = (
    "SELECT name, size, tags, meta FROM drive WHERE PK = 'DRIVE#alice' "
    "AND SK IN ('root/photos/2026/beach.jpg', 'root/photos/')"
)
META_CELL = '{"geo":{"country":"PT","city":"Lisboa"},"camera":"X100V"}'
META_CSV = '"{""geo"":{""country"":""PT"",""city"":""Lisboa""},""camera"":""X100V""}"'
TAGS_CSV = '"[""beach"",""vacation""]"'
META_JSON = '{"geo":{"country":"PT","city":"Lisboa"},"camera":"X100V"}'
TAGS_JSON = '["beach","vacation"]'
FORMAT_EXPECTED = {
    "table": (
        "+-----------+---------+----------------------+"
        "-----------------------------------------------------------+\n"
        "| name      |    size | tags                 | meta"
        "                                                      |\n"
        "|-----------+---------+----------------------+"
        "-----------------------------------------------------------|\n"
        f'| beach.jpg | 4718592 | ["beach","vacation"] | {META_CELL} |\n'
        "| photos    |         |                      |"
        "                                                           |\n"
        "+-----------+---------+----------------------+"
        "-----------------------------------------------------------+\n"
    ),
    "csv": (f"name,size,tags,meta\nbeach.jpg,4718592,{TAGS_CSV},{META_CSV}\nphotos,,,\n"),
    # tsv: no quoting (tabs, newlines and backslashes are escaped), so nested JSON stays JSON
    "tsv": (
        f"name\tsize\ttags\tmeta\nbeach.jpg\t4718592\t{TAGS_JSON}\t{META_JSON}\nphotos\t\t\t\n"
    ),
    "json": (
        "[\n"
        '{"name": "beach.jpg", "size": 4718592, "tags": ["beach", "vacation"], '
        '"meta": {"geo": {"country": "PT", "city": "Lisboa"}, "camera": "X100V"}},\n'
        '{"name": "photos"}\n'
        "]\n"
    ),
    "jsonl": (
        '{"name": "beach.jpg", "size": 4718592, "tags": ["beach", "vacation"], '
        '"meta": {"geo": {"country": "PT", "city": "Lisboa"}, "camera": "X100V"}}\n'
        '{"name": "photos"}\n'
    ),
    "markdown": (
        "| name      |    size | tags                 | meta"
        "                                                      |\n"
        "|:----------|--------:|:---------------------|"
        ":----------------------------------------------------------|\n"
        f'| beach.jpg | 4718592 | ["beach","vacation"] | {META_CELL} |\n'
        "| photos    |         |                      |"
        "                                                           |\n"
    ),
    "vertical": (
        "-[ RECORD 1 ]---------------------------------------------------\n"
        "name | beach.jpg\n"
        "size | 4718592\n"
        'tags | ["beach","vacation"]\n'
        f"meta | {META_CELL}\n"
        "-[ RECORD 2 ]----\n"
        "name | photos\n"
        "size |\n"
        "tags |\n"
        "meta |\n"
    ),
}
for _fmt in FORMAT_EXPECTED:
    local_run(f"format-{_fmt}", "--format", _fmt, "-e", FORMAT_QUERY)


@uses(*(f"format-{f}" for f in FORMAT_EXPECTED))
@pytest.mark.parametrize("fmt", list(FORMAT_EXPECTED))
def test_format_exact_output(local: LocalRuns, fmt: str) -> None:
    run = local[f"format-{fmt}"]
    assert run.returncode == 0, run.stderr
    assert run.stdout == FORMAT_EXPECTED[fmt]
    # stderr: only the footer; nothing of it leaks into stdout
    assert len(run.err_lines) == 1, run.stderr
    assert re.fullmatch(
        rf"2 rows · BatchGetItem drive · 2 items scanned · 1 RCU · {FOOTER_TIME}",
        run.err_lines[0],
    ), run.stderr


def test_csv_and_tsv_read_back_as_json_cells() -> None:
    """csv/tsv: nested values are JSON text that a csv reader gives back intact."""
    import csv
    import io

    for fmt, delimiter in (("csv", ","), ("tsv", "\t")):
        rows = list(csv.reader(io.StringIO(FORMAT_EXPECTED[fmt]), delimiter=delimiter))
        assert rows[0] == ["name", "size", "tags", "meta"]
        assert json.loads(rows[1][2]) == ["beach", "vacation"]
        assert json.loads(rows[1][3])["geo"] == {"country": "PT", "city": "Lisboa"}
        assert rows[2] == ["photos", "", "", ""]


# --- json details: several arrays, NULL, missing, exact digits, non-ASCII ------------------------

_sensors = items_of("sensors")
NULL_READING = next(i for i in _sensors if i["humidity"] is None and "status" not in i)
FREEZER = min(
    {i["deviceId"] for i in _sensors if i["temperature"] < 0},
    key=lambda d: max(i["temperature"] for i in _sensors if i["deviceId"] == d),
)  # the coldest device: every reading below zero
FREEZER_FIRST3 = [i for i in _sensors if i["deviceId"] == FREEZER][:3]
MISC = "root/documents/misc/"
MISC_NAMES = [
    i["name"]
    for i in sorted(items_of("drive"), key=lambda i: (i["PK"], i["SK"].encode()))
    if i["PK"] == "DRIVE#alice" and i["SK"].startswith(MISC)
]

local_run(
    "json-details",
    "--format",
    "json",
    "-e",
    f'SELECT deviceId, temperature, humidity, "status" FROM sensors '
    f"WHERE deviceId = '{NULL_READING['deviceId']}' AND readingTs = '{NULL_READING['readingTs']}'",
    "-e",
    f"SELECT readingTs, temperature FROM sensors WHERE deviceId = '{FREEZER}' LIMIT 3",
    "-e",
    f"SELECT name FROM drive WHERE PK = 'DRIVE#alice' AND begins_with(SK, '{MISC}')",
)


def json_documents(text: str) -> list[Any]:
    """Every JSON document in ``text``, one after another (numbers as Decimal)."""
    decoder = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal)
    docs, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return docs
        doc, pos = decoder.raw_decode(text, pos)
        docs.append(doc)


@uses("json-details")
def test_json_several_statements_print_several_arrays(local: LocalRuns) -> None:
    run = local["json-details"]
    assert run.returncode == 0, run.stderr
    docs = json_documents(run.stdout)
    assert len(docs) == 3
    assert all(isinstance(d, list) for d in docs)
    # one footer per statement
    assert len([line for line in run.err_lines if " row" in line]) == 3, run.stderr


@uses("json-details")
def test_json_null_missing_and_exact_numbers(local: LocalRuns) -> None:
    run = local["json-details"]
    null_rows, freezer_rows, _ = json_documents(run.stdout)
    # NULL is null; the missing "status" is left out of the row object
    assert null_rows == [
        {
            "deviceId": NULL_READING["deviceId"],
            "temperature": NULL_READING["temperature"],
            "humidity": None,
        }
    ]
    expected_line = (
        f'{{"deviceId": "{NULL_READING["deviceId"]}", '
        f'"temperature": {NULL_READING["temperature"]}, "humidity": null}}'
    )
    assert expected_line in run.stdout.splitlines()
    # numbers: JSON numbers with their exact digits (negative, two decimals)
    assert freezer_rows == [
        {"readingTs": i["readingTs"], "temperature": i["temperature"]} for i in FREEZER_FIRST3
    ]
    for item in FREEZER_FIRST3:
        line = f'{{"readingTs": "{item["readingTs"]}", "temperature": {item["temperature"]}}}'
        assert line in run.stdout, line
    assert all(i["temperature"] < 0 for i in FREEZER_FIRST3)


@uses("json-details")
def test_json_keeps_non_ascii_and_byte_order(local: LocalRuns) -> None:
    run = local["json-details"]
    names = [row["name"] for row in json_documents(run.stdout)[2]]
    assert names == MISC_NAMES
    assert names.index("Zebra.txt") < names.index("apple.txt") < names.index("Äpfel-Rezept.pdf")
    assert '"日記.txt"' in run.stdout and '"Äpfel-Rezept.pdf"' in run.stdout  # not \u escapes
    assert "\\u" not in run.stdout


# --- input: -e, -f FILE, -f -, stdin; splitting and comments -------------------------------------

SCRIPT = DATA / "cli_script.sql"
SCRIPT_JSONL = (
    '{"name": "beach.jpg", "size": 4718592}\n{"name": "misc"}\n{"name": "Zebra.txt"}\n{"n": 3}\n'
)
local_run("script-file", "--format", "jsonl", "-f", str(SCRIPT))
local_run("script-dash", "--format", "jsonl", "-f", "-", stdin=SCRIPT.read_text("utf-8"))
local_run("script-stdin", "--format", "jsonl", stdin=SCRIPT.read_text("utf-8"))


@uses("script-file", "script-dash", "script-stdin")
@pytest.mark.parametrize("how", ["script-file", "script-dash", "script-stdin"])
def test_script_input(local: LocalRuns, how: str) -> None:
    """Three statements, split on ';' but not on one in a string or a comment."""
    run = local[how]
    assert run.returncode == 0, run.stderr
    assert run.stdout == SCRIPT_JSONL
    footers = run.err_lines
    assert len(footers) == 3, run.stderr
    assert footers[0].startswith("1 row · GetItem drive · ")
    assert footers[1].startswith("2 rows · Query drive · ")
    assert footers[2].startswith("1 row · Query tenants · 3 items scanned · ")


# --- -v name=value and name:=json -------------------------------------------------------------------

ACME_INVOICES_OVER_5000 = sum(
    1
    for i in items_of("tenants")
    if i["pk"] == "TENANT#acme" and i["sk"].startswith("INVOICE#") and i["amount"] > 5000
)
OPEN_DUE_BEFORE_JUNE = sum(
    1 for i in items_of("tenants") if i.get("gsi1pk") == "STATUS#open" and i["gsi1sk"] < "2026-06"
)
_OVER = "SELECT COUNT(*) AS n FROM tenants WHERE pk = :p AND begins_with(sk, 'INVOICE#') AND "
INVOICE_42 = next(
    i for i in items_of("tenants") if i["pk"] == "TENANT#acme" and i["sk"] == "INVOICE#000042"
)
local_run(
    "params",
    "--format",
    "csv",
    "-v",
    "p=TENANT#acme",
    "-v",
    "amt=5000",
    "-v",
    "j:=5000",
    "-v",
    'inv:="INVOICE#000042"',
    "-v",
    "due=2026-06-01",
    "-e",
    _OVER + "amount > :amt",
    "-e",
    _OVER + "amount > :j",
    "-e",
    "SELECT amount FROM tenants WHERE pk = :p AND sk = :inv",
    "-e",
    "SELECT COUNT(*) AS n FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' AND gsi1sk < :due",
)


@uses("params")
def test_params_string_number_and_json(local: LocalRuns) -> None:
    run = local["params"]
    assert run.returncode == 0, run.stderr
    assert ACME_INVOICES_OVER_5000 > 0 and OPEN_DUE_BEFORE_JUNE > 0
    assert run.stdout == (
        f"n\n{ACME_INVOICES_OVER_5000}\n"  # amt=5000 reads as a number
        f"n\n{ACME_INVOICES_OVER_5000}\n"  # j:=5000 is a JSON number
        f"amount\n{INVOICE_42['amount']}\n"  # inv:="…" is a JSON string
        f"n\n{OPEN_DUE_BEFORE_JUNE}\n"  # 2026-06-01 is not a number: a string
    )


local_run(
    "param-string-vs-number",
    "--format",
    "csv",
    "-v",
    's:="5000"',
    "-e",
    _OVER.replace(":p", "'TENANT#acme'") + "amount > :s",
)


@uses("param-string-vs-number")
def test_param_json_string_never_equals_a_number(local: LocalRuns) -> None:
    run = local["param-string-vs-number"]
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == "n\n0\n"  # a number never compares with a string: no match
    assert "Traceback" not in run.stderr


UNBOUND = DATA / "cli_unbound.sql"
local_run("unbound", "-f", str(UNBOUND))


@uses("unbound")
def test_unbound_param_is_an_error_naming_it(local: LocalRuns) -> None:
    run = local["unbound"]
    assert run.returncode == 1
    error = run.one_error()
    assert ":p" in error and "-v p=" in error
    assert "tenants" in run.stdout  # SHOW TABLES, the statement before, printed its result


@uses("unbound")
def test_unbound_param_error_points_at_it(local: LocalRuns) -> None:
    run = local["unbound"]
    assert run.err_lines[-1].startswith("error: line 4, column 14: "), run.stderr


# --- footer, warnings, --quiet ---------------------------------------------------------------------

FOOTER_ARGS = (
    "--format",
    "csv",
    "-e",
    GET_BEACH,
    "-e",
    "SELECT pk, sk FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' LIMIT 2",
    "-e",
    COUNT_FAILED,
)
local_run("footer", *FOOTER_ARGS)
local_run("footer-quiet", "--quiet", *FOOTER_ARGS)


@uses("footer")
def test_footer_on_stderr(local: LocalRuns) -> None:
    run = local["footer"]
    assert run.returncode == 0, run.stderr
    footers = [line for line in run.err_lines if not line.startswith("warning: ")]
    assert len(footers) == 3, run.stderr
    assert re.fullmatch(
        rf"1 row · GetItem drive · 1 item scanned · 0\.5 RCU · {FOOTER_TIME}", footers[0]
    ), footers[0]
    assert re.fullmatch(
        rf"2 rows · Query tenants\.gsi1 · 2 items scanned · {EST} · {FOOTER_TIME}", footers[1]
    ), footers[1]
    # the COUNT's Scan: its first page (here the whole table) came back whole for the hints,
    # so the bytes it read are known
    scan = re.fullmatch(
        rf"1 row · Scan audit · 1000 items scanned · 105\.3 KB · {EST} · {FOOTER_TIME}",
        footers[2],
    )
    assert scan, footers[2]
    # a Scan pays for every item it reads, filtered out or not (about 105 KB here)
    assert Decimal(scan.group(1)) >= 10


@uses("footer")
def test_scan_warning_on_stderr_stdout_clean(local: LocalRuns) -> None:
    run = local["footer"]
    # stdout: the three csv results and nothing else
    lines = run.stdout.splitlines()
    assert lines[:3] == ["name", "beach.jpg", "pk,sk"], run.stdout
    assert lines[5:] == ["n", str(FALSE_OK)], run.stdout
    open_invoices = sorted(
        (i for i in items_of("tenants") if i.get("gsi1pk") == "STATUS#open"),
        key=lambda i: i["gsi1sk"],
    )
    # the two soonest due (ties on the index sort key come back in no promised order)
    soonest = {
        f"{i['pk']},{i['sk']}" for i in open_invoices if i["gsi1sk"] <= open_invoices[1]["gsi1sk"]
    }
    assert set(lines[3:5]) <= soonest and len(set(lines[3:5])) == 2, lines
    warnings = [line for line in run.err_lines if line.startswith("warning: ")]
    assert any(w.startswith("warning: Scan of audit") for w in warnings), run.stderr
    assert "warning" not in run.stdout.lower()


@uses("footer", "footer-quiet")
def test_quiet_drops_footer_and_warnings(local: LocalRuns) -> None:
    loud, quiet = local["footer"], local["footer-quiet"]
    assert quiet.returncode == 0
    assert quiet.stderr == ""
    assert quiet.stdout == loud.stdout


# --- --consistent ----------------------------------------------------------------------------------

local_run(
    "consistent",
    "--consistent",
    "-e",
    GET_BEACH,
    "-e",
    f"EXPLAIN {GET_BEACH}",
    "-e",
    "SELECT pk FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' LIMIT 1",
)


@uses("consistent")
def test_consistent_reads_and_gsi_refused(local: LocalRuns) -> None:
    run = local["consistent"]
    assert run.returncode == 1
    # a strongly consistent read of a small item costs a whole RCU
    assert re.fullmatch(
        rf"1 row · GetItem drive · 1 item scanned · 1 RCU · {FOOTER_TIME}",
        run.err_lines[0],
    ), run.stderr
    assert '"ConsistentRead": true' in run.stdout
    assert "(strongly consistent)" in run.stdout
    error = run.one_error()
    assert "gsi1" in error and "consistent" in error
    assert "| pk " not in run.stdout  # the refused GSI query printed nothing


# --- guards: --fail-on-scan, --max-rcu -------------------------------------------------------------

local_run("fail-on-scan", "--fail-on-scan", "--format", "csv", "-e", GET_BEACH, "-e", COUNT_FAILED)


@uses("fail-on-scan")
def test_fail_on_scan_refuses_before_sending(local: LocalRuns) -> None:
    run = local["fail-on-scan"]
    assert run.returncode == 3
    assert run.stdout == "name\nbeach.jpg\n"  # the keyed read ran; the Scan printed nothing
    error = run.one_error()
    assert "Scan" in error and "audit" in error and "--fail-on-scan" in error
    assert not any("Scan audit ·" in line for line in run.err_lines)  # no footer: nothing sent


local_run(
    "max-rcu", "--max-rcu", "1", "--format", "jsonl", "-e", GET_BEACH, "-e", "SELECT * FROM sensors"
)


@uses("max-rcu")
def test_max_rcu_stops_a_big_read(local: LocalRuns) -> None:
    run = local["max-rcu"]
    assert run.returncode == 3
    lines = run.stdout.splitlines()
    assert lines[0] == '{"name": "beach.jpg"}'  # 0.5 RCU: under the limit
    assert len(lines) < 1 + 1300
    for line in lines:
        json.loads(line)  # what was printed stays whole lines
    error = run.one_error()
    # the Scan's estimate (a known size) already exceeds the limit: refused before any read
    # (issue 10; stopping mid-read is tested in test_robustness.py)
    assert re.fullmatch(
        r"error: refused: this statement would Scan sensors .*--max-rcu 1;.*", error
    )
    assert len(lines) == 1


# --- DESCRIBE, EXPLAIN, --segments, --rate-limit -----------------------------------------------------

TENANTS_QUERY = "SELECT * FROM tenants WHERE pk = 'TENANT#acme'"
local_run(
    "describe-explain",
    "--segments",
    "4",
    "-e",
    "DESCRIBE tenants",
    "-e",
    "DESCRIBE sensors",
    "-e",
    "DESCRIBE drive",
    "-e",
    "EXPLAIN SELECT * FROM sensors",
    "-e",
    f"EXPLAIN {TENANTS_QUERY}",
    "-e",
    f"EXPLAIN ANALYZE {TENANTS_QUERY}",
)


@uses("describe-explain")
def test_describe(local: LocalRuns) -> None:
    run = local["describe-explain"]
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert re.search(r"tenants: 479 items, [1-9]\d* bytes, PAY_PER_REQUEST", out), out
    assert re.search(r"\| tenants +\| TABLE +\| pk \(S\) +\| sk \(S\) +\| ALL ", out), out
    assert re.search(r"\| gsi1 +\| GSI +\| gsi1pk \(S\) +\| gsi1sk \(S\) +\| ALL ", out), out
    assert re.search(
        r"\| by_region +\| GSI +\| region \(S\) +\| readingTs \(S\) +\| INCLUDE temperature ", out
    ), out
    assert re.search(r"\| by_modified +\| LSI +\| PK \(S\) +\| modified \(S\) +\| KEYS_ONLY ", out)
    assert "sensors: 1300 items" in out and "drive: 675 items" in out


@uses("describe-explain")
def test_explain_and_explain_analyze(local: LocalRuns) -> None:
    run = local["describe-explain"]
    out = run.stdout
    assert "Query tenants" in out
    assert '"KeyConditionExpression": "#pk = :v0"' in out
    assert '"S": "TENANT#acme"' in out
    actual = re.search(
        rf"actual: 1 request, {ACME_ITEMS} items scanned, ([\d,]+) bytes \(([\d.]+) KB\), "
        rf"{ACME_ITEMS} rows, {EST}",
        out,
    )
    assert actual, out
    footers = run.err_lines[-2:]
    assert run.err_lines.count("plan only: no request was sent") == 2  # sensors, tenants
    assert footers[0] == "plan only: no request was sent"
    assert re.fullmatch(
        rf"analyzed · Query tenants · {ACME_ITEMS} items scanned · {actual.group(2)} KB · {EST} · "
        f"{FOOTER_TIME}",
        footers[1],
    ), footers[1]
    # SELECT * reads whole items: the bytes are theirs, and one page costs them in 4 KB units,
    # half for an eventually consistent read
    size = int(actual.group(1).replace(",", ""))
    assert Decimal(actual.group(3)) == Decimal(math.ceil(size / 4096)) / 2


local_run(
    "explain-json",
    "--format",
    "json",
    "--segments",
    "4",
    "--rate-limit",
    "1000",
    "-e",
    f"EXPLAIN {TENANTS_QUERY}",
    "-e",
    f"EXPLAIN ANALYZE {TENANTS_QUERY}",
    "-e",
    "EXPLAIN SELECT * FROM sensors",
    "-e",
    "SELECT COUNT(*) AS n FROM sensors",
)


@uses("describe-explain")
def test_segments_in_explain(local: LocalRuns) -> None:
    out = local["describe-explain"].stdout
    assert "Scan sensors (4 segments)" in out
    assert "Segment 0..3 of TotalSegments 4" in out


@uses("explain-json")
def test_explain_json_is_one_object_per_statement(local: LocalRuns) -> None:
    run = local["explain-json"]
    assert run.returncode == 0, run.stderr
    docs = json_documents(run.stdout)
    assert len(docs) == 4 and all(isinstance(d, dict) for d in docs[:3])
    plan, analyzed, scan, count = docs
    assert plan["operation"] == "Query" and plan["table"] == "tenants"
    assert plan["index"] is None
    params = plan["requests"][0]["params"]
    assert params["TableName"] == "tenants"
    assert params["ExpressionAttributeValues"] == {":v0": {"S": "TENANT#acme"}}
    assert "actual" not in plan
    actual = analyzed["actual"]
    assert actual["requests"] == 1
    assert actual["items_scanned"] == ACME_ITEMS and actual["rows"] == ACME_ITEMS
    assert actual["capacity_estimated"] is False  # computed by DynamoDB's rules
    assert scan["operation"] == "Scan" and scan["segments"] == 4
    assert run.err_lines.count("plan only: no request was sent") == 2
    # the Scan itself: four segments, all read, under --rate-limit too
    assert count == [{"n": 1300}]
    assert any(
        line.startswith("1 row · Scan sensors (4 segments) · 1300 items scanned · ")
        for line in run.err_lines
    ), run.stderr


# --- errors: unknown table and index, exit 1, earlier output stays, --debug ----------------------

local_run("show-then-unknown", "--format", "csv", "-e", "SHOW TABLES", "-e", "SELECT * FROM nope")


@uses("show-then-unknown")
def test_show_tables_then_unknown_table(local: LocalRuns) -> None:
    run = local["show-then-unknown"]
    assert run.returncode == 1
    lines = run.stdout.splitlines()  # the first statement's output stays printed
    assert lines[0] == "table" and sorted(lines[1:]) == sorted(datasets.DATASETS)
    error = run.one_error()
    assert error.startswith("error: no table named nope")
    for name in datasets.DATASETS:
        assert name in error


local_run("unknown-index", "-e", "SELECT * FROM sensors.nope WHERE region = 'eu-west'")
local_run("unknown-index-debug", "--debug", "-e", "SELECT * FROM tenants.nope WHERE gsi1pk = 'x'")


@uses("unknown-index", "unknown-index-debug")
def test_unknown_index_lists_indexes_and_debug_shows_traceback(local: LocalRuns) -> None:
    plain = local["unknown-index"]
    assert plain.returncode == 1 and plain.stdout == ""
    error = plain.one_error()  # no traceback without --debug
    assert "nope" in error and "by_region" in error
    debug = local["unknown-index-debug"]
    assert debug.returncode == 1 and debug.stdout == ""
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.err_lines[-1].startswith("error: ") and "gsi1" in debug.err_lines[-1]


@pytest.mark.slow
def test_syntax_error_in_a_file_fails_before_anything_runs() -> None:
    run = dynosql_cmd("--local", "-f", str(DATA / "cli_syntax_error.sql"))
    assert run.returncode == 1
    assert run.stdout == ""  # SHOW TABLES on line 1 did not run
    assert run.one_error().startswith("error: line 3, column 33: ")
    assert run.err_lines == [run.err_lines[-1]]  # no footer: nothing ran


@pytest.mark.slow
def test_syntax_error_in_second_e_names_it() -> None:
    run = dynosql_cmd("--local", "-e", GET_BEACH, "-e", "SELECT name FROM drive WHERE PK = ")
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.one_error().startswith("error: -e #2: line 1, column ")


@pytest.mark.slow
def test_a_misspelt_first_word_is_named_before_anything_runs() -> None:
    """The second -e's first word is no statement's: named, with the statement word it is
    closest to (keywords.STARTERS), before the first -e is sent."""
    script = ("SHOW TABLES", "CRETE TABLE t (pk S, PRIMARY KEY (pk))")
    run = dynosql_cmd("--endpoint-url", "http://127.0.0.1:9", "-e", script[0], "-e", script[1])
    assert run.returncode == 1 and run.stdout == ""
    assert run.one_error() == (
        "error: -e #2: line 1, column 1: unknown word CRETE: did you mean CREATE?"
    )


@pytest.mark.slow
def test_a_backslash_command_says_it_is_the_repls_and_what_to_write() -> None:
    """`dynosql -e '\\dt'` (a newcomer's first try) names the REPL command and the SQL a script
    writes instead, before any request (the endpoint is never reached)."""
    run = dynosql_cmd("--endpoint-url", "http://127.0.0.1:9", "-e", "SHOW TABLES", "-e", "\\dt")
    assert run.returncode == 1 and run.stdout == ""
    assert run.one_error() == (
        "error: -e #2: line 1, column 1: \\dt is a command of the REPL: in a script, "
        "write SHOW TABLES"
    )


@pytest.mark.slow
def test_unreadable_file() -> None:
    run = dynosql_cmd("--local", "-f", str(DATA / "no-such-file.sql"))
    assert run.returncode == 2 and run.stdout == ""  # bad usage (issue 10)
    assert "no-such-file.sql" in run.one_error()


# --- bad usage: exit 2 ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, mentions",
    [
        (["--nope"], "--nope"),
        (["--format", "nope", "-e", "SHOW TABLES"], "nope"),
        (["--local", "--endpoint-url", "http://127.0.0.1:1", "-e", "SHOW TABLES"], "--local"),
        (["--local", "-e", "SHOW TABLES", "-f", "x.sql"], "-f"),
        (["--local", "-v", "novalue", "-e", "SHOW TABLES"], "novalue"),
        (["--local", "-v", "x:={bad", "-e", "SHOW TABLES"], "x"),
        (["--local", "--segments", "0", "-e", "SHOW TABLES"], "--segments"),
        (["--local", "--max-rcu", "lots", "-e", "SHOW TABLES"], "--max-rcu"),
        (["--local", "--rate-limit", "0", "-e", "SHOW TABLES"], "--rate-limit"),
    ],
)
def test_bad_usage_exits_2(args: list[str], mentions: str) -> None:
    run = dynosql_cmd(*args)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    last = run.err_lines[-1]
    assert "error: " in last and mentions in last, run.stderr


# --- --version, --help, imports, console script -----------------------------------------------------


@pytest.mark.slow
def test_version() -> None:
    run = dynosql_cmd("--version")
    assert run.returncode == 0
    assert run.stdout == f"dynosql {dynosql.__version__}\n"


@pytest.mark.slow
def test_help_shows_flags_and_examples() -> None:
    run = dynosql_cmd("--help")
    assert run.returncode == 0
    for flag in (
        "--local",
        "--endpoint-url",
        "--region",
        "--profile",
        "--execute",
        "--file",
        "--var",
        "--format",
        "--quiet",
        "--consistent",
        "--fail-on-scan",
        "--max-rcu",
        "--segments",
        "--rate-limit",
        "--debug",
        "--version",
    ):
        assert flag in run.stdout, flag
    assert "examples:" in run.stdout
    assert "dynosql --local -e " in run.stdout
    assert "exit codes" in run.stdout


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_aws_or_data_library(flag: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dynosql", flag],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=clean_env(),
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0
    modules = [
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    ]
    assert "dynosql.cli" in modules  # the measurement worked
    heavy = [
        m
        for m in modules
        if m.split(".")[0] in ("boto3", "botocore", "moto", "sqlalchemy", "pandas", "IPython")
    ]
    assert heavy == []


@pytest.mark.slow
def test_console_script_version() -> None:
    proc = subprocess.run(
        [console_script(), "--version"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0 and proc.stdout == f"dynosql {dynosql.__version__}\n"


# --- pipes and signals --------------------------------------------------------------------------------


@pytest.mark.slow
def test_sigpipe_head_is_quiet(tmp_path: Path) -> None:
    """``dynosql --local -e "SELECT * FROM audit" --format jsonl | head -1``"""
    err, status = tmp_path / "err", tmp_path / "status"
    script = '"$@" 2>"$ERR" | head -n 1; echo "${PIPESTATUS[0]}" >"$STATUS"'
    proc = subprocess.run(
        ["bash", "-c", script, "bash", console_script(), "--local"]
        + ["-e", "SELECT * FROM audit", "--format", "jsonl"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=clean_env(ERR=str(err), STATUS=str(status)),
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["PK"].startswith("ACTOR#")
    assert status.read_text().strip() == "0"
    stderr = err.read_text()
    assert "Traceback" not in stderr and "Broken" not in stderr and "error" not in stderr


@pytest.mark.slow
def test_sigint_during_a_read_exits_130() -> None:
    """Ctrl-C while a Scan is throttled by --rate-limit 1 (15 RCU: ~15 s of reading)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "dynosql", "--local", "--rate-limit", "1", "--format", "jsonl"]
        + ["-e", "SELECT * FROM sensors"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
        cwd=ROOT,
        # a runner that ignores SIGINT (a background job) must not pass that on
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # the Scan warning comes just before the rows are read
        ready, _, _ = select.select([proc.stderr], [], [], TIMEOUT)
        assert ready, "no output from dynosql"
        first = proc.stderr.readline().decode()
        assert first.startswith("warning: Scan of sensors"), first
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = first + rest.decode()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "interrupted" in stderr.splitlines()[-1]
    lines = out.decode().splitlines()
    assert len(lines) < 1300  # interrupted before the end
    for line in lines:
        json.loads(line)


# --- other servers: --endpoint-url, AWS environment, unreachable ------------------------------------

BIG = Decimal("12345678901234567890.123456789012345678")  # 38 digits: no float survives this


@pytest.fixture(scope="module")
def remote_table(backend: Any) -> tuple[Any, str]:
    name = unique_name("cli")
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    backend.put_items(
        name,
        [
            {
                "id": "a",
                "big": BIG,
                "nothing": None,
                "tags": StringSet({"y", "x"}),
                "note": "naïve ☃",
                "n": Decimal("-0.5"),
            },
            {"id": "b"},
        ],
    )
    return backend, name


def remote_env(**extra: str) -> dict[str, str]:
    settings = {
        "AWS_ACCESS_KEY_ID": "dummy",
        "AWS_SECRET_ACCESS_KEY": "dummy",
        "AWS_REGION": "us-east-1",
        "AWS_MAX_ATTEMPTS": "2",
    }
    return clean_env(**{**settings, **extra})


def check_remote_run(run: Run, table: str, backend_name: str) -> None:
    assert run.returncode == 0, run.stderr
    rows, tables = json_documents(run.stdout)
    assert rows == [
        {
            "id": "a",
            "big": BIG,
            "n": Decimal("-0.5"),
            "nothing": None,
            "note": "naïve ☃",
            "tags": ["x", "y"],
        }
    ]
    assert str(BIG) in run.stdout and "naïve ☃" in run.stdout
    assert {"table": table} in tables
    # every backend reports real capacity: no "~ … est." label (the embedded moto server
    # computes it by DynamoDB's rules, dynosql.local.metering)
    footer = next(line for line in run.err_lines if "GetItem" in line)
    capacity = r"\d+(\.\d+)? RCU"
    # the item read whole: its DynamoDB size (names, a 38-digit number, UTF-8, a set) is shown
    assert re.fullmatch(
        rf"1 row · GetItem {table} · 1 item scanned · 58 bytes · {capacity} · {FOOTER_TIME}",
        footer,
    ), footer


@pytest.mark.slow
def test_endpoint_url(remote_table: tuple[Any, str]) -> None:
    backend, table = remote_table
    sql = ["-e", f"SELECT * FROM {table} WHERE id = 'a'", "-e", "SHOW TABLES"]
    run = dynosql_cmd(
        "--endpoint-url", backend.endpoint_url, "--format", "json", *sql, env=remote_env()
    )
    check_remote_run(run, table, backend.name)


@pytest.mark.slow
def test_endpoint_from_environment_and_region_flag(remote_table: tuple[Any, str]) -> None:
    backend, table = remote_table
    env = remote_env(AWS_ENDPOINT_URL_DYNAMODB=backend.endpoint_url)
    env.pop("AWS_REGION")
    sql = ["-e", f"SELECT * FROM {table} WHERE id = 'a'", "-e", "SHOW TABLES"]
    run = dynosql_cmd("--region", "us-east-1", "--format", "json", *sql, env=env)
    check_remote_run(run, table, backend.name)


@pytest.mark.slow
def test_profile(remote_table: tuple[Any, str], tmp_path: Path) -> None:
    backend, table = remote_table
    config = tmp_path / "config"
    config.write_text("[profile cli-test]\nregion = us-east-1\n")
    credentials = tmp_path / "credentials"
    credentials.write_text("[cli-test]\naws_access_key_id = dummy\naws_secret_access_key = dummy\n")
    env = clean_env(AWS_CONFIG_FILE=str(config), AWS_SHARED_CREDENTIALS_FILE=str(credentials))
    sql = ["-e", f"SELECT * FROM {table} WHERE id = 'a'", "-e", "SHOW TABLES"]
    url = ["--endpoint-url", backend.endpoint_url]
    run = dynosql_cmd(*url, "--profile", "cli-test", "--format", "json", *sql, env=env)
    check_remote_run(run, table, backend.name)
    missing = dynosql_cmd(*url, "--profile", "no-such-profile", *sql, env=env)
    assert missing.returncode == 1 and missing.stdout == ""
    assert "no-such-profile" in missing.one_error()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_unreachable_endpoint_is_one_line_error() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    env = remote_env(AWS_MAX_ATTEMPTS="1")
    run = dynosql_cmd("--endpoint-url", url, "-e", "SHOW TABLES", env=env)
    assert run.returncode == 1
    assert run.stdout == ""
    error = run.one_error()
    assert url.removeprefix("http://") in error
    assert run.err_lines == [error]
