"""Issue 10, found by trying to break it: deadlines, cancellation, capacity that never runs
ahead, output that cannot be written, guards a script cannot loosen, hostile data.

Each case runs the real command: in-process (`cli_runner.run_cli`) against moto, dynalite and
DynamoDB Local through the loopback fault proxy (which logs every request), or a real subprocess
where only a process shows the behaviour (signals, a closed stdout, /dev/full).
"""

from __future__ import annotations

import csv
import http.server
import io
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from backends import ROOT, Backend, unique_name
from cli_runner import cli_env, run_cli
from faultproxy import FaultProxy
from repl_driver import drive
from test_faults import _key_table

from dynosql.errors import DynosqlError

HUGE_BLOB = 399_000  # items just under the 400 KB limit: two fill a 1 MB page
HUGE_ITEMS = 6
WIDE_ITEMS = 400  # ~1 KB items over 8 partitions: a Scan of some 100 RCU
WIDE_BLOB = 1000


@dataclass
class Env:
    backend: Backend
    proxy: FaultProxy
    huge: str
    wide: str

    def run(self, tmp_path: Any, *args: str, stdin: str | None = None) -> Any:
        return run_cli("--endpoint-url", self.proxy.url, *args, stdin=stdin, env=cli_env(tmp_path))

    def sent(self, operation: str) -> list[dict]:
        return [c.body for c in self.proxy.calls(operation)]


_ENVS: dict[str, Env] = {}


def _build(backend: Backend) -> Env:
    huge, wide = unique_name("huge"), unique_name("wide")
    backend.create_table(**_key_table(huge))
    backend.put_items(
        huge,
        [
            {"pk": "big", "sk": Decimal(i), "body": chr(0x41 + i) * HUGE_BLOB}
            for i in range(HUGE_ITEMS)
        ],
    )
    backend.create_table(**_key_table(wide))
    backend.put_items(
        wide,
        [
            {"pk": f"p{i % 8}", "sk": Decimal(i), "pad": f"{i:06d}" * (WIDE_BLOB // 6)}
            for i in range(WIDE_ITEMS)
        ],
    )
    return Env(backend, FaultProxy(backend.endpoint_url).start(), huge, wide)


@pytest.fixture(scope="module", autouse=True)
def _teardown() -> Iterator[None]:
    yield
    while _ENVS:
        _, e = _ENVS.popitem()
        e.proxy.stop()
        for name in (e.huge, e.wide):
            e.backend.delete_table(name)


def _env(backend: Backend) -> Env:
    if backend.name not in _ENVS:
        _ENVS[backend.name] = _build(backend)
    e = _ENVS[backend.name]
    e.proxy.reset_rules()
    return e


@pytest.fixture
def both(backend: Backend) -> Iterator[Env]:
    """On every server: where the requests sent are what is under test."""
    e = _env(backend)
    yield e
    e.proxy.reset_rules()


@pytest.fixture
def env(dynalite_backend: Backend) -> Iterator[Env]:
    """On dynalite (real capacity, AWS-like validation): where the command's behaviour is
    under test, which does not depend on the server."""
    e = _env(dynalite_backend)
    yield e
    e.proxy.reset_rules()


# --- 8. continuation pages ask only for the rows still wanted ---------------------------------


def test_limit_on_continuation_pages_is_what_is_left(both: Env, tmp_path: Any) -> None:
    sql = f"SELECT pk, sk FROM {both.huge} WHERE pk = 'big' LIMIT 4"
    run = both.run(tmp_path, "-e", sql, "--format", "json")
    assert run.returncode == 0, run.stderr
    assert [r["sk"] for r in json.loads(run.stdout)] == [0, 1, 2, 3]
    queries = both.sent("Query")
    limits = [q["Limit"] for q in queries]
    assert limits[0] == 4
    assert len(queries) >= 2, "400 KB items: a 1 MB page cannot hold four"
    # each continuation asks for what is still missing; four items read in all, not six
    assert limits[1:] == sorted(limits[1:], reverse=True) and all(n < 4 for n in limits[1:])
    assert "4 items scanned" in run.stderr, run.stderr


# --- 1, 10. Ctrl-C and SIGTERM: out within a second or two, saying what was read ----------------


def _start(tmp_path: Any, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dynosql", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(tmp_path),
        cwd=ROOT,
        # a background job starts with SIGINT ignored, and Python then never raises
        # KeyboardInterrupt: give the child the default, as a terminal would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for(condition: Any, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.mark.slow
def test_ctrl_c_during_a_hung_parallel_scan_exits_at_once(
    dynalite_backend: Backend, tmp_path: Any
) -> None:
    e = _env(dynalite_backend)
    e.proxy.fail("Scan", "hang")
    proc = _start(
        tmp_path, "--endpoint-url", e.proxy.url, "--segments", "8", "-e", f"SELECT * FROM {e.wide}"
    )
    try:
        _wait_for(lambda: len(e.proxy.calls("Scan")) >= 8)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert took < 3.0, took
    assert "Traceback" not in err, err
    assert "interrupted: read 0 items in 0 requests" in err, err
    assert out == ""


@pytest.mark.slow
def test_sigterm_mid_stream_closes_the_json_array(dynalite_backend: Backend, tmp_path: Any) -> None:
    e = _env(dynalite_backend)
    # a slow read: 20 RCU a second over a table of some 50 RCU
    proc = _start(
        tmp_path,
        "--endpoint-url",
        e.proxy.url,
        "--rate-limit",
        "20",
        "--format",
        "json",
        "-e",
        f"SELECT pk, sk FROM {e.wide}",
    )
    try:
        _wait_for(lambda: len(e.proxy.calls("Scan")) >= 2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert "Traceback" not in err, err
    rows = json.loads(out)  # a whole array: closed, not cut
    assert 0 < len(rows) < WIDE_ITEMS
    assert "interrupted: read" in err, err


# --- 2. a hung endpoint: an error within the deadline, configurable ------------------------------


@pytest.mark.slow
def test_hung_query_fails_within_the_deadline(dynalite_backend: Backend, tmp_path: Any) -> None:
    env = _env(dynalite_backend)
    env.proxy.fail("Query", "hang")
    started = time.monotonic()
    run = env.run(
        tmp_path,
        "--read-timeout",
        "1",
        "--deadline",
        "2",
        "-e",
        f"SELECT * FROM {env.huge} WHERE pk = 'big'",
    )
    took = time.monotonic() - started
    assert run.returncode == 1
    line = run.one_error()
    assert "cannot reach DynamoDB" in line and "deadline" in line, line
    assert took < 8, took


def test_the_proxy_is_quiet_about_a_client_that_left_before_its_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A forwarded answer that comes after the client gave up (its read timeout, as in the
    hung-query test under load): the proxy's thread printed a BrokenPipeError traceback into
    the stderr `run_cli` captures, and the test read it as dynosql's. Here the upstream holds
    its answer until the client has reset the connection."""
    asked, release = threading.Event(), threading.Event()
    with socket.socket() as upstream:
        upstream.bind(("127.0.0.1", 0))
        upstream.listen(1)

        def answer_late() -> None:
            conn, _ = upstream.accept()
            with conn:
                conn.recv(65536)
                asked.set()
                release.wait(10)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

        threading.Thread(target=answer_late, daemon=True).start()
        with FaultProxy(f"http://127.0.0.1:{upstream.getsockname()[1]}") as proxy:
            client = socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1])))
            client.sendall(
                b"POST / HTTP/1.1\r\nHost: dynamodb\r\nContent-Length: 2\r\n"
                b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n\r\n{}"
            )
            assert asked.wait(10), "the proxy never forwarded the call"
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()  # a reset: the client is gone before the answer
            release.set()
            deadline = time.monotonic() + 10
            while proxy.log[0].delivered is None and time.monotonic() < deadline:
                time.sleep(0.005)
            assert proxy.log[0].delivered is False
    assert capsys.readouterr().err == ""


def test_never_answering_socket_fails_fast(tmp_path: Any) -> None:
    with socket.socket() as listener:  # the kernel accepts; nobody ever answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        started = time.monotonic()
        run = run_cli(
            "--endpoint-url",
            url,
            "--read-timeout",
            "0.5",
            "--deadline",
            "0.5",
            "-e",
            "SHOW TABLES",
            env=cli_env(tmp_path),
        )
        took = time.monotonic() - started
    assert run.returncode == 1
    assert "cannot reach DynamoDB" in run.one_error()
    assert took < 2, took


def test_a_slow_answer_is_noted_on_a_terminal(env: Env, monkeypatch: Any) -> None:
    from dynosql.dynamo import reader as execute
    from dynosql.session import Session, Settings, make_client

    monkeypatch.setattr(execute, "SLOW_ANSWER_SECONDS", 0.2)
    env.proxy.fail("Query", "hang")
    notes: list[tuple] = []

    class Progress:
        def __call__(self, stats: Any) -> None:
            pass

        def waiting(self, operation: str, deadline: float) -> None:
            notes.append((operation, deadline))

    settings = Settings(read_timeout=Decimal("0.6"), deadline=Decimal("0.6"))
    client = make_client(env.proxy.url, credentials=("t", "t"), settings=settings)
    session = Session(client, settings=settings, progress=Progress())
    with pytest.raises(DynosqlError, match="cannot reach DynamoDB"):
        session.execute(f"SELECT * FROM {env.huge} WHERE pk = 'big'").all()
    assert notes and notes[0] == ("query", 0.6)


# --- 3. output that cannot be written: one line, a non-zero code, every format ------------------


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["table", "markdown", "vertical", "json", "jsonl", "csv", "tsv"])
def test_full_disk_fails_in_every_format(
    dynalite_backend: Backend, tmp_path: Any, fmt: str
) -> None:
    e = _env(dynalite_backend)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "dynosql", "--endpoint-url", e.proxy.url, "--format", fmt]
            + ["-e", f"SELECT * FROM {e.wide}"],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(tmp_path),
            cwd=ROOT,
            timeout=60,
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1:] == ["error: cannot write output: No space left on device"]
    assert "Traceback" not in proc.stderr


def test_closed_stdout_fails_before_any_request(dynalite_backend: Backend, tmp_path: Any) -> None:
    e = _env(dynalite_backend)
    proc = subprocess.run(
        [sys.executable, "-m", "dynosql", "--endpoint-url", e.proxy.url]
        + ["-e", f"SELECT * FROM {e.wide}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(tmp_path),
        cwd=ROOT,
        timeout=60,
        preexec_fn=lambda: os.close(1),  # `dynosql … >&-`
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines() == ["error: cannot write output: standard output is closed"]
    assert not e.proxy.calls("Scan")


# --- 7. bad setups: one line with a hint, never a traceback; usage errors exit 2 ----------------


class _Fake(http.server.BaseHTTPRequestHandler):
    """Not DynamoDB: answers every POST with HTTP `status` and `body`."""

    status = 200
    body = b""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _fake_server(status: int, body: bytes) -> Iterator[str]:
    handler = type("Handler", (_Fake,), {"status": status, "body": body})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    ).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--endpoint-url", "localhost:18000"], 2, "give the scheme and host"),
        (["--endpoint-url", "http://127.0.0.1:1", "--region", "bad_region!"], 2, "not a region"),
        (["--endpoint-url", "http://127.0.0.1:1", "-v", "p:=NaN"], 2, "NaN is not a number"),
        (["--endpoint-url", "http://127.0.0.1:1", "-v", "p:=" + "7" * 42], 2, "38 significant"),
    ],
)
def test_bad_command_lines_are_usage_errors(
    tmp_path: Any, args: list[str], code: int, words: str
) -> None:
    run = run_cli(*args, "-e", "SELECT * FROM abc WHERE pk = :p", env=cli_env(tmp_path))
    assert run.returncode == code, run.stderr
    assert words in run.one_error()


def test_missing_script_is_a_usage_error(tmp_path: Any) -> None:
    run = run_cli("-f", str(tmp_path / "missing.sql"), env=cli_env(tmp_path))
    assert run.returncode == 2
    assert "cannot read" in run.one_error()


@pytest.mark.parametrize(
    ("scheme", "status", "body", "words"),
    [
        ("http", 200, b"<html><body>Welcome</body></html>", "does not look like DynamoDB"),
        ("http", 200, b"{}", "does not look like DynamoDB"),
        ("https", 200, b"{}", "try http://"),
        ("http", 404, b"", "HTTP 404"),
    ],
)
def test_endpoints_that_are_not_dynamodb(
    tmp_path: Any, scheme: str, status: int, body: bytes, words: str
) -> None:
    with _fake_server(status, body) as where:
        for sql in ("SHOW TABLES", "SELECT * FROM abc WHERE pk = 'x'"):
            run = run_cli(
                "--endpoint-url", f"{scheme}://{where}", "--deadline", "2", "-e", sql,
                env=cli_env(tmp_path),
            )  # fmt: skip
            assert run.returncode == 1, run.stderr
            assert words in run.one_error()


def test_failing_credential_process(tmp_path: Any) -> None:
    config = tmp_path / "aws_config"
    config.write_text("[profile broken]\ncredential_process = /bin/false\n")
    env = cli_env(tmp_path, AWS_CONFIG_FILE=str(config))
    del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
    run = run_cli(
        "--profile", "broken", "--endpoint-url", "http://127.0.0.1:1", "-e", "SHOW TABLES", env=env
    )
    assert run.returncode == 1
    assert "credential_process" in run.one_error()


def test_credentials_expiring_mid_statement(env: Env, tmp_path: Any) -> None:
    env.proxy.fail("Query", "expired")
    run = env.run(tmp_path, "-e", f"SELECT * FROM {env.huge} WHERE pk = 'big'")
    assert run.returncode == 1
    line = run.one_error()
    assert "ExpiredTokenException" in line and "aws sso login" in line, line


# --- 4. a script can tighten the command line's limits, never loosen them ----------------------


@pytest.mark.parametrize(
    ("statement", "flag"),
    [
        ("SET fail_on_scan = off", "--fail-on-scan"),
        ("SET max_rcu = off", "--max-rcu 10"),
        ("SET max_rcu = 11", "--max-rcu 10"),
        ("SET rate_limit = off", "--rate-limit 50"),
    ],
)
def test_a_script_cannot_loosen_command_line_limits(
    env: Env, tmp_path: Any, statement: str, flag: str
) -> None:
    script = tmp_path / "loosen.sql"
    script.write_text(f"{statement};\nSELECT * FROM {env.wide};\n")
    run = env.run(
        tmp_path, "--fail-on-scan", "--max-rcu", "10", "--rate-limit", "50", "-f", str(script)
    )
    assert run.returncode == 1
    line = run.one_error()
    assert f"would loosen {flag} given on the command line" in line, line
    assert not env.proxy.calls("Scan")


def test_a_script_may_tighten_command_line_limits(env: Env, tmp_path: Any) -> None:
    sql = f"SET max_rcu = 5; SET fail_on_scan = on; SELECT * FROM {env.wide}"
    run = env.run(tmp_path, "--max-rcu", "10", "-e", sql)
    assert run.returncode == 3
    assert "--fail-on-scan is set" in run.one_error()
    assert not env.proxy.calls("Scan")


# --- 5. --rate-limit: capacity is waited for before sending, one budget for every worker -------


def _page_cost(call: Any) -> Decimal:
    """What the server said a page cost, or (moto reports a constant) the bound its Limit
    sets: Limit items of ~1 KB, eventually consistent."""
    consumed = (call.answer or {}).get("ConsumedCapacity", {}).get("CapacityUnits")
    return Decimal(str(consumed))


@pytest.mark.slow
def test_rate_limit_never_runs_ahead_with_segments(
    dynalite_backend: Backend, tmp_path: Any
) -> None:
    e = _env(dynalite_backend)
    rate = Decimal(25)
    run = e.run(tmp_path, "--segments", "8", "--rate-limit", "25", "-e", f"SELECT * FROM {e.wide}")
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) >= WIDE_ITEMS  # every row came
    scans = e.proxy.calls("Scan")
    assert {c.body["Segment"] for c in scans} == set(range(8))
    first = scans[0].at
    spent = Decimal(0)
    for call in sorted(scans, key=lambda c: c.at):
        # by the time a request is sent, what was consumed before it fits in the rate
        # (plus one page: the first goes at once)
        assert spent <= rate * Decimal(call.at - first) + rate, (spent, call.at - first)
        spent += _page_cost(call)
    assert spent > rate  # the test means something: more than a second's worth was read
    # and each page was bounded: none cost much more than one second of the budget
    assert max(_page_cost(c) for c in scans) <= rate * 2


# --- 6. --max-rcu: refused up front when the estimate exceeds it; stops near it; says the truth --


def test_max_rcu_refuses_up_front_on_a_known_size(moto_backend: Backend, tmp_path: Any) -> None:
    e = _env(moto_backend)  # moto: the table's size is known (sampled), so is the estimate
    run = e.run(tmp_path, "--max-rcu", "5", "-e", f"SELECT * FROM {e.wide}")
    assert run.returncode == 3
    assert "more than --max-rcu 5" in run.one_error()
    assert not e.proxy.calls("Scan")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM {t}",
        "SELECT pk, COUNT(*) AS n FROM {t} GROUP BY pk",  # counted off the wire form
    ],
)
def test_max_rcu_stops_near_the_cap_and_reports_every_page(
    dynalite_backend: Backend, tmp_path: Any, sql: str
) -> None:
    e = _env(dynalite_backend)  # dynalite reports size 0 (unknown) but real capacity
    run = e.run(tmp_path, "--segments", "8", "--max-rcu", "10", "-e", sql.format(t=e.wide))
    assert run.returncode == 3, run.stderr
    line = run.one_error()
    consumed = sum((_page_cost(c) for c in e.proxy.calls("Scan")), Decimal(0))
    assert f"consumed {format(consumed.normalize(), 'f')} RCU" in line, (line, consumed)
    assert Decimal(8) <= consumed <= Decimal(10) + 8 * Decimal("0.5"), consumed


# --- 9. control characters in data never reach a terminal; csv/json keep them exactly ---------

HOSTILE = "red\x1b[31mALERT\x07 over\rwrite\u202eevil\x9b"


@pytest.fixture(scope="module")
def hostile_table(dynalite_backend: Backend) -> Iterator[str]:
    name = unique_name("hostile")
    dynalite_backend.create_table(**_key_table(name))
    dynalite_backend.put_items(
        name, [{"pk": "p", "sk": Decimal(1), "note": HOSTILE, "bad\x1b]0;title\x07": "x"}]
    )
    yield name
    dynalite_backend.delete_table(name)


def _hostile(backend: Backend, tmp_path: Any, fmt: str, sql: str) -> Any:
    run = run_cli(
        "--endpoint-url", backend.endpoint_url, "--format", fmt, "-e", sql, env=cli_env(tmp_path)
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.mark.parametrize("fmt", ["table", "vertical", "markdown"])
def test_control_characters_are_escaped_for_people(
    dynalite_backend: Backend, hostile_table: str, tmp_path: Any, fmt: str
) -> None:
    sql = f"SELECT * FROM {hostile_table} WHERE pk = 'p'"
    run = _hostile(dynalite_backend, tmp_path, fmt, sql)
    for c in "\x1b\x07\r\u202e\x9b":
        assert c not in run.stdout, (c, run.stdout)
    assert "red\\x1b[31mALERT\\x07 over\\rwrite\\u202eevil\\x9b" in run.stdout
    assert "bad\\x1b]0;title\\x07" in run.stdout  # attribute names too


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_machine_formats_keep_exact_data(
    dynalite_backend: Backend, hostile_table: str, tmp_path: Any, fmt: str
) -> None:
    sql = f"SELECT note FROM {hostile_table} WHERE pk = 'p'"
    run = _hostile(dynalite_backend, tmp_path, fmt, sql)
    if fmt == "json":
        assert json.loads(run.stdout) == [{"note": HOSTILE}]
    else:
        assert next(iter(csv.DictReader(io.StringIO(run.stdout, newline=""))))["note"] == HOSTILE


def test_repl_screen_escapes_control_characters(
    dynalite_backend: Backend, hostile_table: str
) -> None:
    from dynosql.session import Session, Settings

    session = Session(dynalite_backend.client(), settings=Settings(format="csv"))
    text = _repl(session, f"SELECT note FROM {hostile_table} WHERE pk = 'p';\r\\q\r")
    assert "\x1b[31m" not in text and "\x07" not in text and "\\x1b[31mALERT" in text


# --- 13, 14. the Scan estimate: a size of 0 is unknown, and a LIMIT bounds it ------------------


def _repl(session: Any, keys: str) -> str:
    return drive(session, keys)[0]


def _session(e: Env, **settings: Any) -> Any:
    from dynosql.session import Session, Settings, make_client

    return Session(make_client(e.proxy.url, credentials=("t", "t")), settings=Settings(**settings))


def test_unknown_size_is_said_and_asked_about(dynalite_backend: Backend, tmp_path: Any) -> None:
    e = _env(dynalite_backend)  # dynalite, like a fresh DynamoDB table, reports 0 items
    run = e.run(tmp_path, "-e", f"EXPLAIN SELECT * FROM {e.wide}")
    assert "estimate: size unknown: DynamoDB refreshes a table's size about every six hours" in (
        run.stdout
    )
    assert not e.proxy.calls("Scan")
    screen = _repl(_session(e), f"SELECT * FROM {e.wide};\rn\r\\q\r")
    assert "cancelled: nothing was read" in screen  # asked (on the prompt), answered no
    assert not e.proxy.calls("Scan")


def test_scan_estimate_counts_the_limit(moto_backend: Backend, tmp_path: Any) -> None:
    e = _env(moto_backend)  # moto: the size is known (~50 RCU for the whole table)
    run = e.run(tmp_path, "-e", f"SELECT * FROM {e.wide} LIMIT 5")
    # the embedded server measures the table's size: 5 items of ~1 KB, one page of 4.9 KB,
    # estimated as the run then reports it
    assert "it reads items until LIMIT 5 is met (~5 items, ~1 RCU)" in run.stderr
    assert "5 items scanned · 4.9 KB · 1 RCU" in run.stderr
    # the REPL asks by the same figure: the whole table would be asked about, LIMIT 5 not
    screen = _repl(
        _session(e, scan_confirm_rcu=Decimal(1)), f"SELECT * FROM {e.wide} LIMIT 5;\r\\q\r"
    )
    assert "cancelled" not in screen and "5 rows" in screen
    screen = _repl(_session(e, scan_confirm_rcu=Decimal(1)), f"SELECT * FROM {e.wide};\rn\r\\q\r")
    assert "cancelled: nothing was read" in screen


# --- 15. IN with more than 100 values: batched keys, split filters ----------------------------


@pytest.fixture(scope="module")
def ids_tables() -> Iterator[dict[str, str]]:
    made: dict[str, tuple[Backend, str]] = {}
    yield made  # type: ignore[misc]
    for backend, name in made.values():
        backend.delete_table(name)


def _ids_table(backend: Backend, made: dict) -> str:
    if backend.name not in made:
        name = unique_name("ids")
        backend.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        backend.put_items(name, [{"id": f"i{i:03d}", "n": Decimal(i)} for i in range(200)])
        made[backend.name] = (backend, name)
    return made[backend.name][1]


def test_in_with_150_keys_is_two_batch_gets(both: Env, ids_tables: dict, tmp_path: Any) -> None:
    table = _ids_table(both.backend, ids_tables)
    keys = ", ".join(f"'i{i:03d}'" for i in range(0, 300, 2))  # 150 keys, 100 of them exist
    run = both.run(
        tmp_path, "--format", "csv", "-e", f"SELECT id FROM {table} WHERE id IN ({keys})"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["id"] + [f"i{i:03d}" for i in range(0, 200, 2)]
    batches = both.sent("BatchGetItem")
    assert sorted(len(b["RequestItems"][table]["Keys"]) for b in batches) == [50, 100]


def test_in_with_130_values_on_a_non_key(both: Env, ids_tables: dict, tmp_path: Any) -> None:
    table = _ids_table(both.backend, ids_tables)
    wanted = list(range(0, 390, 3))  # 130 values, 67 of them stored
    listed = ", ".join(str(n) for n in wanted)
    sql = f"SELECT id FROM {table} WHERE n IN ({listed}) ORDER BY id"
    run = both.run(tmp_path, "--format", "csv", "-e", sql)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["id"] + [f"i{n:03d}" for n in wanted if n < 200]
    scans = both.sent("Scan")
    # the table is one page, and a script's Scan sends its first page whole for the hints
    # (issue 22: same items, same bill), applying the WHERE itself; the filter the later pages
    # carry is the planned request's, split server-side:
    assert "FilterExpression" not in scans[0]
    explained = both.run(tmp_path, "-e", f"EXPLAIN {sql}")
    (filter_line,) = [ln for ln in explained.stdout.splitlines() if '"FilterExpression"' in ln]
    assert ") OR " in filter_line
    for part in filter_line.split(" IN (")[1:]:
        assert part.split(")")[0].count(",") < 100
    for scan in scans:
        text = scan.get("FilterExpression", "")
        for part in text.split(" IN (")[1:]:
            assert part.split(")")[0].count(",") < 100  # no IN with more than 100 values


# --- 12. --segments: a documented concurrency cap, and absurd counts refused --------------------


def test_absurd_segment_counts_are_refused(env: Env, tmp_path: Any) -> None:
    run = env.run(tmp_path, "--segments", "1000000", "-e", f"SELECT * FROM {env.wide}")
    assert run.returncode == 1
    line = run.one_error()
    assert "--segments 1000000 is more than" in line and "use at most" in line, line
    assert not env.proxy.calls("Scan")


def test_many_segments_read_everything_32_at_a_time(env: Env, tmp_path: Any) -> None:
    from dynosql.dynamo.reader import MAX_CONCURRENT_REQUESTS

    assert MAX_CONCURRENT_REQUESTS == 32  # the cap the README documents
    run = env.run(
        tmp_path, "--segments", "64", "--format", "csv", "-e", f"SELECT sk FROM {env.wide}"
    )
    assert run.returncode == 0, run.stderr
    assert sorted(int(x) for x in run.stdout.split()[1:]) == list(range(WIDE_ITEMS))
    assert {c.body["Segment"] for c in env.proxy.calls("Scan")} == set(range(64))


# --- 16. smaller ones ---------------------------------------------------------------------------


def test_repl_output_to_a_full_device(dynalite_backend: Backend) -> None:
    e = _env(dynalite_backend)
    sql = f"SELECT * FROM {e.huge} WHERE pk = 'big' LIMIT 1;"
    screen = _repl(_session(e), f"\\o /dev/full\r{sql}\r{sql}\r\\q\r")
    assert "Traceback" not in screen and "internal error" not in screen, screen
    assert "error: cannot write output: No space left on device (/dev/full)" in screen
    assert screen.count("1 row") == 1  # the second statement's rows came to the screen


def test_bom_and_oversized_scripts(env: Env, tmp_path: Any) -> None:
    script = tmp_path / "bom.sql"
    script.write_bytes(
        b"\xef\xbb\xbfSELECT pk FROM " + env.huge.encode() + b" WHERE pk = 'big' LIMIT 1;"
    )
    run = env.run(tmp_path, "-f", str(script), "--format", "csv")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["pk", "big"]
    run = env.run(tmp_path, "-f", "/dev/zero")
    assert run.returncode == 2
    assert "larger than 16 MiB: not a script" in run.one_error()


def test_quoted_dotted_attribute_is_the_json_key(env: Env, tmp_path: Any) -> None:
    sql = f"SELECT \"a.b\", pk FROM {env.huge} WHERE pk = 'big' LIMIT 1"
    run = env.run(tmp_path, "-e", sql, "--format", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"pk": "big"}]  # absent, and no '"a.b"' column
    run = env.run(tmp_path, "-e", sql, "--format", "csv")
    assert run.stdout.splitlines()[0] == "a.b,pk"


def test_unknown_table_names_the_region(env: Env, tmp_path: Any) -> None:
    run = env.run(tmp_path, "-e", "SELECT * FROM nosuchtable WHERE pk = 'x'")
    assert "no table named nosuchtable in region us-east-1 (tables:" in run.one_error()
    env.proxy.fail("ListTables", "500")
    run = env.run(tmp_path, "--deadline", "1", "-e", "SELECT * FROM nosuchtable2 WHERE pk = 'x'")
    line = run.one_error()
    assert "tables: none" not in line and "could not be read" in line, line


def test_limit_parameter_errors_show_the_value(env: Env, tmp_path: Any) -> None:
    run = env.run(tmp_path, "-v", "n=-1", "-e", f"SELECT * FROM {env.huge} LIMIT :n")
    line = run.one_error()
    assert line.endswith("got -1") and "Decimal" not in line, line


def test_config_file_is_private(tmp_path: Any, monkeypatch: Any) -> None:
    from dynosql import config

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    previous = os.umask(0o022)
    try:
        config.load(create=True)
    finally:
        os.umask(previous)
    files = [p for p in (tmp_path / "config").rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == 0o600 for p in files)


# --- 11. client-side memory: small group state, and a budget past which work spills to disk ----


def test_order_by_without_limit_spills_past_the_budget(env: Env, tmp_path: Any) -> None:
    sql = f"SELECT sk, pk FROM {env.wide} ORDER BY pk DESC, sk"
    unbounded = env.run(tmp_path, "--memory-budget", "off", "--format", "csv", "-e", sql)
    spilled = env.run(tmp_path, "--memory-budget", "0.05", "--format", "csv", "-e", sql)
    assert unbounded.returncode == spilled.returncode == 0, spilled.stderr
    assert spilled.stdout == unbounded.stdout
    assert len(spilled.stdout.splitlines()) == WIDE_ITEMS + 1
    assert "runs on disk and merged" in spilled.stderr
    assert "on disk" not in unbounded.stderr


def test_group_by_spills_partial_groups_past_the_budget(env: Env, tmp_path: Any) -> None:
    sql = (
        f"SELECT sk, COUNT(*) AS n, COUNT(DISTINCT pk) AS pks, SUM(sk) AS total, MIN(pad) AS lo "
        f"FROM {env.wide} GROUP BY sk HAVING n > 0 ORDER BY total DESC"
    )
    unbounded = env.run(tmp_path, "--memory-budget", "off", "--format", "json", "-e", sql)
    spilled = env.run(tmp_path, "--memory-budget", "0.05", "--format", "json", "-e", sql)
    assert unbounded.returncode == spilled.returncode == 0, spilled.stderr
    rows = json.loads(spilled.stdout)
    assert rows == json.loads(unbounded.stdout)
    assert [r["sk"] for r in rows] == list(range(WIDE_ITEMS - 1, -1, -1))
    assert all(r["n"] == 1 and r["pks"] == 1 and r["total"] == r["sk"] for r in rows)
    assert "spilled to disk by key and merged" in spilled.stderr


def test_count_star_groups_are_small() -> None:
    import tracemalloc

    from dynosql.evaluate.aggregate import group
    from dynosql.sql import parse_script

    statement = parse_script("SELECT k, COUNT(*) FROM t GROUP BY k")[0]
    n = 20_000
    tracemalloc.start()
    try:
        groups = group(statement, ({"k": f"key{i:07d}"} for i in range(n)))
        next(groups)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / n < 700  # bytes per group (1.3 KB before: a set and a dict per group)


def test_client_side_sort_note_is_shown(env: Env, tmp_path: Any, monkeypatch: Any) -> None:
    from dynosql.evaluate import pipeline

    monkeypatch.setattr(pipeline, "SORT_WARNING_ROWS", 100)
    run = env.run(tmp_path, "--format", "csv", "-e", f"SELECT sk FROM {env.wide} ORDER BY pad")
    assert run.returncode == 0, run.stderr
    assert f"note: sorted {WIDE_ITEMS} rows client-side by pad" in run.stderr
