"""A dynalite server on loopback for the benchmarks, and the data they read.

Same recipe as tests/backends.py: ``node node_modules/dynalite/cli.js --host 127.0.0.1`` on a
free port, ready when ``GET /`` answers 200, stopped by its pid. In memory, so every run starts
from an empty server.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Dynalite:
    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None or not DYNALITE_CLI.exists():
            raise SystemExit("the benchmarks need Node.js and `npm ci` (node_modules/dynalite)")
        self.log = tempfile.TemporaryFile()
        for _ in range(3):
            port = _free_port()
            self.url = f"http://127.0.0.1:{port}"
            self.process = subprocess.Popen(
                [node, str(DYNALITE_CLI), "--host", "127.0.0.1", "--port", str(port)]
                + ["--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
            if self._ready():
                return
            self.stop()
        raise SystemExit("dynalite did not start")

    def _ready(self, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.05)
        return False

    def client(self) -> Any:
        import boto3
        from botocore.config import Config

        return boto3.session.Session().client(
            "dynamodb",
            endpoint_url=self.url,
            region_name=REGION,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            config=Config(retries={"mode": "standard", "max_attempts": 3}, max_pool_connections=16),
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


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
    from dynosql import datasets

    datasets.create_table(client, {"TableName": name, **EXPORT_TABLE})
    with ThreadPoolExecutor(max_workers=4) as pool:
        return datasets.write_items(client, name, export_items(n), executor=pool)
