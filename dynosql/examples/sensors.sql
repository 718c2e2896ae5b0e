-- sensors: readings per device, 4-5 May 2026.
--   deviceId = 'dev-0001' .. 'dev-0040'  readingTs = ISO-8601 time.
--   GSI by_region (region, readingTs), projection INCLUDE [temperature].
--   Three devices report every five minutes and hold most readings: hot keys.
-- Run: dynosql --local -f examples/sensors.sql

DESCRIBE sensors;

-- The latest reading of one device: a descending Query that stops after one item.
SELECT * FROM sensors WHERE deviceId = 'dev-0007' ORDER BY readingTs DESC LIMIT 1;

-- One hour of readings: BETWEEN on the sort key.
SELECT readingTs, temperature, humidity
FROM sensors
WHERE deviceId = 'dev-0013' AND readingTs BETWEEN '2026-05-04T12:00:00Z' AND '2026-05-04T13:00:00Z';

-- Hot keys by hand: GROUP BY the partition key over a Scan counts items per device.
SELECT deviceId, COUNT(*) AS readings
FROM sensors
GROUP BY deviceId
ORDER BY readings DESC
LIMIT 5;

-- The same question, with bytes too. This measures stored skew; traffic skew needs
-- CloudWatch Contributor Insights.
SHOW HOT KEYS FROM sensors WITH SIZES LIMIT 5;

-- A region through the GSI: only keys and temperature are projected there, so asking for
-- just those needs no fetch from the table. GSI reads are eventually consistent.
SELECT deviceId, readingTs, temperature
FROM sensors.by_region
WHERE region = 'sa-east' AND readingTs BETWEEN '2026-05-05' AND '2026-05-06';

-- Temperature statistics for one region from the GSI (negative readings are freezers).
SELECT region, COUNT(*) AS readings, MIN(temperature) AS low, AVG(temperature) AS mean,
       MAX(temperature) AS high
FROM sensors.by_region
WHERE region = 'eu-west'
GROUP BY region;

-- A stored NULL is a value (IS NULL); a missing attribute is not (attribute_not_exists).
SELECT readingTs, humidity FROM sensors WHERE deviceId = 'dev-0021' AND humidity IS NULL;

-- `status` is sparse (only alarms carry it) and not a key: a Scan with a filter.
EXPLAIN SELECT deviceId, readingTs, temperature FROM sensors WHERE "status" = 'alarm';
