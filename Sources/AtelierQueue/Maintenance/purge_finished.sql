-- One batch of the purge: deletes up to $2 finished jobs (succeeded, failed, cancelled) that
-- finished more than $1 milliseconds ago, with their events (ON DELETE CASCADE), skipping rows
-- another transaction holds, so no batch waits or holds its locks for long. Returns the ids
-- deleted, for their blobs; fewer than $2 means the purge is done.
DELETE FROM jobs WHERE id IN (
    SELECT id FROM jobs
     WHERE finished_at < now() - $1::bigint * interval '1 millisecond'
       AND state IN ('succeeded', 'failed', 'cancelled')
     LIMIT $2::int
       FOR UPDATE SKIP LOCKED)
RETURNING id
