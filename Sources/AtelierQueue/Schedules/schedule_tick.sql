-- One tick of one schedule: enqueue its job for the tick $2, once, whoever asks and however often.
-- $1 the schedule's name, $2 the tick (UTC, on the minute), $3 the tick after it, $4 the new job's id.
-- Returns the job's id, or no row when the tick was already enqueued, is not due, or the schedule
-- is paused or gone.
--
-- Exactly once (docs/architecture.md §2.7a): the UPDATE moves last_tick forward only if it is older
-- than this tick, and the INSERT takes its row from the UPDATE, in one statement, so one
-- transaction. A leader killed before the commit leaves both undone and the next leader enqueues
-- the tick; two leaders at once both update the same row, and the second waits for the first's
-- commit, then re-reads the row (READ COMMITTED) and finds last_tick = $2: no row, no job.
WITH due AS (
    UPDATE schedules
       SET last_tick = $2, next_tick = $3, last_job_id = $4, updated_at = now()
     WHERE name = $1
       AND NOT paused
       AND next_tick <= $2
       AND (last_tick IS NULL OR last_tick < $2)
       AND $3 > $2
    RETURNING name, kind, queue, priority, owner, payload, max_attempts
)
-- The columns named, as the enqueue statement names them: a column added to jobs keeps its default.
INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, run_at, request_id)
SELECT $4, kind, queue, priority, owner, payload, max_attempts, now(),
       'schedule:' || name || '@' || to_char($2 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"')
  FROM due
RETURNING id
