"""The baseline for the export benchmark: raw boto3, a Scan paginator, one JSON line per item.

    python benchmarks/raw_export.py ENDPOINT_URL TABLE > out.jsonl

Writes what ``dynosql --format jsonl -e "SELECT * FROM TABLE"`` writes (numbers with their exact
digits, binary as base64, maps and lists nested), converting DynamoDB's wire format directly,
the way a careful hand-written exporter would. Credentials and region come from the environment.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any


def to_json(value: dict[str, Any]) -> str:
    ((kind, v),) = value.items()
    if kind == "S":
        return json.dumps(v, ensure_ascii=False)
    if kind == "N":
        return v
    if kind == "BOOL":
        return "true" if v else "false"
    if kind == "NULL":
        return "null"
    if kind == "B":
        return json.dumps(base64.b64encode(v).decode("ascii"))
    if kind == "L":
        return "[" + ", ".join(to_json(x) for x in v) + "]"
    if kind == "M":
        return (
            "{"
            + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {to_json(x)}" for k, x in v.items())
            + "}"
        )
    if kind in ("SS", "NS"):
        return "[" + ", ".join(json.dumps(x) if kind == "SS" else x for x in sorted(v)) + "]"
    return json.dumps(sorted(base64.b64encode(x).decode("ascii") for x in v))


def main() -> int:
    import boto3

    endpoint, table = sys.argv[1], sys.argv[2]
    client = boto3.client("dynamodb", endpoint_url=endpoint)
    out = sys.stdout
    for page in client.get_paginator("scan").paginate(TableName=table):
        for item in page["Items"]:
            out.write(to_json({"M": item}) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
