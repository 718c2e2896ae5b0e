"""The five example datasets behind ``dynosql --local`` and the execution tests.

Each one is a common single-table design, small enough for moto (which sorts a whole table on
every Query, so a few thousand items is the comfortable size) and shaped to show one family of
access patterns:

- ``drive``   — file trees per account; subtrees by ``begins_with``, a sparse KEYS_ONLY LSI.
- ``audit``   — an event log per actor; time windows and newest-first reads on the sort key.
- ``sensors`` — device readings; hot partition keys for GROUP BY, an INCLUDE GSI by region,
  negative and two-decimal numbers, stored NULLs.
- ``tenants`` — an overloaded table (users, invoices, events under one ``pk``) with a sparse
  GSI that only holds open and paid invoices.
- ``usage``   — API calls per tenant under a write-sharded key (``acme#3``): the busiest tenant's
  calls are spread over 8 partition keys, summed back on read with ``SPLIT_PART(pk, '#', 1)``.

Generation is deterministic: every dataset draws from its own ``random.Random(seed)``, so two
runs give equal items and tests may pin counts and values. Items are *decoded* Python values
(see :mod:`dynosql.values`): numbers are ``Decimal`` in canonical form (as a round trip through
DynamoDB returns them), never float.

Data only: `dynosql.dynamo.loader` creates the tables and writes the items (through the
edge's one retry policy).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from dynosql.values import StringSet, format_number

__all__ = ["DATASETS", "Dataset"]


@dataclass(frozen=True)
class Dataset:
    """One example table: its ``create_table`` kwargs and a generator of its items."""

    name: str
    table: dict[str, Any]
    description: str
    generate: Callable[[], Iterator[dict[str, Any]]] = field(repr=False)

    @property
    def table_name(self) -> str:
        return self.table["TableName"]

    @property
    def key_names(self) -> tuple[str, ...]:
        """Partition key name, then sort key name (if any), as in the table's KeySchema."""
        schema = sorted(self.table["KeySchema"], key=lambda k: k["KeyType"])  # HASH < RANGE
        return tuple(k["AttributeName"] for k in schema)

    def items(self) -> Iterator[dict[str, Any]]:
        """A fresh, deterministic iterator over the items (decoded values)."""
        return self.generate()


# --- helpers -----------------------------------------------------------------------------------

YEAR_START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _num(value: Decimal | int | str) -> Decimal:
    """A number in the canonical form DynamoDB returns (``Decimal('21.3')``, not ``'21.30'``)."""
    return Decimal(format_number(Decimal(value)))


def _money(rng: random.Random, low: int, high: int) -> Decimal:
    """A money amount with cents, e.g. ``Decimal('1234.5')`` (canonical form drops the 0)."""
    return _num(Decimal(rng.randint(low * 100, high * 100)).scaleb(-2))


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _iso_ms(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _moment(rng: random.Random, start: datetime, end: datetime) -> datetime:
    span = int((end - start).total_seconds())
    return start + timedelta(seconds=rng.randint(0, span))


def _key_schema(pk: str, sk: str | None = None) -> list[dict[str, str]]:
    schema = [{"AttributeName": pk, "KeyType": "HASH"}]
    if sk:
        schema.append({"AttributeName": sk, "KeyType": "RANGE"})
    return schema


def _attribute_definitions(*names: str) -> list[dict[str, str]]:
    return [{"AttributeName": n, "AttributeType": "S"} for n in names]


# --- drive -------------------------------------------------------------------------------------

DRIVE_TABLE: dict[str, Any] = {
    "TableName": "drive",
    "KeySchema": _key_schema("PK", "SK"),
    "AttributeDefinitions": _attribute_definitions("PK", "SK", "modified"),
    "BillingMode": "PAY_PER_REQUEST",
    "LocalSecondaryIndexes": [
        {
            "IndexName": "by_modified",
            "KeySchema": _key_schema("PK", "modified"),
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ],
}

# Items per account are roughly proportional to these weights: alice is the heavy user.
_DRIVE_ACCOUNTS = {"alice": 7, "bob": 2, "carol": 1, "dave": 1, "erin": 1}
_PHOTOS_PER_WEIGHT = 32
_CAMERAS = ["X100V", "EOS R6", "iPhone 15", "Pixel 8", "A7 IV"]
_COUNTRIES = ["PT", "ES", "JP", "US", "DE", "IS", "MA"]
_PHOTO_SUBJECTS = [
    "beach",
    "sunset",
    "harbour",
    "market",
    "mountain",
    "street",
    "family",
    "dinner",
    "museum",
    "train",
    "forest",
    "bridge",
]
_PHOTO_TAGS = ["vacation", "family", "beach", "city", "food", "nature", "favourite", "print"]
_DOC_NAMES = [
    "budget.xlsx",
    "cv.pdf",
    "lease.pdf",
    "notes.txt",
    "meeting-notes.md",
    "packing-list.txt",
    "recipes.docx",
    "passport-scan.pdf",
    "insurance.pdf",
    "reading-list.md",
]
_TAX_DOCS = ["irs-1040.pdf", "receipts.zip", "w2.pdf", "donations.csv", "summary.xlsx"]
_CONTRACTS = ["nda-acme.pdf", "employment.pdf", "freelance-sow.pdf", "rental-2026.pdf"]
_ARTISTS = ["Nina Simone", "Miles Davis", "Amália", "Björk", "Radiohead", "Daft Punk"]
_SONGS = ["Intro", "Blue", "Night", "Fado", "Home", "Run", "Echoes", "Airport"]
_PROJECTS = ["website", "thesis", "budget-app", "garden-planner", "cli-tools"]
_SOURCE_FILES = [
    "main.py",
    "util.py",
    "config.toml",
    "README.md",
    "index.html",
    "style.css",
    "app.js",
    "test_main.py",
]


class _Tree:
    """One account's file tree: adding a file adds its missing parent folders."""

    def __init__(self, account: str, rng: random.Random, end: datetime):
        self.account = account
        self.pk = f"DRIVE#{account}"
        self.rng = rng
        self.end = end
        self.items: dict[str, dict[str, Any]] = {}

    def folder(self, path: str) -> None:
        if path not in self.items:
            name = path.rstrip("/").rsplit("/", 1)[-1]
            self.items[path] = {
                "PK": self.pk,
                "SK": path,
                "name": name,
                "type": "folder",
                "owner": self.account,
            }

    def file(
        self,
        path: str,
        size: int,
        tags: Iterable[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> None:
        parts = path.split("/")
        for i in range(1, len(parts)):
            self.folder("/".join(parts[:i]) + "/")
        item: dict[str, Any] = {
            "PK": self.pk,
            "SK": path,
            "name": parts[-1],
            "type": "file",
            "size": _num(size),
            "modified": _iso(_moment(self.rng, YEAR_START, self.end)),
            "owner": self.account,
        }
        if tags:
            item["tags"] = StringSet(tags)
        if meta:
            item["meta"] = meta
        self.items[path] = item


def _drive_items() -> Iterator[dict[str, Any]]:
    rng = random.Random(20260101)
    end = datetime(2026, 11, 15, tzinfo=timezone.utc)
    for account, weight in _DRIVE_ACCOUNTS.items():
        tree = _Tree(account, rng, end)
        tree.folder("root/")
        # Photos: by year, and for the heavy accounts by trip.
        trips = ["lisbon", "tokyo", "reykjavik", "marrakesh"][: max(1, weight - 2)]
        photo_dirs = ["root/photos/2025/", "root/photos/2026/"] + [
            f"root/photos/2026/{t}/" for t in trips
        ]
        if account == "alice":
            tree.file(
                "root/photos/2026/beach.jpg",
                4_718_592,
                ["vacation", "beach"],
                {"geo": {"country": "PT", "city": "Lisboa"}, "camera": "X100V"},
            )
        for _ in range(_PHOTOS_PER_WEIGHT * weight):
            subject = rng.choice(_PHOTO_SUBJECTS)
            name = f"{subject}-{rng.randint(1, 999):03d}.jpg"
            if rng.random() < 0.3:
                name = f"IMG_{rng.randint(1000, 9999)}.jpg"
            tags = rng.sample(_PHOTO_TAGS, rng.randint(1, 3)) if rng.random() < 0.5 else ()
            meta: dict[str, Any] = {
                "geo": {"country": rng.choice(_COUNTRIES)},
                "camera": rng.choice(_CAMERAS),
            }
            if rng.random() < 0.4:
                meta["iso"] = _num(rng.choice([100, 200, 400, 800, 1600, 3200]))
            tree.file(rng.choice(photo_dirs) + name, rng.randint(900_000, 9_500_000), tags, meta)
        # Documents.
        for name in rng.sample(_DOC_NAMES, min(len(_DOC_NAMES), 3 + weight)):
            pages = {"pages": _num(rng.randint(1, 40))} if name.endswith(".pdf") else None
            tree.file(f"root/documents/{name}", rng.randint(4_000, 3_000_000), meta=pages)
        for name in rng.sample(_TAX_DOCS, min(len(_TAX_DOCS), 1 + weight)):
            tree.file(f"root/documents/taxes/{name}", rng.randint(20_000, 900_000), ["tax"])
        for name in _CONTRACTS[: 1 + weight // 2]:
            tree.file(f"root/documents/contracts/{name}", rng.randint(50_000, 700_000), ["legal"])
        # Music, for some accounts.
        if account in ("alice", "bob", "dave"):
            for _ in range(6 * weight):
                artist = rng.choice(_ARTISTS)
                song = f"{rng.choice(_SONGS)} {rng.randint(1, 12)}"
                meta = {"artist": artist, "durationSec": _num(rng.randint(120, 540))}
                path = f"root/music/{artist}/{song}.mp3"
                tree.file(path, rng.randint(2_500_000, 12_000_000), meta=meta)
        # Projects with source trees.
        for project in rng.sample(_PROJECTS, min(len(_PROJECTS), weight)):
            base = f"root/projects/{project}/"
            for name in rng.sample(_SOURCE_FILES, rng.randint(3, len(_SOURCE_FILES))):
                tree.file(base + "src/" + name, rng.randint(200, 60_000), ["code"])
            tree.file(base + "docs/design.md", rng.randint(1_000, 20_000))
            tree.file(base + ".gitkeep", 0)  # an empty file: size 0 is still a number
        if account == "alice":
            # Names whose byte order differs from a case-insensitive or locale order:
            # "Zebra" < "apple" < "Äpfel" in DynamoDB (UTF-8 bytes).
            for name in ["Zebra.txt", "apple.txt", "Äpfel-Rezept.pdf", "école.txt", "日記.txt"]:
                tree.file(f"root/documents/misc/{name}", rng.randint(100, 9_000))
            tree.folder("root/archive/")  # an empty folder
        yield from sorted(tree.items.values(), key=lambda i: i["SK"])


# --- audit -------------------------------------------------------------------------------------

AUDIT_TABLE: dict[str, Any] = {
    "TableName": "audit",
    "KeySchema": _key_schema("PK", "SK"),
    "AttributeDefinitions": _attribute_definitions("PK", "SK"),
    "BillingMode": "PAY_PER_REQUEST",
}

# 20 actors: people and services; a few are far more active than the rest.
_AUDIT_ACTORS = {
    "svc-backup": 18,
    "svc-indexer": 14,
    "ana.silva": 10,
    "bruno.costa": 3,
    "chen.wei": 3,
    "dana.levi": 2,
    "emeka.obi": 2,
    "farah.khan": 2,
    "gustav.berg": 2,
    "hana.sato": 2,
    "ivan.petrov": 1,
    "julia.romero": 1,
    "kofi.mensah": 1,
    "lena.fischer": 1,
    "mateo.rossi": 1,
    "nora.haddad": 1,
    "oscar.lind": 1,
    "priya.nair": 1,
    "svc-billing": 3,
    "svc-reports": 2,
}
_HUMAN_ACTIONS = {"login": 14, "logout": 10, "read": 40, "write": 18, "share": 5, "delete": 5}
_SERVICE_ACTIONS = {"read": 50, "write": 35, "delete": 10, "list": 15}
_RESOURCES = [
    "doc/{n}",
    "bucket/reports/2026-{m:02d}.csv",
    "invoice/{n}",
    "user/{n}",
    "project/{n}/settings",
]


def _audit_items() -> Iterator[dict[str, Any]]:
    rng = random.Random(20260202)
    actors = list(_AUDIT_ACTORS)
    weights = list(_AUDIT_ACTORS.values())
    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    span_ms = 31 * 24 * 3600 * 1000  # all of March 2026
    seen: set[tuple[str, str]] = set()
    items: list[dict[str, Any]] = []
    while len(items) < 1000:
        actor = rng.choices(actors, weights)[0]
        moment = start + timedelta(milliseconds=rng.randrange(span_ms))
        sk = f"EVT#{_iso_ms(moment)}"
        if (actor, sk) in seen:
            continue
        seen.add((actor, sk))
        service = actor.startswith("svc-")
        table = _SERVICE_ACTIONS if service else _HUMAN_ACTIONS
        action = rng.choices(list(table), list(table.values()))[0]
        if action in ("login", "logout"):
            resource = "session"
        else:
            resource = rng.choice(_RESOURCES).format(n=rng.randint(1, 500), m=rng.randint(1, 3))
        ip = (
            f"10.0.{rng.randint(0, 3)}.{rng.randint(2, 254)}"
            if service
            else f"{rng.choice(['198.51.100', '203.0.113', '192.0.2'])}.{rng.randint(1, 254)}"
        )
        fail_rate = 0.12 if action == "login" else 0.03
        ok = rng.random() >= fail_rate
        base = {"login": 120, "write": 45, "delete": 60}.get(action, 12)
        latency = int(base * rng.lognormvariate(0, 0.6)) + 1
        item: dict[str, Any] = {
            "PK": f"ACTOR#{actor}",
            "SK": sk,
            "action": action,
            "resource": resource,
            "ip": ip,
            "ok": ok,
            "latencyMs": _num(latency),
        }
        if not ok:  # sparse: only failed events say why
            item["error"] = "InvalidPassword" if action == "login" else "AccessDenied"
        items.append(item)
    yield from sorted(items, key=lambda i: (i["PK"], i["SK"]))


# --- sensors -----------------------------------------------------------------------------------

SENSORS_TABLE: dict[str, Any] = {
    "TableName": "sensors",
    "KeySchema": _key_schema("deviceId", "readingTs"),
    "AttributeDefinitions": _attribute_definitions("deviceId", "readingTs", "region"),
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by_region",
            "KeySchema": _key_schema("region", "readingTs"),
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["temperature"]},
        }
    ],
}

REGIONS = ["eu-west", "us-east", "ap-south", "sa-east"]
# Hot keys: three devices report every few minutes and hold most of the readings.
_HOT_DEVICES = {"dev-0007": 330, "dev-0013": 260, "dev-0021": 190}
_DEVICE_COUNT = 40
_TOTAL_READINGS = 1300


def _sensors_items() -> Iterator[dict[str, Any]]:
    rng = random.Random(20260303)
    devices = [f"dev-{n:04d}" for n in range(1, _DEVICE_COUNT + 1)]
    counts = dict.fromkeys(devices, 0)
    counts.update(_HOT_DEVICES)
    cold = [d for d in devices if d not in _HOT_DEVICES]
    for _ in range(_TOTAL_READINGS - sum(counts.values())):
        counts[rng.choice(cold)] += 1
    hot_regions = dict(zip(_HOT_DEVICES, ["eu-west", "us-east", "ap-south"], strict=True))
    # Freezers read below zero; everything else is room or outdoor temperature.
    freezers = set(rng.sample(cold, 4))
    start = datetime(2026, 5, 4, tzinfo=timezone.utc)
    for device in devices:
        region = hot_regions.get(device) or REGIONS[rng.randrange(len(REGIONS))]
        baseline = rng.uniform(-22, -16) if device in freezers else rng.uniform(12, 28)
        battery = rng.randint(70, 100)
        interval = 300 if device in _HOT_DEVICES else 3600 * 6
        moment = start + timedelta(seconds=rng.randint(0, 3600))
        for _ in range(counts[device]):
            moment += timedelta(seconds=interval + rng.randint(-30, 30))
            temperature = baseline + rng.gauss(0, 1.8)
            alarm = rng.random() < 0.02
            if alarm:
                temperature += rng.choice([-1, 1]) * rng.uniform(8, 15)
            item: dict[str, Any] = {
                "deviceId": device,
                "readingTs": _iso(moment),
                "temperature": _num(Decimal(f"{temperature:.2f}")),
                "humidity": _num(Decimal(f"{rng.uniform(20, 90):.1f}")),
                "battery": _num(battery),
                "region": region,
            }
            if rng.random() < 0.03:
                item["humidity"] = None  # a stored NULL, not a missing attribute
            if alarm:
                item["status"] = "alarm"
            if rng.random() < 0.05:
                battery = max(1, battery - 1)
            yield item


# --- tenants -----------------------------------------------------------------------------------

TENANTS_TABLE: dict[str, Any] = {
    "TableName": "tenants",
    "KeySchema": _key_schema("pk", "sk"),
    "AttributeDefinitions": _attribute_definitions("pk", "sk", "gsi1pk", "gsi1sk"),
    "BillingMode": "PAY_PER_REQUEST",
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "gsi1",
            "KeySchema": _key_schema("gsi1pk", "gsi1sk"),
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
}

# tenant -> (currency, users, invoices, events)
_TENANTS = {
    "acme": ("USD", 22, 80, 44),
    "globex": ("EUR", 15, 55, 30),
    "initech": ("USD", 10, 45, 25),
    "umbrella": ("GBP", 12, 50, 28),
    "hooli": ("USD", 8, 35, 20),
}
_FIRST = [
    "Ada",
    "Ben",
    "Carla",
    "Dmitri",
    "Elif",
    "Femi",
    "Grace",
    "Hugo",
    "Ines",
    "Jonas",
    "Kemal",
    "Lucia",
    "Marta",
    "Nils",
    "Olga",
    "Pedro",
    "Quinn",
    "Rosa",
    "Sami",
    "Tomás",
    "Uma",
    "Vera",
    "Wen",
    "Yusuf",
    "Zoe",
]
_LAST = ["Almeida", "Brown", "Cohen", "Diaz", "Eriksen", "Fujita", "Garcia", "Ivanova", "Novak"]
_ROLES = {"admin": 1, "member": 6, "viewer": 2, "billing": 1}
_EVENT_TYPES = ["user.invited", "user.removed", "invoice.sent", "invoice.paid", "plan.changed"]


def _tenants_items() -> Iterator[dict[str, Any]]:
    rng = random.Random(20260404)
    for tenant, (currency, n_users, n_invoices, n_events) in _TENANTS.items():
        pk = f"TENANT#{tenant}"
        emails: list[str] = []
        while len(emails) < n_users:
            first, last = rng.choice(_FIRST), rng.choice(_LAST)
            email = f"{first}.{last}@{tenant}.example".lower().replace("á", "a")
            if email in emails:
                continue
            emails.append(email)
            role = (
                "admin" if len(emails) == 1 else rng.choices(list(_ROLES), list(_ROLES.values()))[0]
            )
            yield {
                "pk": pk,
                "sk": f"USER#{email}",
                "email": email,
                "name": f"{first} {last}",
                "role": role,
            }
        for number in range(1, n_invoices + 1):
            issued = _moment(rng, YEAR_START, datetime(2026, 10, 31, tzinfo=timezone.utc))
            due = (issued + timedelta(days=rng.choice([14, 30, 45]))).date().isoformat()
            status = rng.choices(["open", "paid", "void"], [25, 65, 10])[0]
            item = {
                "pk": pk,
                "sk": f"INVOICE#{number:06d}",
                "amount": _money(rng, 40, 9_000),
                "currency": currency,
                "status": status,
                "issued": issued.date().isoformat(),
                "dueDate": due,
            }
            if status != "void":  # sparse index: void invoices are not in gsi1
                item["gsi1pk"] = f"STATUS#{status}"
                item["gsi1sk"] = due
            yield item
        seen: set[str] = set()
        while len(seen) < n_events:
            at = _iso(_moment(rng, YEAR_START, datetime(2026, 11, 15, tzinfo=timezone.utc)))
            if at in seen:
                continue
            seen.add(at)
            yield {
                "pk": pk,
                "sk": f"EVENT#{at}",
                "type": rng.choice(_EVENT_TYPES),
                "at": at,
                "actor": rng.choice(emails),
            }


# --- usage -------------------------------------------------------------------------------------

USAGE_TABLE: dict[str, Any] = {
    "TableName": "usage",
    "KeySchema": _key_schema("pk", "sk"),
    "AttributeDefinitions": _attribute_definitions("pk", "sk"),
    "BillingMode": "PAY_PER_REQUEST",
}

# tenant -> (API calls on 2026-05-04, write shards). Write sharding (AWS's partition-key
# guidance for a hot key): each call goes to ``<tenant>#<random shard>``, so one busy tenant's
# writes spread over several partition keys; reads sum the shards back (``SPLIT_PART(pk, '#',
# 1)``). The busiest tenant has the most shards.
_USAGE_TENANTS = {
    "acme": (150, 8),
    "globex": (60, 4),
    "initech": (35, 2),
    "umbrella": (30, 2),
    "hooli": (25, 1),
}
_ENDPOINTS = {"GET /invoices": 40, "GET /users": 25, "POST /invoices": 15, "POST /events": 20}
_HTTP_STATUS = {200: 85, 201: 6, 404: 4, 429: 3, 500: 2}


def _usage_items() -> Iterator[dict[str, Any]]:
    rng = random.Random(20260505)
    start = datetime(2026, 5, 4, tzinfo=timezone.utc)
    span_ms = 24 * 3600 * 1000
    for tenant, (calls, shards) in _USAGE_TENANTS.items():
        seen: set[tuple[str, str]] = set()
        while len(seen) < calls:
            pk = f"{tenant}#{rng.randrange(shards)}"
            sk = _iso_ms(start + timedelta(milliseconds=rng.randrange(span_ms)))
            if (pk, sk) in seen:
                continue
            seen.add((pk, sk))
            endpoint = rng.choices(list(_ENDPOINTS), list(_ENDPOINTS.values()))[0]
            status = rng.choices(list(_HTTP_STATUS), list(_HTTP_STATUS.values()))[0]
            yield {
                "pk": pk,
                "sk": sk,
                "endpoint": endpoint,
                "status": _num(status),
                "latencyMs": _num(int(40 * rng.lognormvariate(0, 0.5)) + 1),
            }


# --- registry ----------------------------------------------------------------------------------

DATASETS: dict[str, Dataset] = {
    "drive": Dataset(
        "drive",
        DRIVE_TABLE,
        "File trees per account: PK=DRIVE#<account>, SK=full path (folders end in '/'); "
        "sparse KEYS_ONLY LSI by_modified.",
        _drive_items,
    ),
    "audit": Dataset(
        "audit",
        AUDIT_TABLE,
        "Audit events per actor: PK=ACTOR#<id>, SK=EVT#<ISO time with ms>Z; March 2026.",
        _audit_items,
    ),
    "sensors": Dataset(
        "sensors",
        SENSORS_TABLE,
        "Device readings: deviceId + readingTs; three hot devices; INCLUDE GSI by_region.",
        _sensors_items,
    ),
    "tenants": Dataset(
        "tenants",
        TENANTS_TABLE,
        "Overloaded multi-tenant table: USER#, INVOICE#, EVENT# under pk=TENANT#<name>; "
        "sparse GSI gsi1 of open/paid invoices by due date.",
        _tenants_items,
    ),
    "usage": Dataset(
        "usage",
        USAGE_TABLE,
        "API calls of 2026-05-04, write-sharded: pk=<tenant>#<shard> (acme over 8 shards), "
        "sk=ISO time with ms.",
        _usage_items,
    ),
}
