-- What the counting triggers take of single statements, as PostgreSQL times them (EXPLAIN ANALYZE
-- lists each trigger's time), in a transaction rolled back at the end. Run on a migrated
-- database with a backlog of tagged queued jobs, e.g. the one ./ops/bench/counts fills:
--   psql -d DB -f ops/bench/counts-tools/trigger_cost.sql | grep -E 'Trigger jobs|Execution Time'
-- The first statement of each kind per session also compiles the trigger function (about 1 ms),
-- so every statement is run once unmeasured first.
BEGIN;
INSERT INTO jobs (id, kind, owner, fair_tag) VALUES (gen_random_uuid(), 'noop', 'user:1', 1);
INSERT INTO jobs (id, kind, owner, fair_tag) SELECT gen_random_uuid(), 'noop', 'user:' || (i % 10), random() FROM generate_series(1, 100) i;
UPDATE jobs SET state = 'running', lease_owner = 'warm-up', attempt = attempt + 1
 WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND fair_tag IS NOT NULL ORDER BY priority DESC, fair_tag, id LIMIT 8);
UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE state = 'running' AND lease_owner = 'warm-up';
-- enqueue, 1 job and 100 jobs a statement
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO jobs (id, kind, owner, fair_tag) VALUES (gen_random_uuid(), 'noop', 'user:1', 1);
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO jobs (id, kind, owner, fair_tag)
SELECT gen_random_uuid(), 'noop', 'user:' || (i % 10), random() FROM generate_series(1, 100) i;
-- a claim's marking of 8 jobs, their lease renewal (no count changes), their completion
EXPLAIN (ANALYZE, COSTS OFF) UPDATE jobs SET state = 'running', lease_owner = 'w', attempt = attempt + 1
 WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND fair_tag IS NOT NULL ORDER BY priority DESC, fair_tag, id LIMIT 8);
EXPLAIN (ANALYZE, COSTS OFF) UPDATE jobs SET lease_expires_at = now() + interval '30 seconds' WHERE state = 'running' AND lease_owner = 'w';
EXPLAIN (ANALYZE, COSTS OFF) UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE state = 'running' AND lease_owner = 'w';
-- a claim of 500
EXPLAIN (ANALYZE, COSTS OFF) UPDATE jobs SET state = 'running', lease_owner = 'w2', attempt = attempt + 1
 WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND fair_tag IS NOT NULL ORDER BY priority DESC, fair_tag, id LIMIT 500);
ROLLBACK;
