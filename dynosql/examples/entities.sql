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

-- drive: files and folders of each account under PK = 'DRIVE#<account>', told apart by their
-- type; a folder's path ends in '/'. Files are in the LSI by_modified; folders, which have no
-- modified, are not.
CREATE ENTITY file ON drive (
  KEY (PK = 'DRIVE#' || owner, SK = path),
  INDEX by_modified (PK = 'DRIVE#' || owner, modified = modified),
  type = 'file'
);

CREATE ENTITY folder ON drive (
  KEY (PK = 'DRIVE#' || owner, SK = path || '/'),
  type = 'folder'
);

-- sensors: one kind of item, keyed by its own attributes; every reading is in by_region.
CREATE ENTITY reading ON sensors (
  KEY (deviceId = deviceId, readingTs = readingTs),
  INDEX by_region (region = region, readingTs = readingTs)
);

-- audit: one event per item under PK = 'ACTOR#<id>'.
CREATE ENTITY audit_event ON audit (
  KEY (PK = 'ACTOR#' || actorId, SK = 'EVT#' || at)
);

-- usage: API calls under a write-sharded key, pk = '<tenant>#<shard>'.
CREATE ENTITY api_call ON usage (
  KEY (pk = tenant || '#' || shard, sk = calledAt)
);
