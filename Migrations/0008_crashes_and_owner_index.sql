-- 0008 — attempts lost to a dead worker are counted apart from handler failures, and the
-- owner-scoped job list gets its index.
--
-- attempt stays the number of claims (completion and progress are fenced on it). Of those:
--   crashes       claims that ended because their worker stopped (killed, hung past its lease):
--                 they do not count against max_attempts, so a crash-looping fleet does not fail
--                 healthy jobs; handler attempts = attempt - crashes.
--   crash_streak  crashes since the last attempt whose handler finished (success, failure,
--                 retry, cancellation). The rescuer fails a job whose streak reaches the crash
--                 limit (ATELIER_CRASH_LIMIT, 5): a poison pill that kills every worker it meets.
ALTER TABLE jobs ADD COLUMN crashes integer NOT NULL DEFAULT 0 CHECK (crashes >= 0);
ALTER TABLE jobs ADD COLUMN crash_streak integer NOT NULL DEFAULT 0 CHECK (crash_streak >= 0);

-- GET /v1/jobs lists one owner's jobs newest first (created_at DESC, id DESC).
CREATE INDEX jobs_owner_created_idx ON jobs (owner, created_at, id);

-- The claim returns crashes too, so a worker knows how many handler attempts are left.
-- (Same body as 0002 otherwise; the return type changes, so drop and create.)
DROP FUNCTION atelier_claim(text, text[], text[], integer, bigint);
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer)
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
                  j.request_id, j.created_at, j.crashes
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT c.id, 'running', jsonb_build_object('attempt', c.attempt, 'worker', p_worker)
          FROM claimed c
    )
    SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
           c.request_id, c.created_at, c.crashes
      FROM claimed c
     ORDER BY c.priority DESC, c.id
$$;
