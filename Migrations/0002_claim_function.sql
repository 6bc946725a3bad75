-- The claim as a function, so that its planner settings travel with it.
--
-- The claim must walk jobs_claim_idx in (priority DESC, run_at, id) order and stop after
-- p_limit rows. When the table's statistics are stale (a burst of enqueues since the last
-- autovacuum ANALYZE) the planner believes only a handful of jobs are queued and prefers a
-- bitmap or sequential scan plus a sort of the whole backlog: 10 ms at 10,000 queued jobs,
-- seconds at a million. The SET clauses below apply only while this function runs; with
-- them the index walk is the only plan left, and a claim costs the same at any depth
-- (BENCHMARKS.md, claim latency).
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz)
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
    WITH next AS MATERIALIZED (
        SELECT n.id FROM jobs n
         WHERE n.state = 'queued' AND n.run_at <= now() AND n.kind = ANY (p_kinds)
           AND n.queue = ANY (ARRAY(SELECT q FROM unnest(p_queues) q
                                    WHERE q NOT IN (SELECT p.name FROM queues p WHERE p.paused)))
         ORDER BY n.priority DESC, n.run_at, n.id
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), claimed AS (
        UPDATE jobs j
           SET state = 'running', attempt = j.attempt + 1, lease_owner = p_worker,
               lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
               started_at = coalesce(j.started_at, now()), updated_at = now()
          FROM next WHERE j.id = next.id
        RETURNING j.id, j.kind, j.queue, j.priority, j.owner, j.payload, j.attempt, j.max_attempts,
                  j.request_id, j.created_at
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT c.id, 'running', jsonb_build_object('attempt', c.attempt, 'worker', p_worker)
          FROM claimed c
    )
    SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
           c.request_id, c.created_at
      FROM claimed c
     ORDER BY c.priority DESC, c.id
$$;
