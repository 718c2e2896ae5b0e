"""Entities: single-table design in SQL. Pure, no I/O.

An entity names a kind of item in a table (an invoice, a shipment) and maps its columns to the
table's physical attributes by *templates*, one per key attribute of the table and of each
index it lives in (``pk = 'TENANT#' || tenantId``), plus constants (``kind = 'invoice'``).

- ``dynosql.entity_model`` (below ``sql`` and ``plan``, which both use it): the definition
  (templates, their encoding and decoding, membership, SQL text);
- ``check``: what CREATE ENTITY refuses or warns about, against the table's description;
- ``dynosql.plan.entity_read`` (a planning step): an entity SELECT rewritten into the
  physical SELECT the planner plans as usual;
- ``write``: entity INSERT / UPDATE / DELETE rewritten into physical writes;
- ``catalog``: the session's declared entities;
- ``keyshape``, ``discover``, ``propose``: SHOW ENTITIES FROM t, the entity types of a table
  read from its items, and ``… AS CREATE``, their CREATE ENTITY statements.
"""
