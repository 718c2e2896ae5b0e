"""What the backend can be trusted with, decided once per Session.

DynamoDB itself (and dynalite, which follows it closely) reports consumed capacity, takes every
valid ProjectionExpression and FilterExpression, and keeps table sizes. moto does not: its
ConsumedCapacity is a constant (the embedded ``--local`` server replaces it with the figure
DynamoDB's rules give, and says so in a header: `EMBEDDED`), it fails
(HTTP 500) on valid projections of irregular items and on ordering comparisons between types,
it compares some values across types as equal (a number and a boolean; the embedded server
compares as DynamoDB does), and it reports no table size. Rather than ask "is this moto?" in
several places, the Session decides a `Capabilities` once, from the first answer's HTTP ``Server`` header (moto runs on Werkzeug), and
hands it to the catalog, the planner options and the executor. (The `Capabilities` data is the
port's: `dynosql.plan.port`.)

Projections on moto. moto 5.2 projects an item by turning it into plain Python values with
boto3's decimal context and back: an item holding a number beyond that context (38 digits
below 1E-128, say) or a nested path through a value that is not a map fails the whole request
with an HTML 500 page. Items like that are rare, and reading whole items costs the same RCU but
several times the client's time, so reads on moto do send their ProjectionExpression. The one
answer moto gives to the shape it mishandles (a request carrying a ProjectionExpression, a 500
page from Werkzeug) raises `ProjectionRefused` at once (`install`, before botocore's retries
and their backoff); the executor sends the request again without the projection and reads
that table whole for the rest of the session.
"""

from __future__ import annotations

import re
from typing import Any

from dynosql.dynamo.retry import RetryPolicy
from dynosql.errors import ExecutionError
from dynosql.plan.port import DYNAMODB, EMBEDDED, MOTO, Capabilities

# what the embedded server (dynosql.local) says about its answers: every answer carries
# METERED_HEADER ("computed": its ConsumedCapacity is DynamoDB's rule, not moto's constant); a
# failed conditional write's ConsumedCapacity (JSON) rides on FAILED_WRITE_HEADER of the error
# answer (botocore keeps only an error's modelled fields, but hands every header on)
METERED_HEADER = "x-dynosql-capacity"
FAILED_WRITE_HEADER = "x-dynosql-failed-write-capacity"


class ProjectionRefused(ExecutionError):
    """moto answered a request carrying a ProjectionExpression with its HTTP 500 page. The
    executor sends the request again without it; anywhere else it is a one-line error."""

    def __init__(self) -> None:
        super().__init__(
            "the server (moto) failed to project the items of this request (it cannot project "
            "items holding a number beyond boto3's decimal context, or a path through a value "
            "that is not a map)"
        )


def install(client: Any) -> None:
    """Raise `ProjectionRefused` for moto's failure on a projection, before botocore retries
    it (it fails the same way every time). Any other answer goes on as before."""
    events = getattr(getattr(client, "meta", None), "events", None)
    if events is not None:
        events.register_first(
            "needs-retry.dynamodb", _refused_projection, unique_id="dynosql-moto-projection"
        )


def _refused_projection(response: Any = None, request_dict: Any = None, **_: Any) -> None:
    if not response or not request_dict:
        return
    http = response[0]
    if getattr(http, "status_code", None) != 500:
        return
    if "Werkzeug" not in str(http.headers.get("server", "")):
        return
    body = request_dict.get("body") or b""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    if '"ProjectionExpression"' in text:
        raise ProjectionRefused()


_NAME = re.compile(r"#[A-Za-z0-9_]+")


def without_projection(params: dict[str, Any]) -> dict[str, Any]:
    """`params` without its ProjectionExpression (also inside BatchGetItem's RequestItems), and
    without the attribute names only the projection used; `params` itself when it has none."""
    if "RequestItems" in params:
        specs = params["RequestItems"]
        if not any("ProjectionExpression" in spec for spec in specs.values()):
            return params
        return {
            **params,
            "RequestItems": {name: without_projection(spec) for name, spec in specs.items()},
        }
    if "ProjectionExpression" not in params:
        return params
    out = {k: v for k, v in params.items() if k != "ProjectionExpression"}
    names = out.pop("ExpressionAttributeNames", None)
    if names:
        used = set()
        for key, value in out.items():
            if key.endswith("Expression") and isinstance(value, str):
                used.update(_NAME.findall(value))
        kept = {k: v for k, v in names.items() if k in used}
        if kept:
            out["ExpressionAttributeNames"] = kept
    return out


def from_response(response: dict[str, Any]) -> Capabilities:
    """The capabilities of the server that sent `response` (any boto3 response)."""
    headers = response.get("ResponseMetadata", {}).get("HTTPHeaders", {})
    server = str(headers.get("server", ""))
    if "Werkzeug" not in server:
        return DYNAMODB
    return EMBEDDED if METERED_HEADER in headers else MOTO


def probe(client: Any, policy: RetryPolicy | None = None) -> Capabilities:
    """Ask the endpoint once (ListTables, which costs no capacity) what it is, through `policy`
    (the session's retries; without one, sent once)."""
    from dynosql.errors import not_dynamodb

    policy = policy or RetryPolicy.once()
    response = policy.call(client.list_tables, Limit=1)
    if "TableNames" not in response:
        raise not_dynamodb("ListTables", "TableNames")
    return from_response(response)


__all__ = [
    "DYNAMODB",
    "EMBEDDED",
    "MOTO",
    "Capabilities",
    "ProjectionRefused",
    "from_response",
    "install",
    "probe",
    "without_projection",
]
