-- Whether a job is one a bulk action acts on: cancel takes a queued job, or a running one not
-- yet told to stop; retry a failed or cancelled one; purge a finished one. Retry and purge take
-- only jobs finished before the action began, so a job the action retried and that failed again
-- is not retried again by it. Part of the match, so a job already acted on never matches again:
-- that, not the cursor, makes a re-run of atelier_bulk_step exact.
CREATE OR REPLACE FUNCTION atelier_bulk_acts_on(p_action text, j_state text, j_cancel_requested boolean,
                                     j_finished_at timestamptz, p_began timestamptz)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE p_action
               WHEN 'cancel' THEN j_state = 'queued' OR (j_state = 'running' AND NOT j_cancel_requested)
               WHEN 'retry' THEN j_state IN ('failed', 'cancelled') AND j_finished_at < p_began
               ELSE j_state IN ('succeeded', 'failed', 'cancelled') AND j_finished_at < p_began END
$$;
