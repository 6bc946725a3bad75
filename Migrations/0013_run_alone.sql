-- 0013 — a crash counts towards the poison-pill limit only when the job was running alone.
--
-- Before, the rescuer raised crash_streak for every job a dead worker held. A worker process runs
-- up to ATELIER_WORKER_CONCURRENCY jobs, so one kill was charged to all of them: with a SIGKILL
-- every 0.5 s among 3 worker processes, 33 of 300 healthy stylize jobs reached the crash limit
-- and were failed as poison pills. How the process died does not say which job killed it: an
-- out-of-memory kill caused by one job is a SIGKILL like an operator's, and a worker outside a
-- supervisor has nobody watching its exit. So the queue finds the culprit by isolation:
--
--   run_alone     set by the rescuer on every job it takes back from a dead worker; cleared
--                 where crash_streak is cleared (a completion whose handler finished the attempt,
--                 an operator retry). A marked job is claimed only by a worker that runs nothing
--                 else (atelier_claim below), and that worker claims nothing more until it is done.
--   crash_streak  (0008) now rises only for a job whose dead worker was running nothing else: the
--                 only suspect. A job lost together with others raises crashes (still not a
--                 handler attempt) and gets run_alone, not the streak. A real poison pill goes:
--                 crash among others → runs alone → crashes alone × the crash limit → failed.
ALTER TABLE jobs ADD COLUMN run_alone boolean NOT NULL DEFAULT false;

-- Marked jobs waiting, in claim order. They are few (only jobs whose worker died under them),
-- so the claim's two looks for one cost next to nothing.
CREATE INDEX jobs_run_alone_idx ON jobs (priority DESC, run_at, id) WHERE state = 'queued' AND run_alone;

-- The claim (0009's, plus the isolation rules; the signature and return type change, so drop
-- and create). Which jobs p_worker is running is read from the jobs it holds in the database —
-- the same view the rescuer judges a crash by:
--   * a worker running nothing takes the first marked job in claim order, and only that one
--     (a marked job goes ahead of the queue for an idle worker: it already lost a run);
--   * a worker that holds a marked job claims nothing;
--   * a busy worker claims only unmarked jobs — and nothing at all while a marked job it could
--     run has waited longer than p_isolation_wait_ms, so under steady load (workers never
--     idle) it drains, becomes idle and takes it. The wait is bounded by that delay plus the
--     shortest drain among the workers that can run the job.
-- Claim order, paused queues, kinds and queues apply to marked jobs as to the others.
DROP FUNCTION atelier_claim(text, text[], text[], integer, bigint);
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
                              p_isolation_wait_ms bigint)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean)
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
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
        SELECT n.id FROM jobs n
         WHERE n.state = 'queued' AND n.run_alone AND n.run_at <= now() AND n.kind = ANY (p_kinds)
           AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
           AND (SELECT m.running FROM mine m) = 0
         ORDER BY n.priority DESC, n.run_at, n.id
         LIMIT 1
           FOR UPDATE SKIP LOCKED
    ), next AS MATERIALIZED (
        SELECT n.id FROM jobs n
         WHERE n.state = 'queued' AND NOT n.run_alone AND n.run_at <= now() AND n.kind = ANY (p_kinds)
           AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
           AND NOT EXISTS (SELECT 1 FROM lone)
           AND NOT (SELECT m.alone FROM mine m)
           AND ((SELECT m.running FROM mine m) = 0 OR NOT EXISTS (
                SELECT 1 FROM jobs w
                 WHERE w.state = 'queued' AND w.run_alone
                   AND w.run_at <= now() - p_isolation_wait_ms * interval '1 millisecond'
                   AND w.kind = ANY (p_kinds) AND w.queue = ANY ((SELECT o.queues FROM open o)::text[])))
         ORDER BY n.priority DESC, n.run_at, n.id
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT l.id FROM lone l UNION ALL SELECT x.id FROM next x
    ), claimed AS (
        UPDATE jobs j
           SET state = 'running', attempt = j.attempt + 1, lease_owner = p_worker,
               lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
               started_at = coalesce(j.started_at, now()), updated_at = now()
          FROM picked WHERE j.id = picked.id
        RETURNING j.id, j.kind, j.queue, j.priority, j.owner, j.payload, j.attempt, j.max_attempts,
                  j.request_id, j.created_at, j.crashes, j.snoozes, j.snooze_streak, j.run_alone
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT c.id, 'running', CASE WHEN c.run_alone
                                     THEN jsonb_build_object('attempt', c.attempt, 'worker', p_worker, 'alone', true)
                                     ELSE jsonb_build_object('attempt', c.attempt, 'worker', p_worker) END
          FROM claimed c
    )
    SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
           c.request_id, c.created_at, c.crashes, c.snoozes, c.snooze_streak, c.run_alone
      FROM claimed c
     ORDER BY c.priority DESC, c.id
$$;
