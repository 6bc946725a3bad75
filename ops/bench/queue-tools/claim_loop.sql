-- ops/bench/queue-tools/claim_loop.sql — the claim and the completion alone in PostgreSQL, no
-- client and no workers (docs/benchmarks/queue.md, "What each queue feature costs"). Load it into a scratch
-- database migrated by the build under test (a7342a2 or later: atelier_claim with 7 arguments),
-- with jobs queued and fair-tagged, then e.g.:
--   INSERT INTO kind_limits (kind, concurrency, updated_by) VALUES ('sleep', 4, 'bench');
--   INSERT INTO jobs (id, kind, queue, owner, payload, fair_tag)
--     SELECT atelier_uuid_v7(), 'noop', 'default', 'o', '{}', g FROM generate_series(1, 60000) g;
--   VACUUM ANALYZE jobs;
--   \i ops/bench/queue-tools/claim_loop.sql
--   CALL bench_loop(1000, 16);   -- 1,000 claims of 16, each completed; a NOTICE gives µs per job
--   CALL bench_one(3000);        -- 3,000 times: one job queued, claimed alone, completed; a NOTICE
--                                   gives the claim's p50 and mean (a lone job's claim: pickup)
-- Each claim and each completion commits on its own, as a worker's do.
CREATE OR REPLACE PROCEDURE bench_loop(n int, batch int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; atts int[]; t0 timestamptz; tc float8 := 0; tk float8 := 0; t1 timestamptz;
BEGIN
  FOR i IN 1..n LOOP
    t0 := clock_timestamp();
    SELECT array_agg(c.id), array_agg(c.attempt) INTO ids, atts FROM atelier_claim('w', '{default}', '{noop,sleep}', batch, 30000, 1000, true) c;
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
DECLARE ids uuid[]; atts int[]; t0 timestamptz; samples float8[] := '{}';
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO jobs (id, kind, queue, owner, payload, fair_tag) VALUES (atelier_uuid_v7(), 'noop', 'default', 'o', '{}', i);
    COMMIT;
    t0 := clock_timestamp();
    SELECT array_agg(c.id), array_agg(c.attempt) INTO ids, atts FROM atelier_claim('w', '{default}', '{noop,sleep}', 16, 30000, 1000, true) c;
    samples := samples || extract(epoch FROM clock_timestamp() - t0) * 1e6;
    COMMIT;
    PERFORM atelier_complete(ids, atts, array_fill('succeeded'::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(''::text, ARRAY[cardinality(ids)]), array_fill(0::float8, ARRAY[cardinality(ids)]), 'w');
    COMMIT;
  END LOOP;
  RAISE NOTICE 'claim of one: p50 % us, mean % us',
    (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s)::numeric, 1) FROM unnest(samples) s),
    (SELECT round(avg(s)::numeric, 1) FROM unnest(samples) s);
END $$;
