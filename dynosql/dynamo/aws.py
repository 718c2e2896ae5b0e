"""botocore sessions shared within the process.

Clients are made from botocore's own session, not boto3's: boto3 adds resources and S3's
transfer methods, which dynosql never uses, and importing it costs about 40 ms of CPU more
(s3transfer, multiprocessing, the resource factory) on every ``dynosql -e``. Profiles (SSO,
roles, credential processes), regions and the ``AWS_*`` environment are botocore's either way.

A new session registers botocore's few hundred built-in event handlers and builds its
own loader, which reads and JSON-decodes the DynamoDB model, endpoints and partitions again:
about 70 ms of CPU per client, against about 5 ms for a client made from a session that already
did it. Sessions are kept by what decides them (profile, region and the ``AWS_*`` environment),
so a changed environment or profile still gets a session of its own; each client copies its
session's event handlers, so what one client registers (``wire.install``) stays its own.
Sessions are not safe to make clients from in several threads at once: :func:`client` makes
them under one lock.

Each session reads botocore's data through ``botodata.loader`` (what it reads and why).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

_KEPT = 8
_sessions: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_lock = threading.RLock()


def boto_session(profile: str | None = None, region: str | None = None) -> Any:
    """The process's ``botocore.session.Session`` for this profile, region and AWS
    environment (ProfileNotFound when the profile is not configured, as boto3 would raise)."""
    import botocore.session

    environment = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_")))
    key = (profile, region, environment)
    with _lock:
        session = _sessions.get(key)
        if session is None:
            session = botocore.session.Session(profile=profile)
            if region is not None:
                session.set_config_variable("region", region)
            session.get_scoped_config()  # an unknown profile fails here, not at the first call
            from dynosql.dynamo.botodata import loader

            session.register_component(
                "data_loader", loader(session.get_config_variable("data_path"))
            )
            _sessions[key] = session
            while len(_sessions) > _KEPT:
                _sessions.popitem(last=False)
        else:
            _sessions.move_to_end(key)
        return session


def client(session: Any, service: str, **kwargs: Any) -> Any:
    """``session.create_client(service, **kwargs)``, one at a time in the process."""
    with _lock:
        return session.create_client(service, **kwargs)


def region_of(session: Any) -> str | None:
    """The session's region (AWS_DEFAULT_REGION, the profile's, or the one it was made with)."""
    region: str | None = session.get_config_variable("region")
    return region
