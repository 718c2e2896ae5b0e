"""A dynalite server on loopback for the benchmarks, and the data they read.

The server is tests/backends.py's own (``node node_modules/dynalite/cli.js --host 127.0.0.1``
on a free port, ready when ``GET /`` answers 200, stopped by its pid). In memory, so every run
starts from an empty server.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DYNALITE_CLI = ROOT / "node_modules" / "dynalite" / "cli.js"
REGION = "us-east-1"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}


sys.path.insert(0, str(ROOT / "tests"))
from backends import DynaliteBackend  # noqa: E402 - one dynalite starter for tests and benchmarks


class Dynalite(DynaliteBackend):
    """The test suite's dynalite server (free loopback port, readiness probe, stopped by pid)."""

    @property
    def url(self) -> str:
        return self.endpoint_url

    def client(self, **config: Any) -> Any:
        config.setdefault("max_pool_connections", 16)
        return super().client(**config)


# --- the export table -------------------------------------------------------------------------

EXPORT_TABLE = {
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def export_items(n: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """``n`` readings-like items of about 250 bytes: strings, exact numbers, a list, a map."""
    rng = random.Random(seed)
    start = datetime(2026, 5, 1, tzinfo=timezone.utc)
    for i in range(n):
        moment = start + timedelta(seconds=37 * i)
        yield {
            "pk": f"dev-{i % 200:04d}",
            "sk": moment.strftime("%Y-%m-%dT%H:%M:%SZ") + f"#{i}",
            "temperature": Decimal(rng.randint(-2000, 4000)).scaleb(-2).normalize(),
            "humidity": Decimal(rng.randint(0, 1000)).scaleb(-1).normalize(),
            "ok": rng.random() > 0.05,
            "status": rng.choice(["ok", "warn", "alarm"]),
            "region": rng.choice(["eu-west", "us-east", "sa-east", "ap-south"]),
            "tags": [f"t{rng.randint(0, 9)}" for _ in range(3)],
            "meta": {"fw": f"1.{rng.randint(0, 20)}", "battery": Decimal(rng.randint(0, 100))},
            "note": "reading " + "x" * rng.randint(40, 90),
        }


def create_export_table(client: Any, name: str, n: int) -> int:
    from dynosql.dynamo import loader

    loader.create_table(client, {"TableName": name, **EXPORT_TABLE})
    with ThreadPoolExecutor(max_workers=4) as pool:
        return loader.write_items(client, name, export_items(n), executor=pool)
