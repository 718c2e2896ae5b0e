-- The entities of the entity fixtures' shop table (tables.json); the tenants table's are
-- examples/entities.sql.
CREATE ENTITY orders ON shop (
  KEY (pk = 'ORDER#' || orderId, sk = 'ORDER#' || orderId),
  kind = 'order'
);

CREATE ENTITY shipment ON shop (
  KEY (pk = 'ORDER#' || orderId, sk = 'SHIP#' || status || '#' || shippedAt),
  INDEX gsi2 (gsi2pk = 'CARRIER#' || carrier, gsi2sk = shippedAt),
  kind = 'shipment'
);

CREATE ENTITY order_item ON shop (
  KEY (pk = 'ORDER#' || orderId, sk = 'ITEM#' || lineNo),
  INDEX inverted (sk = 'ITEM#' || lineNo, pk = 'ORDER#' || orderId),
  kind = 'item'
);
