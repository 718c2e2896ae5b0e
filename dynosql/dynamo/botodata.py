"""What botocore reads from its data directory to make a client, read no more than a client of
dynosql needs: the loader each session uses (``aws.boto_session``).

Two reads cost a ``dynosql -e`` more than the rest of making its client (measured on the busy
2-core machine: the client in 42-46 ms of CPU with botocore's loader, 18-27 ms with this one):

- "Is there a model for this service?" botocore answers by listing all ~450 service
  directories, twice per client (the model, the endpoint rules). :class:`_Services` answers
  for the one name asked, by botocore's rule, and computes botocore's own listing when
  something iterates it.
- ``endpoints.json`` (1.25 MB, every service in every partition) is decoded whole for the
  region and partition facts of one service. :func:`_endpoints` returns each partition with its
  ``dynamodb`` entry read from a trimmed copy (JSON in ``user_cache``'s ``botocore/``, named
  by the file's path, size and modification time, so another botocore or an edited file makes
  a new one; read only when private to the user) and every other service read from the whole
  file the first time one is asked for: the answers are the file's own. Without a usable copy
  the whole file is read, as botocore does, and the copy written for the next process.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from dynosql import user_cache

KEPT_SERVICES = ("dynamodb",)  # the client every statement makes; others read the whole file


def loader(data_path: str | None) -> Any:
    """botocore's ``create_loader(data_path)`` (AWS_DATA_PATH, the profile's data_path), with
    the two reads above made lazy."""
    from botocore.loaders import Loader

    class Lazy(Loader):
        def list_available_services(self, type_name: str) -> _Services:
            return _Services(self, type_name)

        def load_data_with_path(self, name: str) -> tuple[Any, str]:
            if name != "endpoints":
                return super().load_data_with_path(name)
            found = _located(self, name)
            if found is None:  # botocore's own error
                return super().load_data_with_path(name)
            path, file = found
            return _endpoints(file, lambda: super(Lazy, self).load_data_with_path(name)[0]), path

    paths = [os.path.expanduser(os.path.expandvars(p)) for p in (data_path or "").split(os.pathsep)]
    return Lazy(extra_search_paths=paths) if data_path is not None else Lazy()


def _located(loader: Any, name: str) -> tuple[str, str] | None:
    """The path botocore would load `name` from (as ``load_data_with_path`` returns it) and
    the file it would open (``.json`` before ``.json.gz``)."""
    for path in loader._potential_locations(name):
        for ext in (".json", ".json.gz"):
            if os.path.isfile(path + ext):
                return (path, path + ext) if ext == ".json" else None  # gz: botocore's way
    return None


def _endpoints(file: str, whole: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    cached = _trimmed_path(file)
    try:
        trimmed = json.loads(user_cache.read(cached) or b"")
        partitions = trimmed["partitions"]
    except (ValueError, TypeError, KeyError):
        data = whole()
        _write_trimmed(cached, data)
        return data
    full = functools.lru_cache(maxsize=1)(whole)

    def partition(i: int) -> Callable[[], dict[str, Any]]:
        return lambda: full()["partitions"][i]

    partitions = [
        {**p, "services": _PartitionServices(p["services"], partition(i))}
        for i, p in enumerate(partitions)
    ]
    return {**trimmed, "partitions": partitions}


def _trimmed_path(file: str) -> Path:
    st = os.stat(file)
    key = hashlib.sha256(f"{file}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:32]
    return user_cache.cache_dir("botocore", f"endpoints-{key}.json")


def _write_trimmed(path: Path, data: dict[str, Any]) -> None:
    """Each partition with only the kept services (a read-only home: the next process reads
    the whole file again)."""
    trimmed = {
        **data,
        "partitions": [
            {
                **partition,
                "services": {
                    name: partition["services"][name]
                    for name in KEPT_SERVICES
                    if name in partition["services"]
                },
            }
            for partition in data["partitions"]
        ],
    }
    user_cache.write(path, json.dumps(trimmed).encode())


class _PartitionServices(Mapping[str, Any]):
    """One partition's ``services``: the kept ones from the trimmed copy, any other name (or
    the whole mapping) from the whole file, read once when first needed."""

    def __init__(self, kept: dict[str, Any], partition: Callable[[], dict[str, Any]]):
        self.kept = kept
        self.partition = partition

    def __getitem__(self, name: str) -> Any:
        if name in self.kept:
            return self.kept[name]
        return self.partition()["services"][name]

    def __contains__(self, name: object) -> bool:
        return name in self.kept or name in self.partition()["services"]

    def __iter__(self) -> Iterator[str]:
        return iter(self.partition()["services"])

    def __len__(self) -> int:
        return len(self.partition()["services"])


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
