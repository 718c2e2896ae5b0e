"""The DynamoDB client a session talks through: the usual AWS environment, timeouts and a
retry budget that fits inside dynosql's own per-request deadline (dynamo.retry)."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from dynosql.dynamo import aws
from dynosql.dynamo.reader import MAX_CONCURRENT_REQUESTS
from dynosql.errors import UsageError, translate_error
from dynosql.settings import Settings


def make_client(
    endpoint_url: str | None = None,
    region: str | None = None,
    profile: str | None = None,
    credentials: tuple[str, str] | None = None,
    settings: Settings | None = None,
) -> Any:
    """A low-level DynamoDB client; the usual AWS environment applies (AWS_PROFILE, AWS_REGION,
    AWS_ENDPOINT_URL_DYNAMODB, SSO and role profiles through botocore sessions)."""
    from botocore.config import Config

    _check_endpoint(endpoint_url)
    # boto3 reads only AWS_DEFAULT_REGION; the AWS CLI and SDK v2 also read AWS_REGION (first)
    region = region or os.environ.get("AWS_REGION") or None
    try:
        session = aws.boto_session(profile, region)
    except Exception as err:  # ProfileNotFound and friends
        raise translate_error(err) from err
    if aws.region_of(session) is None and endpoint_url:
        region = "us-east-1"  # a local endpoint does not care, but botocore insists on one
    # botocore retries a few times quickly (an unreachable endpoint fails in seconds); the
    # executor keeps retrying throttles, 5xx and dropped connections with longer backoff, until
    # the per-request deadline. botocore's own attempts fit inside that deadline.
    s = settings or Settings()
    attempts = max(1, min(3, int(s.deadline // s.read_timeout)))
    config = Config(
        retries={"mode": "standard", "total_max_attempts": attempts},
        connect_timeout=float(s.connect_timeout),
        read_timeout=float(s.read_timeout),
        max_pool_connections=MAX_CONCURRENT_REQUESTS,
    )
    kwargs: dict[str, Any] = {"config": config}
    if endpoint_url:
        kwargs["endpoint_url"] = endpoint_url
    if region:
        kwargs["region_name"] = region
    if credentials:
        kwargs["aws_access_key_id"], kwargs["aws_secret_access_key"] = credentials
    try:
        return aws.client(session, "dynamodb", **kwargs)
    except Exception as err:
        if type(err).__name__ == "NoRegionError":
            return Unconfigured(err)
        if type(err).__name__ == "InvalidRegionError":
            raise UsageError(
                f"--region {kwargs.get('region_name') or aws.region_of(session)!r} is not a region "
                "name (e.g. eu-west-1)"
            ) from err
        raise translate_error(err) from err


class Unconfigured:
    """The client of a session that has no AWS region: a statement that sends no request
    (``SELECT 1``, SET, EXPLAIN of a SELECT without FROM) runs without one, and the REPL
    starts (its toolbar says ``aws · ?``); the first request raises what is missing, as
    making the client did. Its `meta` is empty: no region, endpoint or event handlers."""

    def __init__(self, err: Exception) -> None:
        self._err = err
        self.meta = SimpleNamespace(region_name="", endpoint_url="", events=None, config=None)

    def __getattr__(self, name: str) -> Any:
        raise translate_error(self._err) from self._err


def _check_endpoint(url: str | None) -> None:
    """An endpoint botocore can use: a scheme and a host (``localhost:8000`` is not one)."""
    if url is None:
        return
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--endpoint-url {url!r} is not a URL: give the scheme and host, e.g. "
            "http://localhost:8000"
        )
