"""NoSQL Workbench data models: the JSON files NoSQL Workbench imports and exports. Pure, no I/O.

- ``read``: a model file's text → the tables to create (as CREATE TABLE statements), their
  items and facets, and notes on what DynamoDB would not take;
- ``facets``: a facet → the entity that reads the same items (its name, its key aliases as
  columns, the key prefix its items share);
- ``write``: tables, their entities and items → a model file (EXPORT MODEL).

The statements that use them (IMPORT MODEL, EXPORT MODEL, ``--local --model``) are
``dynosql.statements.models``; the format and its edges are described in docs/models.md.
"""
