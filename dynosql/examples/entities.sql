-- Entities of the example tables: a schema file (dynosql --local --schema examples/entities.sql).
-- Each CREATE ENTITY maps an entity's columns to the table's keys by templates; the SQL then
-- speaks of tenants, users and invoices, and compiles to the physical plan (see docs/entities.md).

-- tenants: three kinds of item under pk = 'TENANT#<name>', told apart by the sort key's prefix.
CREATE ENTITY tenant_user ON tenants (
  KEY (pk = 'TENANT#' || tenantId, sk = 'USER#' || email)
);

-- Open and paid invoices are also in gsi1 (by status, then due date); void ones are not.
CREATE ENTITY invoice ON tenants (
  KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId),
  INDEX gsi1 (gsi1pk = 'STATUS#' || status, gsi1sk = dueDate) WHERE status <> 'void'
);

CREATE ENTITY tenant_event ON tenants (
  KEY (pk = 'TENANT#' || tenantId, sk = 'EVENT#' || at)
);
