"""Tables made and items written outside a statement: the example datasets of ``--local``, the
tests' and benchmarks' tables (a ready boto3 client in, no Session).

Every request goes through the one retry policy (`RetryPolicy.for_client`: throttles, 5xx and
dropped connections sent again, as many tries as the client's botocore config leaves) and the
edge's own loops: CreateTable, then the one DescribeTable (`catalog.describe`) polled every
20 ms until the table and its GSIs are ACTIVE (boto3's ``table_exists`` waiter first sleeps
20 s; local servers are ready at once or after a single event-loop tick); items written by the
one BatchWriteItem loop (`writer.write_batches`: 25 a call, UnprocessedItems sent again with
its backoff). Not through a session's port: these requests belong to no session and no
statement (no settings, ledger, guards or journal; the embedded server fills its example
tables before any Session exists), so the policy has no deadline and no Ctrl-C event. The
service's errors (a table that already exists) are raised as the policy words them.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dynosql.dynamo.catalog import describe
from dynosql.dynamo.retry import RetryPolicy
from dynosql.dynamo.writer import write_batches
from dynosql.examples.datasets import DATASETS
from dynosql.values import encode_item

BATCH_WRITE_LIMIT = 25
POLL_SECONDS = 0.02


def create_table(client: Any, table: Mapping[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """CreateTable, then poll DescribeTable until the table and its GSIs are ACTIVE."""
    policy = RetryPolicy.for_client(client)
    policy.call(client.create_table, **copy.deepcopy(dict(table)))
    for _elapsed in policy.polls(timeout, POLL_SECONDS, POLL_SECONDS):
        description = describe(policy, client, table["TableName"])
        if description is None:
            continue  # not listed yet
        indexes = description.get("GlobalSecondaryIndexes", [])
        if description["TableStatus"] == "ACTIVE" and all(
            i.get("IndexStatus", "ACTIVE") == "ACTIVE" for i in indexes
        ):
            return description
    raise TimeoutError(f"table {table['TableName']} not ACTIVE after {timeout} s")


def write_batch(client: Any, table_name: str, requests: list[dict[str, Any]]) -> None:
    """One BatchWriteItem of at most 25 puts, its UnprocessedItems sent again with backoff."""
    write_batches(client, table_name, requests, workers=1, policy=RetryPolicy.for_client(client))


def write_items(
    client: Any,
    table_name: str,
    items: Iterable[Mapping[str, Any]],
    executor: ThreadPoolExecutor | None = None,
) -> int:
    """Write decoded items with BatchWriteItem in chunks of 25; returns how many were written.

    With an ``executor`` the chunks are sent concurrently (boto3 clients are thread-safe).
    """
    requests = [{"PutRequest": {"Item": encode_item(item)}} for item in items]
    chunks = [
        requests[i : i + BATCH_WRITE_LIMIT] for i in range(0, len(requests), BATCH_WRITE_LIMIT)
    ]
    if executor is None:
        for chunk in chunks:
            write_batch(client, table_name, chunk)
    else:
        for future in [executor.submit(write_batch, client, table_name, c) for c in chunks]:
            future.result()
    return len(requests)


def load(client: Any, names: Iterable[str] | None = None, workers: int = 4) -> dict[str, int]:
    """Create the example tables (waiting until ACTIVE) and write their items.

    ``names`` picks datasets (default: all). Tables are loaded concurrently, one thread
    per table, each with real BatchWriteItem requests of 25 items. Returns items written per
    table. Raises the service's error if a table already exists.
    """
    chosen = list(DATASETS) if names is None else list(names)
    unknown = [n for n in chosen if n not in DATASETS]
    if unknown:
        raise KeyError(f"unknown dataset(s): {', '.join(unknown)}; known: {', '.join(DATASETS)}")
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def one(name: str) -> None:
        dataset = DATASETS[name]
        create_table(client, dataset.table)
        n = write_items(client, dataset.table_name, dataset.items())
        with lock:
            counts[name] = n

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(chosen)))) as pool:
        for future in [pool.submit(one, n) for n in chosen]:
            future.result()
    return {n: counts[n] for n in chosen}
