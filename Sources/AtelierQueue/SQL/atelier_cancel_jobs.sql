-- Cancel: among p_ids, each queued job is cancelled at once (error p_reason, a `cancelled`
-- event); each running one is flagged (cancel_requested, a `cancel_requested` event, and NOTIFY
-- atelier_cancel with its id, so its worker stops it and records `cancelled`). Finished jobs are
-- left as they are. Each event's data is p_event. Returns the ids cancelled and the ids flagged.
-- The one transition of a cancel: JobQueue.cancel (one job) and atelier_bulk_step (a batch) both
-- call it. The caller locks the jobs (FOR UPDATE) before calling, so the states it read hold.
CREATE OR REPLACE FUNCTION atelier_cancel_jobs(p_ids uuid[], p_reason text, p_event jsonb,
                                               OUT cancelled uuid[], OUT flagged uuid[])
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    WITH done AS (
        UPDATE jobs j SET state = 'cancelled', error = p_reason, fair_tag = NULL, finished_at = now(), updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state = 'queued'
        RETURNING j.id
    ), stopping AS (
        UPDATE jobs j SET cancel_requested = true, updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state = 'running'
        RETURNING j.id, pg_notify('atelier_cancel', j.id::text)
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT d.id, 'cancelled', p_event FROM done d
        UNION ALL
        SELECT s.id, 'cancel_requested', p_event FROM stopping s
    )
    SELECT (SELECT coalesce(array_agg(d.id ORDER BY d.id), '{}') FROM done d),
           (SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}') FROM stopping s)
      INTO cancelled, flagged;
END $$;
