-- tenants: an overloaded single table for a multi-tenant SaaS.
--   pk = 'TENANT#<name>'  sk = 'USER#<email>' | 'INVOICE#<000123>' | 'EVENT#<ISO time>'
--   GSI gsi1 (gsi1pk = 'STATUS#open' | 'STATUS#paid', gsi1sk = due date), projection ALL;
--   sparse: void invoices (and users, events) have no gsi1 keys.
-- Run: dynosql --local -f examples/tenants.sql

DESCRIBE tenants;

-- Everything a tenant owns, one Query on the partition key.
SELECT sk FROM tenants WHERE pk = 'TENANT#hooli';

-- Key overloading: one entity type by sort-key prefix, begins_with in the key condition.
SELECT sk, amount, currency, "status", dueDate
FROM tenants
WHERE pk = 'TENANT#acme' AND begins_with(sk, 'INVOICE#');

-- One user by full key: a GetItem.
SELECT "name", email, role FROM tenants WHERE pk = 'TENANT#acme' AND sk = 'USER#olga.cohen@acme.example';

-- Open invoices of every tenant, soonest due first, through the sparse GSI: one Query.
SELECT pk, sk, amount, currency, gsi1sk AS due
FROM tenants.gsi1
WHERE gsi1pk = 'STATUS#open'
ORDER BY gsi1sk
LIMIT 10;

-- Overdue as of 1 June: a range condition on the GSI sort key.
SELECT pk, sk, amount, dueDate FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' AND gsi1sk < '2026-06-01';

-- Invoice totals per status for one tenant: Query by prefix, then GROUP BY.
SELECT "status", COUNT(*) AS invoices, SUM(amount) AS total
FROM tenants
WHERE pk = 'TENANT#acme' AND begins_with(sk, 'INVOICE#')
GROUP BY "status";

-- A month of a tenant's events: BETWEEN on the overloaded sort key.
SELECT sk, "type", actor
FROM tenants
WHERE pk = 'TENANT#globex' AND sk BETWEEN 'EVENT#2026-09-01' AND 'EVENT#2026-09-30T23:59:59Z';

-- No index named, but the WHERE fixes gsi1's keys: the planner should pick gsi1 itself.
EXPLAIN SELECT pk, sk, amount FROM tenants WHERE gsi1pk = 'STATUS#paid' AND gsi1sk BETWEEN '2026-03-01' AND '2026-03-31';
