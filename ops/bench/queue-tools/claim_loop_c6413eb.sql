-- ops/bench/queue-tools/claim_loop_c6413eb.sql — claim_loop.sql's loops for the reference build
-- c6413eb, whose claim takes 5 arguments and whose completion was a statement sent from Swift
-- (JobQueue+Complete.swift at c6413eb), not a function: it is defined here as one, verbatim, so
-- that the same loops time both builds (docs/benchmarks/queue.md, "Where sustained throughput goes"). Load
-- it into a scratch database migrated by c6413eb's binary, with jobs queued, then e.g.:
--   INSERT INTO jobs (id, kind, queue, owner, payload)
--     SELECT atelier_uuid_v7(), 'noop', 'default', 'o', '{}' FROM generate_series(1, 60000) g;
--   VACUUM ANALYZE jobs;
--   \i ops/bench/queue-tools/claim_loop_c6413eb.sql
--   CALL bench_loop(1000, 16);   -- as in claim_loop.sql
--   CALL bench_one(3000);        -- on an empty queue: one job queued, claimed alone, completed
CREATE OR REPLACE FUNCTION atelier_complete(p1 uuid[], p2 int[], p3 text[], p4 text[], p5 text[], p6 float8[], p7 text) RETURNS SETOF uuid LANGUAGE sql VOLATILE AS $f$
            WITH input AS (
                SELECT * FROM unnest(p1, p2,
                                     p3, p4,
                                     p5, p6)
                    AS c(id, attempt, outcome, result, error, delay_s)
            ), updated AS (
                UPDATE jobs j SET
                    state = CASE WHEN c.outcome IN ('retry', 'released', 'snoozed') THEN 'queued' ELSE c.outcome END,
                    attempt = CASE WHEN c.outcome = 'released' THEN j.attempt - 1 ELSE j.attempt END,
                    -- The handler finished this attempt: the job did not kill its worker (0008).
                    crash_streak = CASE WHEN c.outcome = 'released' THEN j.crash_streak ELSE 0 END,
                    -- A snoozed attempt does not count against max_attempts (0009).
                    snoozes = CASE WHEN c.outcome = 'snoozed' THEN j.snoozes + 1 ELSE j.snoozes END,
                    snooze_streak = CASE c.outcome WHEN 'snoozed' THEN j.snooze_streak + 1
                                                   WHEN 'released' THEN j.snooze_streak ELSE 0 END,
                    result = CASE WHEN c.outcome = 'succeeded' THEN NULLIF(c.result, '')::jsonb ELSE j.result END,
                    error = CASE c.outcome WHEN 'succeeded' THEN NULL WHEN 'released' THEN j.error ELSE c.error END,
                    errors = CASE WHEN c.outcome IN ('retry', 'failed')
                        THEN j.errors || jsonb_build_array(jsonb_build_object(
                                 'attempt', j.attempt, 'at', now(), 'error', c.error))
                        ELSE j.errors END,
                    run_at = CASE c.outcome WHEN 'retry' THEN now() + make_interval(secs => c.delay_s)
                                            WHEN 'snoozed' THEN now() + make_interval(secs => c.delay_s)
                                            WHEN 'released' THEN now() ELSE j.run_at END,
                    progress = CASE WHEN c.outcome = 'succeeded' THEN 100 ELSE j.progress END,
                    finished_at = CASE WHEN c.outcome IN ('succeeded', 'failed', 'cancelled') THEN now() END,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                  FROM input c
                 WHERE j.id = c.id AND j.attempt = c.attempt AND j.state = 'running' AND j.lease_owner = p7
                RETURNING j.id, c.outcome, j.attempt, j.run_at, c.error, j.owner, j.request_id, j.follow_up, j.snoozes
            ), followed AS (
                -- A success enqueues the job's follow-ups (migration 0007), exactly once.
                INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, request_id, parent_id, follow_up)
                SELECT atelier_uuid_v7(), f->>'kind', coalesce(f->>'queue', 'default'), coalesce((f->>'priority')::int, 0),
                       u.owner, coalesce(f->'payload', '{}'::jsonb), coalesce((f->>'max_attempts')::int, 5),
                       u.request_id, u.id, NULLIF(f->'follow_up', 'null'::jsonb)
                  FROM updated u, jsonb_array_elements(u.follow_up) AS f
                 WHERE u.outcome = 'succeeded' AND u.follow_up IS NOT NULL
                RETURNING parent_id, id
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id,
                       CASE outcome WHEN 'retry' THEN 'retrying' WHEN 'released' THEN 'requeued'
                                    WHEN 'snoozed' THEN 'requeued' ELSE outcome END,
                       jsonb_strip_nulls(jsonb_build_object(
                           'attempt', attempt,
                           'error', NULLIF(error, ''),
                           'run_at', CASE WHEN outcome IN ('retry', 'snoozed') THEN run_at END,
                           'reason', CASE outcome WHEN 'released' THEN 'worker shutting down' WHEN 'snoozed' THEN 'snoozed' END,
                           'snoozes', CASE WHEN outcome = 'snoozed' THEN snoozes END,
                           'follow_ups', (SELECT jsonb_agg(f.id ORDER BY f.id) FROM followed f WHERE f.parent_id = updated.id)))
                  FROM updated
            )
            SELECT id FROM updated
$f$;
CREATE OR REPLACE PROCEDURE bench_loop(n int, batch int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; atts int[]; t0 timestamptz; tc float8 := 0; tk float8 := 0; t1 timestamptz;
BEGIN
  FOR i IN 1..n LOOP
    t0 := clock_timestamp();
    SELECT array_agg(c.id), array_agg(c.attempt) INTO ids, atts FROM atelier_claim('w', '{default}', '{noop,sleep}', batch, 30000) c;
    t1 := clock_timestamp(); tc := tc + extract(epoch FROM t1 - t0);
    COMMIT;
    t0 := clock_timestamp();
    PERFORM atelier_complete(ids, atts, array_fill('succeeded'::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(0::float8, ARRAY[cardinality(ids)]), 'w');
    t1 := clock_timestamp(); tk := tk + extract(epoch FROM t1 - t0);
    COMMIT;
  END LOOP;
  RAISE NOTICE 'claim % us/job, complete % us/job', round((tc * 1e6 / (n * batch))::numeric, 1), round((tk * 1e6 / (n * batch))::numeric, 1);
END $$;

CREATE OR REPLACE PROCEDURE bench_one(n int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; atts int[]; t0 timestamptz; tc float8 := 0; samples float8[] := '{}';
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO jobs (id, kind, queue, owner, payload) VALUES (atelier_uuid_v7(), 'noop', 'default', 'o', '{}');
    COMMIT;
    t0 := clock_timestamp();
    SELECT array_agg(c.id), array_agg(c.attempt) INTO ids, atts FROM atelier_claim('w', '{default}', '{noop,sleep}', 16, 30000) c;
    samples := samples || extract(epoch FROM clock_timestamp() - t0) * 1e6;
    COMMIT;
    PERFORM atelier_complete(ids, atts, array_fill('succeeded'::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(0::float8, ARRAY[cardinality(ids)]), 'w');
    COMMIT;
  END LOOP;
  RAISE NOTICE 'claim of one: p50 % us, mean % us', (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s)::numeric, 1) FROM unnest(samples) s),
                                                 (SELECT round(avg(s)::numeric, 1) FROM unnest(samples) s);
END $$;
