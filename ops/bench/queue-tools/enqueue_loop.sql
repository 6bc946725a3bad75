-- ops/bench/queue-tools/enqueue_loop.sql — where a single-job enqueue's PostgreSQL time goes, in
-- PostgreSQL alone: no client, one backend (docs/benchmarks/api.md, "Uploads under a burst"). Load it into
-- a scratch database migrated by the build under test (0028 or later), then, e.g.:
--   SET synchronous_commit = off;      -- time the work, not the WAL flush
--   \i ops/bench/queue-tools/enqueue_loop.sql
--   CALL enqueue_loop(2000);           -- each step below 2,000 times; a NOTICE per step, µs per job
-- Each job commits on its own, as an API request's does. The ids come from atelier_uuid_v7(),
-- whose cost every step shares.
CREATE OR REPLACE PROCEDURE enqueue_loop_noop_call(a uuid, b text, c text, d integer, e text, f text, g integer,
                                                   h float8, i text, j text, k text, l text, m boolean, n integer,
                                                   o text, p integer, INOUT r uuid[])
LANGUAGE plpgsql AS $$ BEGIN r := ARRAY[a]; COMMIT; END $$;

CREATE OR REPLACE PROCEDURE enqueue_loop(n int) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; x uuid; tag float8; ins uuid[];
BEGIN
  -- 1. What the API sends: CALL atelier_enqueue_jobs (0028) for one job.
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP
    ins := NULL;
    CALL atelier_enqueue_jobs(ARRAY[atelier_uuid_v7()], ARRAY['noop'], ARRAY['default'], ARRAY[0], ARRAY['owner' || (i % 4)],
         ARRAY['{}'], ARRAY[3], ARRAY[-1::float8], ARRAY[''], ARRAY['req'], ARRAY[''], ARRAY[''], true, ARRAY[0], ARRAY[''],
         ARRAY[0], ins);
  END LOOP;
  RAISE NOTICE 'CALL atelier_enqueue_jobs: % us/job', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / n)::numeric, 1);
  -- 2. The same insert function, selected, then COMMIT: no procedure around it.
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP
    SELECT atelier_insert_jobs(ARRAY[atelier_uuid_v7()], ARRAY['noop'], ARRAY['default'], ARRAY[0], ARRAY['owner' || (i % 4)],
         ARRAY['{}'], ARRAY[3], ARRAY[-1::float8], ARRAY[''], ARRAY['req'], ARRAY[''], ARRAY[''], true, ARRAY[0], ARRAY[''],
         ARRAY[0]) INTO x;
    COMMIT;
  END LOOP;
  RAISE NOTICE 'SELECT atelier_insert_jobs; COMMIT: % us/job', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / n)::numeric, 1);
  -- 3. A plain INSERT of one tagged job (the triggers fire), then COMMIT: c6413eb's shape.
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP
    INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, run_at, request_id, fair_tag)
    VALUES (atelier_uuid_v7(), 'noop', 'default', 0, 'owner' || (i % 4), '{}', 3, now(), 'req', i);
    COMMIT;
  END LOOP;
  RAISE NOTICE 'plain INSERT; COMMIT: % us/job', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / n)::numeric, 1);
  -- 4. The fair tag alone (atelier_fair_tags for one job).
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP
    SELECT f.tag INTO tag FROM atelier_fair_tags(true, ARRAY['owner' || (i % 4)], ARRAY[0]) f;
  END LOOP;
  RAISE NOTICE 'atelier_fair_tags alone: % us/job', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / n)::numeric, 1);
  -- 5. A CALL with the same 17 arguments that only commits: the procedure's own cost.
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP
    CALL enqueue_loop_noop_call(atelier_uuid_v7(), 'noop', 'default', 0, 'owner' || (i % 4), '{}', 3, -1::float8, '', 'req',
                                '', '', true, 0, '', 0, ins);
  END LOOP;
  RAISE NOTICE 'CALL of 17 arguments that only commits: % us/job', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / n)::numeric, 1);
END $$;
