-- usage: API calls of five tenants on 2026-05-04, under a write-sharded partition key.
--   pk = '<tenant>#<shard>'  sk = ISO-8601 time with milliseconds.
--   Write sharding (AWS's fix for a hot partition key): each call of a tenant is written under
--   a random shard, acme over 8 (acme#0 … acme#7), globex over 4, the rest over 2 or 1.
-- Run: dynosql --local -f examples/usage.sql

-- The sharded keys as DynamoDB stores them: no key holds all of acme.
SHOW HOT KEYS FROM usage LIMIT 5;

-- Summed back to the logical key: shards, items, bytes and share per tenant, with a note on
-- how evenly each tenant's shards fill and how many partitions they can spread over.
SHOW HOT KEYS FROM usage BY SPLIT_PART(pk, '#', 1) WITH SIZES;

-- The same sum with GROUP BY, and what the calls were.
SELECT SPLIT_PART(pk, '#', 1) AS tenant, COUNT(*) AS calls, COUNT(DISTINCT pk) AS shards,
       ROUND(AVG(latencyMs), 1) AS avg_ms
FROM usage
GROUP BY tenant
ORDER BY calls DESC;

-- One tenant's calls in an hour: a read of a sharded key is one Query per shard.
SELECT pk, sk, endpoint, "status"
FROM usage
WHERE pk IN ('globex#0', 'globex#1', 'globex#2', 'globex#3') AND sk LIKE '2026-05-04T10%';

-- Failed calls per tenant and status, over every shard (a Scan).
SELECT SPLIT_PART(pk, '#', 1) AS tenant, "status", COUNT(*) AS calls
FROM usage
WHERE "status" >= 400
GROUP BY tenant, "status"
ORDER BY tenant, "status";
