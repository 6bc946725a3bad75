-- A running attempt's progress: $1 job id, $2 attempt, $3 lease owner, $4 percent (0…100),
-- $5 step name or NULL, $6 detail (a JSON object) or NULL. Fenced like a completion: only the
-- attempt its worker still holds is updated, and a `progress` event is appended in the same
-- statement. Returns 1 when it was, 0 when the lease is no longer this worker's.
WITH updated AS (
    UPDATE jobs SET progress = $4::int, progress_step = $5::text, updated_at = now()
     WHERE id = $1::uuid AND attempt = $2::int AND state = 'running' AND lease_owner = $3::text
    RETURNING id
), events AS (
    INSERT INTO job_events (job_id, type, data)
    SELECT id, 'progress',
           jsonb_strip_nulls(jsonb_build_object('progress', $4::int, 'step', $5::text))
           || coalesce($6::jsonb, '{}'::jsonb)
      FROM updated
)
SELECT count(*)::int FROM updated
