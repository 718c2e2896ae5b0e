-- The join fixtures' own entity beside the entity fixtures' (grammar/plans/entities/schema.sql):
-- a carrier's pickups, stored under their own key but in the shipments' gsi2 collection
-- (gsi2pk = 'CARRIER#' || carrier), so that a shipment and a pickup of one carrier are read
-- together by ONE Query of the index.
CREATE ENTITY pickup ON shop (
  KEY (pk = 'PICKUP#' || pickupId, sk = 'PICKUP#' || pickupId),
  INDEX gsi2 (gsi2pk = 'CARRIER#' || carrier, gsi2sk = 'PICKUP#' || pickupAt),
  kind = 'pickup'
);
