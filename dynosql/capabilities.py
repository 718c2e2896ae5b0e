"""What the backend can be trusted with, decided once per Session.

DynamoDB itself (and dynalite, which follows it closely) reports consumed capacity, takes every
valid ProjectionExpression and FilterExpression, and keeps table sizes. moto (the embedded
``--local`` backend, or any moto server) does not: its ConsumedCapacity is a constant, it fails
(HTTP 500) on valid projections of irregular items and on ordering comparisons between types,
it compares some values across types as equal (a number and a boolean), and it reports no
table size. Rather than ask "is this moto?" in several places, the Session decides a
`Capabilities` once, from the first answer's HTTP ``Server`` header (moto runs on Werkzeug), and
hands it to the catalog, the planner options and the executor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Capabilities:
    backend: str  # "dynamodb" (AWS or a faithful emulator such as dynalite) or "moto"
    reports_capacity: bool = True  # ConsumedCapacity is real; else dynosql estimates it
    reports_table_size: bool = True  # DescribeTable's sizes (however stale) are real
    projections: bool = True  # a ProjectionExpression may be sent
    server_filters: bool = True  # every condition may go into a FilterExpression
    transactions: bool = True

    @property
    def estimating(self) -> bool:
        """Whether statement capacity is computed by dynosql (and labelled ``est.``)."""
        return not self.reports_capacity

    def notes(self) -> list[str]:
        """What EXPLAIN says about requests shaped by this backend."""
        if self.backend != "moto":
            return []
        return [
            "this endpoint is moto, which fails on some valid requests: whole items are read and "
            "conditions checked client-side (same cost); against DynamoDB the requests carry a "
            "ProjectionExpression and the full FilterExpression"
        ]


DYNAMODB = Capabilities("dynamodb")
MOTO = Capabilities(
    "moto",
    reports_capacity=False,
    reports_table_size=False,
    projections=False,
    server_filters=False,
)


def from_response(response: dict[str, Any]) -> Capabilities:
    """The capabilities of the server that sent `response` (any boto3 response)."""
    headers = response.get("ResponseMetadata", {}).get("HTTPHeaders", {})
    server = str(headers.get("server", ""))
    return MOTO if "Werkzeug" in server else DYNAMODB


def probe(client: Any) -> Capabilities:
    """Ask the endpoint once (ListTables, which costs no capacity) what it is."""
    from .errors import not_dynamodb, translate_error

    try:
        response = client.list_tables(Limit=1)
    except Exception as err:
        raise translate_error(err) from err
    if "TableNames" not in response:
        raise not_dynamodb("ListTables", "TableNames")
    return from_response(response)
