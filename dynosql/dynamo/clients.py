"""Clients for S3 and Athena made like the session's DynamoDB client (same credentials, region
and, for a local endpoint, the same endpoint)."""

from __future__ import annotations

from typing import Any

from dynosql.errors import translate_error


def _is_aws(endpoint: str) -> bool:
    return "amazonaws.com" in endpoint or "api.aws" in endpoint


def client_like(dynamodb: Any, service: str) -> Any:
    from botocore.config import Config

    from dynosql.dynamo.aws import boto_session, client

    meta = dynamodb.meta
    kwargs: dict[str, Any] = {
        "region_name": meta.region_name,
        "config": Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=3),
    }
    endpoint = str(meta.endpoint_url or "")
    if endpoint and not _is_aws(endpoint):
        kwargs["endpoint_url"] = endpoint
    credentials = getattr(getattr(dynamodb, "_request_signer", None), "_credentials", None)
    if credentials is not None:
        frozen = credentials.get_frozen_credentials()
        kwargs["aws_access_key_id"] = frozen.access_key
        kwargs["aws_secret_access_key"] = frozen.secret_key
        if frozen.token:
            kwargs["aws_session_token"] = frozen.token
    try:
        return client(boto_session(), service, **kwargs)
    except Exception as err:
        raise translate_error(err) from err
