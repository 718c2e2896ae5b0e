"""Writes at their edges (issue 21, items 1, 2, 3, 13 and RETURNING of 14), through the real
command (the CLI in-process, or Session): INSERT … SELECT maps by the select list's positions;
a WHERE the write's condition cannot check is made safe by conditioning each write on the
read's values; a transaction requires every attribute as read; RETURNING names columns.

The concurrent writer is injected deterministically: a client wrapper that runs another
client's writes at one chosen moment (between the read and the first write, or between the
GetItems and the TransactWriteItems)."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli

from dynosql import values
from dynosql.session import Session, Settings, make_client

Item = dict[str, Any]


def _session(backend: Backend, tmp_path: Path, client: Any = None) -> Session:
    client = client or make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "journal")))
    session.assume_yes = True
    return session


def _table(backend: Backend, name: str, keys: tuple[str, ...] = ("pk", "sk")) -> dict[Any, Item]:
    client = backend.client()
    out: dict[Any, Item] = {}
    kwargs: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        for raw in page["Items"]:
            item = values.decode_item(raw)
            out[tuple(item[k] for k in keys)] = item
        if not page.get("LastEvaluatedKey"):
            return out
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class _Between:
    """A client that runs `intrude` (another client's writes) once, just before the first call
    of one of `methods`: the moment between our read and our write."""

    def __init__(self, client: Any, methods: tuple[str, ...], intrude: Callable[[], None]):
        self._client, self._methods, self._intrude = client, methods, intrude
        self.done = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if name not in self._methods:
            return attr

        def call(**params: Any) -> Any:
            if not self.done:
                self.done = True
                self._intrude()
            return attr(**params)

        return call


# --- 1. INSERT … SELECT maps by the select list's positions -------------------------------------


def test_insert_select_maps_by_select_list_position(moto_backend: Backend, tmp_path: Path) -> None:
    src, dst = unique_name("src"), unique_name("dst")
    for name in (src, dst):
        moto_backend.create_keyed_table(name, pk=("k", "S"), sk=None)
    moto_backend.put_items(
        src,
        [
            {"k": "full", "a": Decimal(1), "b": "two", "c": True},
            {"k": "no-b", "a": Decimal(1), "c": True},  # b absent: y must stay absent
            {"k": "no-a", "b": "two"},
        ],
    )
    endpoint = ("--endpoint-url", moto_backend.endpoint_url, "--yes")
    env = cli_env(tmp_path)
    run = run_cli(
        *endpoint,
        "-e",
        f"INSERT INTO {dst} (k, x, y, z) SELECT k, a, b, c FROM {src}",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert _table(moto_backend, dst, ("k",)) == {
        ("full",): {"k": "full", "x": Decimal(1), "y": "two", "z": True},
        ("no-b",): {"k": "no-b", "x": Decimal(1), "z": True},  # was y=True, no z
        ("no-a",): {"k": "no-a", "y": "two"},  # was x='two'
    }


@pytest.mark.parametrize(
    "select, message",
    [
        (
            "SELECT * FROM {src}",
            r"line 1, column \d+: INSERT INTO \w+ \(k, x\) SELECT \* has no order to match the "
            "named columns",
        ),
        (
            "SELECT k, a, b FROM {src}",
            r"line 1, column \d+: 3 selected columns for 2 named columns \(they are matched by "
            "position\\)",
        ),
        ("SELECT k FROM {src}", r"1 selected columns for 2 named columns"),
    ],
    ids=["star", "more", "fewer"],
)
def test_insert_select_refuses_star_and_count_mismatch_before_any_read(
    moto_backend: Backend, tmp_path: Path, select: str, message: str
) -> None:
    src, dst = unique_name("src"), unique_name("dst")
    sql = f"INSERT INTO {dst} (k, x) " + select.format(src=src)
    # the tables do not exist: a refusal after any request would name them instead
    run = run_cli(
        "--endpoint-url", moto_backend.endpoint_url, "--yes", "-e", sql, env=cli_env(tmp_path)
    )
    assert run.returncode == 1
    line = run.one_error()
    assert re.search(message, line), line
