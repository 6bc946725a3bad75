-- A worker's completions, a batch of them: for each job (p_ids with the attempt each ran), the
-- outcome — succeeded (with its result), failed (retried after p_delays, or failed for good
-- past max_attempts), snoozed (run again later, not counted as an attempt) — recorded with its
-- event, provided the job is still running under p_worker's lease at that attempt. Returns the
-- ids it recorded: a job whose lease was lost (rescued, cancelled) is left to its new owner.
--
-- The rows it may change are locked in id order before any is changed, as the lease renewal
-- locks them, so a completion and a renewal of the same worker never deadlock
-- (LockOrderTests). A success enqueues the job's follow-up jobs, exactly once.
CREATE OR REPLACE FUNCTION atelier_complete(p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[],
                                            p_errors text[], p_delays float8[], p_worker text)
RETURNS SETOF uuid
LANGUAGE sql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
    WITH locked AS MATERIALIZED (
        -- The rows this completion may change, locked in id order before any is changed.
        SELECT j.id FROM jobs j
         WHERE j.id = ANY (p_ids) AND j.state = 'running' AND j.lease_owner = p_worker
         ORDER BY j.id
           FOR NO KEY UPDATE
    ), input AS (
        SELECT c.* FROM unnest(p_ids, p_attempts, p_outcomes, p_results, p_errors, p_delays)
            AS c(id, attempt, outcome, result, error, delay_s)
         WHERE c.id IN (SELECT l.id FROM locked l)
    ), updated AS (
        UPDATE jobs j SET
            state = CASE WHEN c.outcome IN ('retry', 'released', 'snoozed') THEN 'queued' ELSE c.outcome END,
            attempt = CASE WHEN c.outcome = 'released' THEN j.attempt - 1 ELSE j.attempt END,
            -- The handler finished this attempt: the job did not kill its worker.
            crash_streak = CASE WHEN c.outcome = 'released' THEN j.crash_streak ELSE 0 END,
            -- ... so it need not run alone any more.
            run_alone = CASE WHEN c.outcome = 'released' THEN j.run_alone ELSE false END,
            -- A snoozed attempt does not count against max_attempts.
            snoozes = CASE WHEN c.outcome = 'snoozed' THEN j.snoozes + 1 ELSE j.snoozes END,
            snooze_streak = CASE c.outcome WHEN 'snoozed' THEN j.snooze_streak + 1
                                           WHEN 'released' THEN j.snooze_streak ELSE 0 END,
            -- A failure's result: what the handler said of it, e.g. {"input_unreadable": true}.
            result = CASE WHEN c.outcome = 'succeeded' THEN NULLIF(c.result, '')::jsonb
                          WHEN c.outcome = 'failed' THEN coalesce(NULLIF(c.result, '')::jsonb, j.result)
                          ELSE j.result END,
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
        -- A success enqueues the job's follow-ups, exactly once.
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
