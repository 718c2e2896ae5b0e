"""Faults on the wire: real requests to moto, dynalite and DynamoDB Local through a
fault-injecting proxy.

tests/faultproxy.py sits on 127.0.0.1 in front of each server and answers chosen calls with a
throttle (ProvisionedThroughputExceededException / ThrottlingException), a 500, a reset
connection, or (BatchGetItem) a valid answer that leaves keys unprocessed. Each test checks the
complete answer: every expected item exactly once, values intact, in key order where the read
has one. When the failures never stop, the CLI must print one ``error:`` line, exit 1, and leave
well-formed output behind.

Speed: timing is not under test here, completeness is. ``Env.session`` gives most tests a
Session whose waits are capped at 10 ms and whose client leaves every try to dynosql
(``backends.quick_session``); one test keeps the client and the waits users get. The CLI runs
in a subprocess; in the "retries exhausted" tests the subprocess has ``time.sleep`` replaced by
a no-op for the same reason (with real sleeps an exhausted statement
takes tens of seconds: see benchmarks/README.md).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, free_port, quick_session, unique_name
from faultproxy import FaultProxy

from dynosql.errors import DynosqlError
from dynosql.session import Session, Settings, make_client

pytestmark = pytest.mark.slow  # real processes, fault injection: run in CI, not in the fast loop

ERROR_ACTIONS = ("throttle", "throttling", "500", "reset")
BLOB = 25_000  # bytes of padding per item: about 40 items fill a 1 MB page
HOT_ITEMS = 100  # items in partition 'hot': three pages of Query
COLD_PARTITIONS = 4
COLD_ITEMS = 20
HUGE_BLOB = 399_000  # items just under the 400 KB item limit (moto: 400,000 bytes)
HUGE_ITEMS = 6


def _item(pk: str, sk: int) -> dict[str, Any]:
    # a blob that differs per item, so a mixed-up item cannot compare equal
    pad = (f"{pk}:{sk}:" * (BLOB // 8 + 1))[:BLOB]
    return {"pk": pk, "sk": Decimal(sk), "n": Decimal(sk % 17), "tag": f"t{sk % 3}", "blob": pad}


@dataclass
class Env:
    backend: Backend
    proxy: FaultProxy
    table: str
    small: str
    huge: str
    items: dict[tuple[str, Decimal], dict] = field(default_factory=dict)
    small_items: list[dict] = field(default_factory=list)
    huge_items: list[dict] = field(default_factory=list)
    deep_segment: int = 0  # a segment (of 4) whose Scan takes more than one page

    def session(self, real_backoff: bool = False, **settings: Any) -> Session:
        """Waits capped at 10 ms (`quick_session`) unless `real_backoff`: the client as users
        get it."""
        if not real_backoff:
            return quick_session(self.proxy.url, Settings(**settings))
        client = make_client(endpoint_url=self.proxy.url, credentials=("testing", "testing"))
        return Session(client, settings=Settings(**settings))

    def expected(self, pk: str | None = None) -> list[dict]:
        rows = [i for (p, _), i in self.items.items() if pk is None or p == pk]
        return sorted(rows, key=lambda i: (i["pk"], i["sk"]))


def _key_table(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            *extra.pop("definitions", []),
        ],
        "BillingMode": "PAY_PER_REQUEST",
        **extra,
    }


def _build(backend: Backend) -> Env:
    table, small, huge = unique_name("faults"), unique_name("small"), unique_name("huge")
    backend.create_table(
        **_key_table(
            table,
            definitions=[{"AttributeName": "tag", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "by_tag",
                    "KeySchema": [
                        {"AttributeName": "tag", "KeyType": "HASH"},
                        {"AttributeName": "sk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ],
        )
    )
    items = [_item("hot", i) for i in range(HOT_ITEMS)]
    items += [_item(f"p{p}", i) for p in range(COLD_PARTITIONS) for i in range(COLD_ITEMS)]
    backend.put_items(table, items)

    backend.create_table(**_key_table(small))
    small_items = [
        {"pk": f"a{i % 4}", "sk": Decimal(i), "n": Decimal(i), "word": f"w{i % 10}"}
        for i in range(240)
    ]
    backend.put_items(small, small_items)

    backend.create_table(**_key_table(huge))
    huge_items = []
    for i in range(HUGE_ITEMS):
        # every item different, and multi-byte text near the end
        body = (chr(0x41 + i) * (HUGE_BLOB - 8)) + "äöü€"
        huge_items.append({"pk": "big", "sk": Decimal(i), "body": body})
    backend.put_items(huge, huge_items)

    # which Scan segment (of 4) spans several pages: the place for a mid-segment fault
    client = backend.client()
    pages = []
    for segment in range(4):
        count, kwargs = 0, {"TableName": table, "Segment": segment, "TotalSegments": 4}
        while True:
            page = client.scan(Select="COUNT", **kwargs)
            count += 1
            if not page.get("LastEvaluatedKey"):
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        pages.append(count)

    proxy = FaultProxy(backend.endpoint_url).start()
    e = Env(backend, proxy, table, small, huge)
    e.items = {(i["pk"], i["sk"]): i for i in items}
    e.small_items = small_items
    e.huge_items = huge_items
    e.deep_segment = max(range(4), key=lambda s: pages[s])
    assert pages[e.deep_segment] >= 2, pages
    return e


_ENVS: dict[str, Env] = {}


@pytest.fixture(scope="module", autouse=True)
def _teardown_envs() -> Iterator[None]:
    yield
    while _ENVS:
        _, e = _ENVS.popitem()
        e.proxy.stop()
        for name in (e.table, e.small, e.huge):
            e.backend.delete_table(name)


def _env_for(backend: Backend) -> Env:
    if backend.name not in _ENVS:
        _ENVS[backend.name] = _build(backend)
    return _ENVS[backend.name]


@pytest.fixture
def env(backend: Backend) -> Env:
    """The tables and the proxy on each server (built once per module)."""
    return _env_for(backend)


@pytest.fixture
def cli_env(dynalite_backend: Backend) -> Env:
    """For the CLI tests: the rendering does not depend on the server, so dynalite only."""
    return _env_for(dynalite_backend)


def _clean(proxy: FaultProxy) -> Iterator[FaultProxy]:
    proxy.reset_rules()
    yield proxy
    proxy.reset_rules()


@pytest.fixture
def proxy(env: Env) -> Iterator[FaultProxy]:
    yield from _clean(env.proxy)


@pytest.fixture
def cli_proxy(cli_env: Env) -> Iterator[FaultProxy]:
    yield from _clean(cli_env.proxy)


def _exact(rows: list[dict], expected: list[dict]) -> None:
    """Every expected item exactly once, each equal in every attribute."""
    keys = Counter((r["pk"], r["sk"]) for r in rows)
    duplicates = [k for k, n in keys.items() if n > 1]
    assert not duplicates, f"duplicated rows: {duplicates[:5]}"
    want = {(i["pk"], i["sk"]): i for i in expected}
    missing = sorted(set(want) - set(keys))
    extra = sorted(set(keys) - set(want))
    assert not missing and not extra, f"missing {missing[:5]}, unexpected {extra[:5]}"
    for row in rows:
        assert row == want[(row["pk"], row["sk"])]


def _has_esk(body: dict) -> bool:
    return "ExclusiveStartKey" in body


def _forwarded(proxy: FaultProxy, operation: str) -> list[dict]:
    return [c.body for c in proxy.calls(operation) if c.action == "forward"]


# --- a paginated Query --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action, failures",
    [(a, 4) for a in ERROR_ACTIONS] + [("throttle", 1), ("reset", 1)],
    ids=[f"{a}-4x" for a in ERROR_ACTIONS] + ["throttle-once", "reset-once"],
)
def test_query_pages_survive_faults(
    env: Env, proxy: FaultProxy, action: str, failures: int
) -> None:
    """A fault on the second page of a 3-page Query, once or four times in a row (more than
    botocore's own attempts, so dynosql must resume from the same ExclusiveStartKey)."""
    rule = proxy.fail("Query", action, calls=range(1, failures + 1), match=_has_esk)
    rows = env.session().execute(f"SELECT * FROM {env.table} WHERE pk = 'hot'").all()
    assert rule.hits == failures
    expected = env.expected("hot")
    _exact(rows, expected)
    assert [r["sk"] for r in rows] == [i["sk"] for i in expected]  # key order kept
    # resumed, never restarted: every page was read once, in a chain
    forwarded = _forwarded(proxy, "Query")
    starts = [json.dumps(b.get("ExclusiveStartKey"), sort_keys=True) for b in forwarded]
    assert len(starts) == len(set(starts)) >= 3
    failed = [c.body for c in proxy.calls("Query") if c.action != "forward"]
    assert all(b["ExclusiveStartKey"] == forwarded[1]["ExclusiveStartKey"] for b in failed)


def test_query_fault_on_first_page(env: Env, proxy: FaultProxy) -> None:
    proxy.fail("Query", "throttle", calls=[1, 2, 3, 4, 5])
    rows = env.session().execute(f"SELECT * FROM {env.table} WHERE pk = 'hot'").all()
    _exact(rows, env.expected("hot"))


def test_query_survives_a_throttle_with_real_backoff(env: Env, proxy: FaultProxy) -> None:
    """No sleep capping here: the client as users get it, one throttle mid-Query."""
    proxy.fail("Query", "throttle", calls=[1], match=_has_esk)
    rows = env.session(real_backoff=True).execute(f"SELECT * FROM {env.table} WHERE pk = 'hot'")
    _exact(rows.all(), env.expected("hot"))


def test_count_survives_faults(env: Env, proxy: FaultProxy) -> None:
    proxy.fail("Query", "500", calls=range(1, 5), match=_has_esk)
    rows = env.session().execute(f"SELECT COUNT(*) AS c FROM {env.table} WHERE pk = 'hot'").all()
    assert rows == [{"c": Decimal(HOT_ITEMS)}]


def test_group_by_survives_faults(env: Env, proxy: FaultProxy) -> None:
    proxy.fail("Query", "reset", calls=range(1, 5), match=_has_esk)
    sql = f"SELECT tag, COUNT(*) AS c, SUM(n) AS s FROM {env.table} WHERE pk = 'hot' GROUP BY tag"
    rows = env.session().execute(sql).all()
    want: dict[str, list[Decimal]] = {}
    for item in env.expected("hot"):
        c, s = want.setdefault(item["tag"], [Decimal(0), Decimal(0)])
        want[item["tag"]] = [c + 1, s + item["n"]]
    assert {r["tag"]: [r["c"], r["s"]] for r in rows} == want


# --- a parallel Scan --------------------------------------------------------------------------


@pytest.mark.parametrize("action", ERROR_ACTIONS)
def test_parallel_scan_segment_survives_faults(env: Env, proxy: FaultProxy, action: str) -> None:
    """SET segments = 4; one segment's second page fails four times in a row."""
    deep = env.deep_segment
    rule = proxy.fail(
        "Scan", action, calls=range(1, 5), match=lambda b: b.get("Segment") == deep and _has_esk(b)
    )
    session = env.session()
    session.execute("SET segments = 4").all()
    rows = session.execute(f"SELECT * FROM {env.table}").all()
    assert rule.hits == 4
    _exact(rows, env.expected())
    segments = Counter(b.get("Segment") for b in _forwarded(proxy, "Scan"))
    assert set(segments) == {0, 1, 2, 3}  # really sent as 4 segments


def test_parallel_scan_faults_in_every_segment(env: Env, proxy: FaultProxy) -> None:
    for segment, action in zip(range(4), ERROR_ACTIONS, strict=True):
        proxy.fail("Scan", action, calls=[1, 2], match=lambda b, s=segment: b.get("Segment") == s)
    rows = env.session(segments=4).execute(f"SELECT * FROM {env.table}").all()
    _exact(rows, env.expected())


# --- BatchGetItem -------------------------------------------------------------------------------

BATCH_KEYS = list(range(COLD_ITEMS)) + [500, 501]  # 20 items and 2 keys that match nothing


def _batch_sql(env: Env) -> str:
    keys = ", ".join(str(k) for k in BATCH_KEYS)
    return f"SELECT * FROM {env.table} WHERE pk = 'p1' AND sk IN ({keys})"


@pytest.mark.parametrize("action", ERROR_ACTIONS)
def test_batch_get_survives_faults(env: Env, proxy: FaultProxy, action: str) -> None:
    proxy.fail("BatchGetItem", action, calls=range(1, 5))
    rows = env.session().execute(_batch_sql(env)).all()
    assert proxy.calls("BatchGetItem"), "the IN on the sort key should be a BatchGetItem"
    _exact(rows, env.expected("p1"))


def test_batch_get_retries_unprocessed_keys(env: Env, proxy: FaultProxy) -> None:
    proxy.fail("BatchGetItem", "unprocessed", calls=[1, 2])
    rows = env.session().execute(_batch_sql(env)).all()
    _exact(rows, env.expected("p1"))
    calls = proxy.calls("BatchGetItem")
    assert len(calls) >= 3
    # a retry asks again for exactly the keys held back, nothing more
    first, second = (c.body["RequestItems"][env.table]["Keys"] for c in calls[:2])
    assert second == first[len(first) // 2 :]


def test_batch_get_unprocessed_mixed_with_errors(env: Env, proxy: FaultProxy) -> None:
    proxy.fail("BatchGetItem", "unprocessed", calls=[1, 3])
    proxy.fail("BatchGetItem", "reset", calls=[2])
    proxy.fail("BatchGetItem", "throttle", calls=[4])
    rows = env.session().execute(_batch_sql(env)).all()
    _exact(rows, env.expected("p1"))


def test_index_fetch_survives_unprocessed_keys(env: Env, proxy: FaultProxy) -> None:
    """A KEYS_ONLY GSI read fetches full items with BatchGetItem; some come back unprocessed."""
    proxy.fail("BatchGetItem", "unprocessed", calls=[1, 2, 4])
    proxy.fail("BatchGetItem", "throttle", calls=[3])
    rows = env.session().execute(f"SELECT * FROM {env.table}.by_tag WHERE tag = 't1'").all()
    assert proxy.calls("BatchGetItem")
    _exact(rows, [i for i in env.expected() if i["tag"] == "t1"])


# --- retries exhausted: the CLI ----------------------------------------------------------------

# The CLI as users run it, except that time.sleep does nothing (no backoff waits).
NO_SLEEP = (
    "import sys, time; time.sleep = lambda s: None; from dynosql.cli import main; sys.exit(main())"
)


def _clean_env(home: Path, credentials: bool = True) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(home / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-credentials"),
        "PYTHONIOENCODING": "utf-8",
    }
    if credentials:
        env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    return env


def _cli(
    args: list[str], env: dict[str, str], sleep: bool = False
) -> subprocess.CompletedProcess[str]:
    prefix = [sys.executable, "-m", "dynosql"] if sleep else [sys.executable, "-c", NO_SLEEP]
    return subprocess.run(
        prefix + args, env=env, capture_output=True, text=True, encoding="utf-8", timeout=120
    )


def _one_error_line(stderr: str) -> str:
    """stderr ends in exactly one `error:` line and has no traceback; returns that line."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert lines[-1] == errors[0], stderr
    return errors[0]


@pytest.mark.parametrize("action", ["throttle", "500", "reset"])
def test_exhausted_query_json_stays_valid(
    cli_env: Env, cli_proxy: FaultProxy, tmp_path: Path, action: str
) -> None:
    """Page 1 arrives, every later page fails: exit 1, one error line, a closed JSON array."""
    cli_proxy.fail("Query", action, match=_has_esk)
    sql = f"SELECT * FROM {cli_env.table} WHERE pk = 'hot'"
    done = _cli(
        ["--endpoint-url", cli_proxy.url, "--format", "json", "-e", sql], _clean_env(tmp_path)
    )
    assert done.returncode == 1, done.stderr
    line = _one_error_line(done.stderr)
    if action in ("throttle", "throttling"):
        assert "throttl" in line.lower()
    rows = json.loads(done.stdout)  # well-formed although the statement failed midway
    assert 0 < len(rows) < HOT_ITEMS
    expected = cli_env.expected("hot")[: len(rows)]
    assert [r["sk"] for r in rows] == [int(i["sk"]) for i in expected]
    assert [r["blob"] for r in rows] == [i["blob"] for i in expected]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_exhausted_query_streams_whole_lines(
    cli_env: Env, cli_proxy: FaultProxy, tmp_path: Path, fmt: str
) -> None:
    cli_proxy.fail("Query", "500", match=_has_esk)
    sql = f"SELECT pk, sk, n, tag FROM {cli_env.table} WHERE pk = 'hot'"
    done = _cli(["--endpoint-url", cli_proxy.url, "--format", fmt, "-e", sql], _clean_env(tmp_path))
    assert done.returncode == 1, done.stderr
    _one_error_line(done.stderr)
    assert done.stdout.endswith("\n")
    lines = done.stdout.splitlines()
    if fmt == "jsonl":
        rows = [json.loads(line) for line in lines]
        sks = [r["sk"] for r in rows]
    else:
        parsed = list(csv.reader(io.StringIO(done.stdout), delimiter="," if fmt == "csv" else "\t"))
        assert parsed[0] == ["pk", "sk", "n", "tag"]
        assert all(len(row) == 4 for row in parsed[1:])
        sks = [int(row[1]) for row in parsed[1:]]
    assert 0 < len(sks) < HOT_ITEMS
    assert sks == list(range(len(sks)))


def test_exhausted_parallel_scan_json_stays_valid(
    cli_env: Env, cli_proxy: FaultProxy, tmp_path: Path
) -> None:
    deep = cli_env.deep_segment
    cli_proxy.fail("Scan", "throttle", match=lambda b: b.get("Segment") == deep and _has_esk(b))
    args = ["--endpoint-url", cli_proxy.url, "--format", "json", "--segments", "4"]
    done = _cli([*args, "-e", f"SELECT pk, sk FROM {cli_env.table}"], _clean_env(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "throttl" in _one_error_line(done.stderr).lower()
    rows = json.loads(done.stdout)
    keys = [(r["pk"], r["sk"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert set(keys) <= {(pk, int(sk)) for pk, sk in cli_env.items}


def test_exhausted_unprocessed_keys_is_an_error(
    cli_env: Env, cli_proxy: FaultProxy, tmp_path: Path
) -> None:
    cli_proxy.fail("BatchGetItem", "unprocessed")
    done = _cli(
        ["--endpoint-url", cli_proxy.url, "--format", "json", "-e", _batch_sql(cli_env)],
        _clean_env(tmp_path),
    )
    assert done.returncode == 1, done.stderr
    assert "unprocessed" in _one_error_line(done.stderr).lower()
    if done.stdout:
        json.loads(done.stdout)


def test_exhausted_script_keeps_earlier_results(
    cli_env: Env, cli_proxy: FaultProxy, tmp_path: Path
) -> None:
    """A script stops at the failing statement; what the earlier ones printed stays."""
    cli_proxy.fail(
        "Query",
        "throttle",
        match=lambda b: {"S": "a1"} not in b["ExpressionAttributeValues"].values(),
    )
    script = (
        f"SELECT pk, sk FROM {cli_env.small} WHERE pk = 'a1' AND sk < 20;\n"
        f"SELECT pk, sk FROM {cli_env.small} WHERE pk = 'a2';\n"
        f"SELECT pk, sk FROM {cli_env.small} WHERE pk = 'a3';\n"
    )
    done = _cli(
        ["--endpoint-url", cli_proxy.url, "--format", "jsonl", "-e", script], _clean_env(tmp_path)
    )
    assert done.returncode == 1, done.stderr
    _one_error_line(done.stderr)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows == [{"pk": "a1", "sk": sk} for sk in range(1, 20, 4)]


# --- credentials, endpoint, profile ---------------------------------------------------------


def test_missing_credentials_with_endpoint(cli_env: Env, tmp_path: Path) -> None:
    done = _cli(
        [
            "--endpoint-url",
            cli_env.proxy.url,
            "-e",
            f"SELECT * FROM {cli_env.small} WHERE pk = 'a1'",
        ],
        _clean_env(tmp_path, credentials=False),
        sleep=True,
    )
    assert done.returncode == 1
    assert "credentials" in _one_error_line(done.stderr).lower()
    assert done.stdout == ""


def test_missing_credentials_aws(tmp_path: Path) -> None:
    done = _cli(
        ["--region", "eu-west-1", "-e", "SELECT * FROM t WHERE pk = 'a'"],
        _clean_env(tmp_path, credentials=False),
        sleep=True,
    )
    assert done.returncode == 1
    assert "credentials" in _one_error_line(done.stderr).lower()


def test_missing_region(tmp_path: Path) -> None:
    done = _cli(["-e", "SELECT * FROM t WHERE pk = 'a'"], _clean_env(tmp_path), sleep=True)
    assert done.returncode == 1
    assert "region" in _one_error_line(done.stderr).lower()


def test_unreachable_endpoint(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    done = _cli(
        ["--endpoint-url", url, "-e", "SELECT * FROM t WHERE pk = 'a'"],
        _clean_env(tmp_path),
        sleep=True,
    )
    assert done.returncode == 1
    line = _one_error_line(done.stderr)
    assert "reach" in line.lower() and url in line


def test_unknown_profile(tmp_path: Path) -> None:
    done = _cli(
        ["--profile", "no-such-profile", "-e", "SELECT * FROM t WHERE pk = 'a'"],
        _clean_env(tmp_path),
        sleep=True,
    )
    assert done.returncode == 1
    assert "no-such-profile" in _one_error_line(done.stderr)


# --- limits ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "where",
    ["pk IN ({})", "pk = 'a1' AND n IN ({})", "pk = 'a1' AND sk IN ({})"],
    ids=["partition-key", "filter", "sort-key"],
)
def test_more_than_1000_in_operands_is_a_clear_error(
    env: Env, proxy: FaultProxy, where: str
) -> None:
    # more than 100 are batched or split (issue 10: test_robustness.py); 1000 is the cap
    operands = ", ".join(str(i) for i in range(1001))
    with pytest.raises(DynosqlError) as caught:
        env.session().execute(f"SELECT * FROM {env.small} WHERE {where.format(operands)}").all()
    message = str(caught.value)
    assert "\n" not in message and "1000" in message and "IN" in message
    assert not [c for c in proxy.log if c.operation in ("Query", "Scan", "BatchGetItem")]


def test_100_in_operands_on_the_partition_key(env: Env, proxy: FaultProxy) -> None:
    names = [f"a{i}" for i in range(100)]  # a0..a3 exist
    listed = ", ".join(f"'{n}'" for n in names)
    rows = env.session().execute(f"SELECT * FROM {env.small} WHERE pk IN ({listed})").all()
    _exact(rows, env.small_items)


def _long_or(terms: list[int]) -> str:
    return "(" + " OR ".join(f"n = {t}" for t in terms) + ")"


@pytest.mark.parametrize("keyed", [True, False], ids=["query", "scan"])
def test_filter_over_4kb_gives_the_right_answer(env: Env, proxy: FaultProxy, keyed: bool) -> None:
    terms = list(range(0, 1200, 3))  # 400 OR'ed conditions: about 6 KB of expression text
    where = ("pk = 'a1' AND " if keyed else "") + _long_or(terms)
    result = env.session().execute(f"SELECT * FROM {env.small} WHERE {where}")
    rows = result.all()
    wanted = set(terms)
    expected = [i for i in env.small_items if i["n"] in wanted and (not keyed or i["pk"] == "a1")]
    assert expected
    _exact(rows, expected)
    sent = [c.body for c in proxy.log if c.operation in ("Query", "Scan")]
    assert sent
    for body in sent:
        for key, text in body.items():
            if key.endswith("Expression"):
                assert len(text.encode()) <= 4096, key


def test_filter_of_1000_or_terms_gives_the_right_answer(env: Env, proxy: FaultProxy) -> None:
    terms = list(range(1000))
    rows = env.session().execute(f"SELECT * FROM {env.small} WHERE {_long_or(terms)}").all()
    _exact(rows, env.small_items)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM {t} WHERE pk = 'big' AND sk = 3",
        "SELECT * FROM {t} WHERE pk = 'big'",
        "SELECT * FROM {t} WHERE pk = 'big' ORDER BY sk DESC",
        "SELECT * FROM {t} WHERE pk = 'big' AND sk IN (0, 1, 2, 3, 4, 5, 6)",
        "SELECT * FROM {t}",
    ],
    ids=["get", "query", "query-desc", "batch-get", "scan"],
)
def test_items_near_400kb(env: Env, proxy: FaultProxy, sql: str) -> None:
    proxy.fail("Query", "throttle", calls=[2])
    proxy.fail("Scan", "reset", calls=[2])
    proxy.fail("BatchGetItem", "unprocessed", calls=[1])
    statement = sql.format(t=env.huge)
    rows = env.session(segments=2).execute(statement).all()
    expected = [i for i in env.huge_items if "sk = 3" not in statement or i["sk"] == 3]
    _exact(rows, expected)
    if "DESC" in statement:
        assert [r["sk"] for r in rows] == sorted((i["sk"] for i in expected), reverse=True)
