"""boto3 sessions shared within the process.

A new ``boto3.Session`` registers botocore's few hundred built-in event handlers and builds its
own loader, which reads and JSON-decodes the DynamoDB model, endpoints and partitions again:
about 70 ms of CPU per client, against about 5 ms for a client made from a session that already
did it. Sessions are kept by what decides them (profile, region and the ``AWS_*`` environment),
so a changed environment or profile still gets a session of its own; each client copies its
session's event handlers, so what one client registers (``wire.install``) stays its own.
boto3 sessions are not safe to make clients from in several threads at once: :func:`client`
makes them under one lock.
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
    """The process's ``boto3.Session`` for this profile, region and AWS environment."""
    import boto3

    environment = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_")))
    key = (profile, region, environment)
    with _lock:
        session = _sessions.get(key)
        if session is None:
            session = boto3.Session(profile_name=profile, region_name=region)
            _sessions[key] = session
            while len(_sessions) > _KEPT:
                _sessions.popitem(last=False)
        else:
            _sessions.move_to_end(key)
        return session


def client(session: Any, service: str, **kwargs: Any) -> Any:
    """``session.client(service, **kwargs)``, one at a time in the process."""
    with _lock:
        return session.client(service, **kwargs)
