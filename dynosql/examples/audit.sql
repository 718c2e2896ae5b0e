-- audit: an event log per actor (people and services), all of March 2026.
--   PK = 'ACTOR#<id>'  SK = 'EVT#<ISO-8601 time with milliseconds>Z' (unique per actor).
--   No secondary indexes: every read pattern goes through the actor.
-- Run: dynosql --local -f examples/audit.sql

DESCRIBE audit;

-- The latest 10 events of one actor: a descending Query with Limit 10, newest first.
SELECT SK, action, resource, ok FROM audit WHERE PK = 'ACTOR#ana.silva' ORDER BY SK DESC LIMIT 10;

-- A time window: BETWEEN on the sort key (inclusive at both ends) is one key condition.
SELECT SK, action, resource, latencyMs
FROM audit
WHERE PK = 'ACTOR#svc-backup'
  AND SK BETWEEN 'EVT#2026-03-10T00:00:00.000Z' AND 'EVT#2026-03-10T23:59:59.999Z';

-- One day by prefix: LIKE 'EVT#2026-03-15%' becomes begins_with on the sort key.
SELECT SK, action FROM audit WHERE PK = 'ACTOR#svc-indexer' AND SK LIKE 'EVT#2026-03-15%';

-- Failed logins of one person: key condition on the actor, FilterExpression on the rest.
SELECT SK, ip, error FROM audit WHERE PK = 'ACTOR#ana.silva' AND action = 'login' AND ok = false;

-- A few actors at once: IN on the partition key runs one Query per value, not a Scan.
SELECT PK, SK, action
FROM audit
WHERE PK IN ('ACTOR#ivan.petrov', 'ACTOR#julia.romero', 'ACTOR#kofi.mensah')
  AND SK >= 'EVT#2026-03-25';

-- Latency per action for one service: aggregates over one partition.
SELECT action, COUNT(*) AS events, AVG(latencyMs) AS avg_ms, MAX(latencyMs) AS max_ms
FROM audit
WHERE PK = 'ACTOR#svc-indexer'
GROUP BY action;

-- Who writes the most: items and bytes per actor (stored skew, from a Scan).
SHOW HOT KEYS FROM audit WITH SIZES LIMIT 5;

-- Every failure, whoever caused it: `error` exists only on failed events, but without a key
-- this is a Scan of the whole log. EXPLAIN says so before anything is read.
EXPLAIN SELECT PK, SK, error FROM audit WHERE attribute_exists(error);
