"""The tests SQLAlchemy expects a third-party dialect to pass, as SQLAlchemy ships them;
requirements.py turns off what DynamoDB cannot do, unsupported.py names the tests not run.

Two classes are adapted, their tests left as they are:

- ComponentReflectionTest's tables carry CHECK, UNIQUE and FOREIGN KEY constraints, a unique
  and a three-column index, and two tables have no primary key, so creating them fails before
  any of its tests run. Here they are SQLAlchemy's own tables less what a DynamoDB table cannot
  hold (`keyed_tables`); unsupported.py names the tests that need what was left out.
- HasTableTest creates a view whenever ``testing.requires.view_reflection`` is an object (it
  always is: SQLAlchemy's define_tables tests the requirement itself, not its ``.enabled``);
  DynamoDB has no views, requirements.py turns views off, and here no view is created.
"""

from collections.abc import Callable

from sqlalchemy import Column, Index, MetaData, Table
from sqlalchemy.testing.suite import *  # noqa: F403
from sqlalchemy.testing.suite import ComponentReflectionTest as _ComponentReflectionTest
from sqlalchemy.testing.suite import HasTableTest as _HasTableTest


def keyed_tables(define: Callable[[MetaData], None], metadata: MetaData) -> None:
    """The tables `define` makes, in `metadata`, less what DynamoDB cannot hold: a table
    without a primary key, every constraint but the key, an index a GSI cannot be (unique, or
    of more than two columns)."""
    every = MetaData()
    define(every)
    for table in every.tables.values():
        if not table.primary_key.columns:
            continue  # every DynamoDB table has a partition key
        columns = [
            Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
            for c in table.columns
        ]
        kept = Table(table.name, metadata, *columns, schema=table.schema)
        for index in table.indexes:
            if not index.unique and 1 <= len(index.columns) <= 2:
                Index(index.name, *(kept.c[c.name] for c in index.columns))


class ComponentReflectionTest(_ComponentReflectionTest):
    @classmethod
    def define_reflected_tables(cls, metadata, schema):
        keyed_tables(
            lambda every: super(ComponentReflectionTest, cls).define_reflected_tables(
                every, schema
            ),
            metadata,
        )


class HasTableTest(_HasTableTest):
    @classmethod
    def define_views(cls, metadata):
        pass  # views are off (requirements.py): DynamoDB has none
