-- 0023 — a worker completes one batch and claims the next in one round trip (one commit).
--
--   atelier_complete(…)            the completion statement, as JobQueue.complete sent it
--                                  (prepared statement atelier_complete_v5) until now: fenced
--                                  outcomes, follow-ups and events; returns the ids that landed.
--                                  Moved here unchanged so the two callers below share it.
--   atelier_complete_and_claim(…)  runs atelier_complete, then atelier_claim, in one transaction:
--                                  the claim is a statement of its own (a fresh snapshot), so it
--                                  sees the slots and rows the completion freed — this worker's
--                                  running count, a kind's running count — exactly as a claim
--                                  sent after the completion committed would. Its first row
--                                  carries the landed ids (`completed`, the other columns NULL);
--                                  the claimed jobs follow, `completed` NULL.
--
-- Why: a busy worker sent a completion and a claim per batch, two round trips and two commits
-- (two WAL flushes), and the claim waited for a slot the completion had already freed. Now the
-- completer asks the worker for its free slots when it flushes and claims them with the same
-- call; an error rolls back both, so a batch is never half written.
CREATE FUNCTION atelier_complete(p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[],
                                 p_errors text[], p_delays float8[], p_worker text)
RETURNS SETOF uuid
LANGUAGE sql VOLATILE
AS $$
    WITH input AS (
        SELECT * FROM unnest(p_ids, p_attempts, p_outcomes, p_results, p_errors, p_delays)
            AS c(id, attempt, outcome, result, error, delay_s)
    ), updated AS (
        UPDATE jobs j SET
            state = CASE WHEN c.outcome IN ('retry', 'released', 'snoozed') THEN 'queued' ELSE c.outcome END,
            attempt = CASE WHEN c.outcome = 'released' THEN j.attempt - 1 ELSE j.attempt END,
            -- The handler finished this attempt: the job did not kill its worker (0008).
            crash_streak = CASE WHEN c.outcome = 'released' THEN j.crash_streak ELSE 0 END,
            -- ... so it need not run alone any more (0013).
            run_alone = CASE WHEN c.outcome = 'released' THEN j.run_alone ELSE false END,
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
         WHERE j.id = c.id AND j.attempt = c.attempt AND j.state = 'running' AND j.lease_owner = p_worker
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
$$;

CREATE FUNCTION atelier_complete_and_claim(
    p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[], p_errors text[], p_delays float8[],
    p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
    p_isolation_wait_ms bigint, p_fair boolean)
RETURNS TABLE (completed uuid[], id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer, kind_timeout_ms integer)
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    RETURN QUERY SELECT ARRAY(SELECT atelier_complete(p_ids, p_attempts, p_outcomes, p_results, p_errors, p_delays, p_worker)),
                        NULL::uuid, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::text, NULL::integer,
                        NULL::integer, NULL::text, NULL::timestamptz, NULL::integer, NULL::integer, NULL::integer,
                        NULL::boolean, NULL::integer, NULL::integer;
    IF p_limit > 0 THEN
        RETURN QUERY SELECT NULL::uuid[], c.*
                       FROM atelier_claim(p_worker, p_queues, p_kinds, p_limit, p_lease_ms, p_isolation_wait_ms, p_fair) c;
    END IF;
END $$;
