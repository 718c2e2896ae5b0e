-- drive: file trees per account.
--   PK = 'DRIVE#<account>'  SK = the full path; folders end in '/' ('root/photos/2026/').
--   LSI by_modified (PK, modified), KEYS_ONLY and sparse: folders have no `modified`.
-- Run: dynosql --local -f examples/drive.sql

-- What is there, and the shape of this table (keys, the LSI and its projection).
SHOW TABLES;
DESCRIBE drive;

-- One file by its full primary key: a single GetItem, the cheapest read there is.
SELECT * FROM drive WHERE PK = 'DRIVE#alice' AND SK = 'root/photos/2026/beach.jpg';

-- A subtree: a prefix LIKE on the sort key is one Query with begins_with(SK, 'root/photos/2026/').
SELECT SK, "size", modified FROM drive WHERE PK = 'DRIVE#alice' AND SK LIKE 'root/photos/2026/%';

-- Nested paths and sets: the key condition narrows, the rest is a FilterExpression
-- (filtered-out items are still read and paid for).
SELECT SK, meta.camera, meta.geo.country AS country
FROM drive
WHERE PK = 'DRIVE#alice' AND begins_with(SK, 'root/photos/')
  AND meta.geo.country = 'PT' AND contains(tags, 'beach');

-- Newest files first through the LSI: a descending Query (ScanIndexForward=false) that stops
-- after 10. Only files are in the index, so no folder shows up.
SELECT SK, modified FROM drive.by_modified WHERE PK = 'DRIVE#alice' ORDER BY modified DESC LIMIT 10;

-- The same without naming the index: folders have no `modified`, and NULLS LAST puts them after
-- every file, so the planner reads the LSI in order (Limit 10) and would read the folders only
-- if fewer than 10 files came back. (Without NULLS LAST, folders come first in DESC order and
-- the whole partition is read.)
SELECT SK, modified FROM drive WHERE PK = 'DRIVE#alice' ORDER BY modified DESC NULLS LAST LIMIT 10;

-- The same without naming the index: folders have no `modified`, and NULLS LAST puts them after
-- every file, so the planner reads the LSI in order (Limit 10) and would read the folders only
-- if fewer than 10 files came back. (Without NULLS LAST, folders come first in DESC order and
-- the whole partition is read.)
SELECT SK, modified FROM drive WHERE PK = 'DRIVE#alice' ORDER BY modified DESC NULLS LAST LIMIT 10;

-- What changed in June: a BETWEEN on the LSI's sort key (ISO-8601 strings sort as time).
SELECT SK, modified
FROM drive.by_modified
WHERE PK = 'DRIVE#carol' AND modified BETWEEN '2026-06-01' AND '2026-06-30T23:59:59Z';

-- Storage per kind for one account: GROUP BY over one partition's Query, aggregated here.
SELECT "type", COUNT(*) AS items, SUM("size") AS bytes
FROM drive
WHERE PK = 'DRIVE#alice'
GROUP BY "type";

-- Which accounts are biggest: items and bytes per partition key (a full Scan of whole items).
SHOW HOT KEYS FROM drive WITH SIZES LIMIT 5;

-- No key in the WHERE: this would Scan the whole table. EXPLAIN shows the plan and its
-- warning without reading anything.
EXPLAIN SELECT PK, SK, "size" FROM drive WHERE "type" = 'file' ORDER BY "size" DESC LIMIT 5;
