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

Each session's data loader answers "is there a model for this service?" for that service alone
(:class:`_Services`): botocore's own answer lists every one of its ~450 service directories,
twice per client (the model, the endpoint rules), about 20 ms of a ``dynosql -e``; the answer
for any one name, and the whole listing when something iterates it, are botocore's own.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, overload

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
            session.register_component(
                "data_loader", _loader(session.get_config_variable("data_path"))
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


def _loader(data_path: str | None) -> Any:
    """botocore's ``create_loader(data_path)`` (AWS_DATA_PATH, the profile's data_path), whose
    ``list_available_services`` answers membership per name."""
    from botocore.loaders import Loader

    class NamedLoader(Loader):
        def list_available_services(self, type_name: str) -> _Services:
            return _Services(self, type_name)

    paths = [os.path.expanduser(os.path.expandvars(p)) for p in (data_path or "").split(os.pathsep)]
    return NamedLoader(extra_search_paths=paths) if data_path is not None else NamedLoader()


class _Services(Sequence[str]):
    """The services with a model of `type_name`: ``name in services`` looks at that name's
    directories only, by botocore's rule (a directory on the search path with an API version
    holding a `type_name` file); anything else computes botocore's sorted list."""

    def __init__(self, loader: Any, type_name: str):
        self.loader = loader
        self.type_name = type_name
        self._listing: list[str] | None = None

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or not name or name in (".", "..") or os.sep in name:
            return name in self._all()
        exists = self.loader.file_loader.exists
        for base in self.loader._potential_locations():
            folder = os.path.join(base, name)
            if os.path.isdir(folder) and any(
                exists(os.path.join(folder, version, self.type_name))
                for version in os.listdir(folder)
            ):
                return True
        return False

    def _all(self) -> list[str]:
        if self._listing is None:
            from botocore.loaders import Loader

            self._listing = list(Loader.list_available_services(self.loader, self.type_name))
        return self._listing

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())
