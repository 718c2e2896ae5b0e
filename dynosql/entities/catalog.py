"""The entities a session has declared (CREATE ENTITY, schema files), by name.

Entities are client-side definitions: declaring or dropping one sends nothing to DynamoDB.
Names are case-sensitive, as table names are; an entity name is looked up before a table's
(CREATE ENTITY refuses the name of a table that exists).
"""

from __future__ import annotations

from pathlib import Path

from dynosql.entity_model import Entity


class Entities:
    """The session's declared entities; `schema_file` is where the REPL offers to append a
    CREATE ENTITY typed at its prompt (the last ``--schema FILE``, else the config's)."""

    def __init__(self) -> None:
        self._by_name: dict[str, Entity] = {}
        self.schema_file: Path | None = None
        self.origin: dict[str, Path] = {}  # entity -> the schema file that declared it
        self.version = 0  # bumped on every change: caches elsewhere (completion) follow

    def __len__(self) -> int:
        return len(self._by_name)

    def get(self, name: str) -> Entity | None:
        return self._by_name.get(name)

    def add(self, entity: Entity, origin: Path | None = None) -> None:
        """Declare `entity`; `origin`, the schema or model file that declares it (DROP ENTITY
        offers to remove it from there)."""
        self._by_name[entity.name] = entity
        if origin is not None:
            self.origin[entity.name] = origin
        self.version += 1

    def drop(self, name: str) -> Entity | None:
        self.origin.pop(name, None)
        found = self._by_name.pop(name, None)
        if found is not None:
            self.version += 1
        return found

    def all(self) -> list[Entity]:
        """Every declared entity, by name."""
        return [self._by_name[n] for n in sorted(self._by_name)]

    def on(self, table: str) -> list[Entity]:
        """The declared entities of one table."""
        return [e for e in self.all() if e.table == table]

    def names(self) -> list[str]:
        return sorted(self._by_name)
