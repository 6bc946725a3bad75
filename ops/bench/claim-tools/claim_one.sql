-- One claim of one job, rolled back: what the claim costs with the limits set beforehand
-- (none, a concurrency limit, or concurrency, per-owner and rate together).
BEGIN;
SELECT count(*) FROM atelier_claim('pgbench-' || :client_id, ARRAY['default'], ARRAY['noop', 'other'], 1, 30000, 5000, true);
ROLLBACK;
