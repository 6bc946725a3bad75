-- 0017 — a job may carry its own timeout.
--
-- Before, a handler's attempt was bounded only by its kind's built-in timeout, if any; a client
-- that knows its job should take seconds had no way to say so, and a stuck attempt held its slot
-- until the lease said otherwise. Now `timeout_ms` (from `"timeout_s"` on POST /v1/jobs, or
-- NewJob.timeout) bounds each attempt: the worker cancels the handler's task when it is past,
-- abandons the task (and replaces its process) if it has not returned ATELIER_STOP_GRACE later,
-- and records the attempt as timed out, retried by the kind's policy. NULL: the kind's default.
ALTER TABLE jobs ADD COLUMN timeout_ms integer CHECK (timeout_ms IS NULL OR timeout_ms > 0);

-- The claim, as 0016 made it, returning the timeout with the job; its comments are 0016's.
DROP FUNCTION atelier_claim(text, text[], text[], integer, bigint, bigint, boolean);
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
                              p_isolation_wait_ms bigint, p_fair boolean)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer)
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
    WITH due AS MATERIALIZED (
        SELECT w.id, w.owner, w.priority::integer AS priority, row_number() OVER (ORDER BY w.run_at, w.id) AS ord
          FROM (SELECT d.id, d.owner, d.priority, d.run_at FROM jobs d
                 WHERE d.state = 'queued' AND d.fair_tag IS NULL AND d.run_at <= now()
                 ORDER BY d.run_at, d.id
                 LIMIT 256
                   FOR UPDATE SKIP LOCKED) w
    ), tags AS (
        SELECT t.ord, t.tag
          FROM atelier_fair_tags(p_fair, ARRAY(SELECT d.owner FROM due d ORDER BY d.ord),
                                 ARRAY(SELECT d.priority FROM due d ORDER BY d.ord)) t
    )
    UPDATE jobs j SET fair_tag = t.tag
      FROM due d JOIN tags t ON t.ord = d.ord
     WHERE j.id = d.id;

    WITH open AS MATERIALIZED (
        -- p_queues less the paused ones; read below as `(SELECT …)::text[]`: an array for ANY,
        -- not a subquery.
        SELECT ARRAY(SELECT q FROM unnest(p_queues) q
                     WHERE q NOT IN (SELECT p.name FROM queues p WHERE p.paused)) AS queues
    ), mine AS MATERIALIZED (
        -- What p_worker runs now: its claims whose completion has not landed (jobs_running_idx).
        SELECT count(*) AS running, coalesce(bool_or(r.run_alone), false) AS alone
          FROM jobs r WHERE r.state = 'running' AND r.lease_owner = p_worker
    ), lone AS MATERIALIZED (
        SELECT n.id, n.priority, n.fair_tag FROM jobs n
         WHERE n.state = 'queued' AND n.run_alone AND n.run_at <= now() AND n.kind = ANY (p_kinds)
           AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
           AND (SELECT m.running FROM mine m) = 0
         ORDER BY n.priority DESC, n.run_at, n.id
         LIMIT 1
           FOR UPDATE SKIP LOCKED
    ), next AS MATERIALIZED (
        SELECT n.id, n.priority, n.fair_tag FROM jobs n
         WHERE n.state = 'queued' AND n.fair_tag IS NOT NULL AND NOT n.run_alone AND n.run_at <= now()
           AND n.kind = ANY (p_kinds)
           AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
           AND NOT EXISTS (SELECT 1 FROM lone)
           AND NOT (SELECT m.alone FROM mine m)
           AND ((SELECT m.running FROM mine m) = 0 OR NOT EXISTS (
                SELECT 1 FROM jobs w
                 WHERE w.state = 'queued' AND w.run_alone
                   AND w.run_at <= now() - p_isolation_wait_ms * interval '1 millisecond'
                   AND w.kind = ANY (p_kinds) AND w.queue = ANY ((SELECT o.queues FROM open o)::text[])))
         ORDER BY n.priority DESC, n.fair_tag, n.id
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT l.id, l.priority, l.fair_tag FROM lone l UNION ALL SELECT x.id, x.priority, x.fair_tag FROM next x
    ), served AS (
        -- The highest tag taken per priority: where V moves to.
        SELECT p.priority, max(p.fair_tag) AS tag FROM picked p WHERE p.fair_tag IS NOT NULL GROUP BY p.priority
    ), clock_moved AS (
        UPDATE fair_clock c SET v = s.tag FROM served s WHERE c.priority = s.priority AND c.v <= s.tag - 64
    ), clock_made AS (
        INSERT INTO fair_clock (priority, v) SELECT s.priority, s.tag FROM served s ON CONFLICT (priority) DO NOTHING
    ), claimed AS (
        UPDATE jobs j
           SET state = 'running', attempt = j.attempt + 1, lease_owner = p_worker, fair_tag = NULL,
               lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
               started_at = coalesce(j.started_at, now()), updated_at = now()
          FROM picked WHERE j.id = picked.id
        RETURNING j.id, j.kind, j.queue, j.priority, j.owner, j.payload, j.attempt, j.max_attempts,
                  j.request_id, j.created_at, j.crashes, j.snoozes, j.snooze_streak, j.run_alone, j.timeout_ms
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT c.id, 'running', CASE WHEN c.run_alone
                                     THEN jsonb_build_object('attempt', c.attempt, 'worker', p_worker, 'alone', true)
                                     ELSE jsonb_build_object('attempt', c.attempt, 'worker', p_worker) END
          FROM claimed c
    )
    SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
           c.request_id, c.created_at, c.crashes, c.snoozes, c.snooze_streak, c.run_alone, c.timeout_ms
      FROM claimed c
     ORDER BY c.priority DESC, c.id
$$;
