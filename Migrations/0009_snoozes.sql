-- 0009 — an attempt that could not run because something the job needs was down (the blob
-- store) is snoozed: the job goes back to the queue for later and the attempt does not count.
--
-- attempt stays the number of claims (completion and progress are fenced on it). Of those:
--   snoozes       claims whose handler met an outage and gave the job back for later (a
--                 `snoozed` completion): like crashes, they do not count against max_attempts,
--                 so an outage of any length never fails a job; handler attempts =
--                 attempt - crashes - snoozes.
--   snooze_streak snoozes since an attempt's handler last finished otherwise (success, failure,
--                 retry, cancellation): the worker waits longer after each one (SnoozePolicy).
ALTER TABLE jobs ADD COLUMN snoozes integer NOT NULL DEFAULT 0 CHECK (snoozes >= 0);
ALTER TABLE jobs ADD COLUMN snooze_streak integer NOT NULL DEFAULT 0 CHECK (snooze_streak >= 0);

-- The claim returns both, so a worker knows how many handler attempts are left and how long
-- to snooze. (Same body as 0008 otherwise; the return type changes, so drop and create.)
DROP FUNCTION atelier_claim(text, text[], text[], integer, bigint);
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer)
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
                  j.request_id, j.created_at, j.crashes, j.snoozes, j.snooze_streak
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT c.id, 'running', jsonb_build_object('attempt', c.attempt, 'worker', p_worker)
          FROM claimed c
    )
    SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
           c.request_id, c.created_at, c.crashes, c.snoozes, c.snooze_streak
      FROM claimed c
     ORDER BY c.priority DESC, c.id
$$;
