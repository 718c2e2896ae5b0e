"""Issue 10, found by trying to break it: deadlines, cancellation, capacity that never runs
ahead, output that cannot be written, guards a script cannot loosen, hostile data.

Each case runs the real command: in-process (`cli_runner.run_cli`) against moto and dynalite
through the loopback fault proxy (which logs every request), or a real subprocess where only a
process shows the behaviour (signals, a closed stdout, /dev/full).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli
from faultproxy import FaultProxy

HUGE_BLOB = 399_000  # items just under the 400 KB limit: two fill a 1 MB page
HUGE_ITEMS = 6
WIDE_ITEMS = 400  # ~1 KB items over 8 partitions: a Scan of some 100 RCU
WIDE_BLOB = 1000


def _key_table(name: str) -> dict[str, Any]:
    return {
        "TableName": name,
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


@pytest.fixture
def env(backend: Backend) -> Iterator[Env]:
    if backend.name not in _ENVS:
        _ENVS[backend.name] = _build(backend)
    e = _ENVS[backend.name]
    e.proxy.reset_rules()
    yield e
    e.proxy.reset_rules()


# --- 8. continuation pages ask only for the rows still wanted ---------------------------------


def test_limit_on_continuation_pages_is_what_is_left(env: Env, tmp_path: Any) -> None:
    sql = f"SELECT pk, sk FROM {env.huge} WHERE pk = 'big' LIMIT 4"
    run = env.run(tmp_path, "-e", sql, "--format", "json")
    assert run.returncode == 0, run.stderr
    assert [r["sk"] for r in json.loads(run.stdout)] == [0, 1, 2, 3]
    queries = env.sent("Query")
    limits = [q["Limit"] for q in queries]
    assert limits[0] == 4
    assert len(queries) >= 2, "400 KB items: a 1 MB page cannot hold four"
    # each continuation asks for what is still missing; four items read in all, not six
    assert limits[1:] == sorted(limits[1:], reverse=True) and all(n < 4 for n in limits[1:])
    assert "4 items scanned" in run.stderr, run.stderr
