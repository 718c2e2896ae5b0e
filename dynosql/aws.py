"""boto3 sessions that share botocore's loaded service models.

Every ``boto3.Session`` builds its own botocore loader and so reads and JSON-decodes the
DynamoDB model, endpoints and partitions again: about 65 ms of CPU per client. The models are
read-only files; one loader per data path serves every session of the process (a client costs
about 5 ms then), while credentials, profiles and regions stay per session.
"""

from __future__ import annotations

import threading
from typing import Any

_loaders: dict[str, Any] = {}
_lock = threading.Lock()


def boto_session(profile: str | None = None, region: str | None = None) -> Any:
    """A ``boto3.Session`` (profile and region as given) whose botocore loader is shared."""
    import boto3
    import botocore.loaders

    session = boto3.Session(profile_name=profile, region_name=region)
    core = session._session
    path = str(core.get_config_variable("data_path") or "")
    with _lock:
        loader = _loaders.get(path)
        if loader is None:
            loader = _loaders[path] = botocore.loaders.create_loader(path or None)
    core.register_component("data_loader", loader)
    return session
