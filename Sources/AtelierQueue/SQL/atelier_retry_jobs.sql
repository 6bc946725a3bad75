-- Retry: the failed or cancelled jobs among p_ids back in the queue with a fresh set of attempts
-- (their error history kept), a `retried` event each with p_event as its data, and their fair
-- tags given now, as the claim's promotion would give them (p_fair is ATELIER_FAIR_SHARE), so
-- they need no later statement to become claimable. Jobs in other states are left as they are.
-- Returns the ids retried, in id order. The one transition of a retry: JobQueue.retry (one job)
-- and atelier_bulk_step (a batch) both call it, so they leave the same rows. Rows are updated in
-- id order; a caller that must see a job's state first locks it (FOR UPDATE) before calling.
CREATE OR REPLACE FUNCTION atelier_retry_jobs(p_ids uuid[], p_fair boolean, p_event jsonb)
RETURNS uuid[]
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    v_retried uuid[];
    v_owners text[];
    v_priorities integer[];
BEGIN
    WITH retried AS (
        UPDATE jobs j SET state = 'queued', attempt = 0, crashes = 0, crash_streak = 0, run_alone = false, snoozes = 0,
                          snooze_streak = 0, run_at = now(), fair_tag = NULL, finished_at = NULL,
                          cancel_requested = false, progress = 0, progress_step = NULL, updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state IN ('failed', 'cancelled')
        RETURNING j.id, j.owner, j.priority
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT r.id, 'retried', p_event FROM retried r
    )
    SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}'), array_agg(r.owner ORDER BY r.id),
           array_agg(r.priority::integer ORDER BY r.id)
      INTO v_retried, v_owners, v_priorities
      FROM retried r;
    IF cardinality(v_retried) > 0 THEN
        UPDATE jobs j SET fair_tag = t.tag
          FROM unnest(v_retried) WITH ORDINALITY AS d(id, ord)
          JOIN atelier_fair_tags(p_fair, v_owners, v_priorities) t ON t.ord = d.ord
         WHERE j.id = d.id;
    END IF;
    RETURN v_retried;
END $$;
