-- Each queue that has queued or running jobs, or a row in `queues` (it was paused once): paused,
-- ready, scheduled, running, and the age of its oldest ready job in seconds (0 when none).
--
-- queued and running come from the counts kept with the jobs (SQL/atelier_count_jobs.sql). "Scheduled"
-- (queued, run_at still ahead) changes by time alone, so no stored count can hold it: it is
-- counted here in jobs_queued_idx (queue, run_at) past now(), which costs the scheduled jobs
-- (delayed ones, retries backing off), not the table; ready = queued − scheduled. The oldest
-- ready job is the head of the queue's range in the same index. One statement, one snapshot: the
-- counts and the index agree, so ready is exact.
WITH counted AS (
    SELECT queue,
           coalesce(sum(n) FILTER (WHERE state = 'queued'), 0)::bigint AS queued,
           coalesce(sum(n) FILTER (WHERE state = 'running'), 0)::bigint AS running
      FROM job_counts_live
     WHERE state IN ('queued', 'running')
     GROUP BY queue
), names AS (
    SELECT queue AS name FROM counted WHERE queued <> 0 OR running <> 0
    UNION
    SELECT name FROM queues
)
SELECT n.name, coalesce(q.paused, false),
       coalesce(c.queued, 0) - s.scheduled, s.scheduled, coalesce(c.running, 0),
       coalesce(extract(epoch FROM now() - o.run_at), 0)::float8
  FROM names n
  LEFT JOIN queues q ON q.name = n.name
  LEFT JOIN counted c ON c.queue = n.name
 CROSS JOIN LATERAL (SELECT count(*)::bigint AS scheduled FROM jobs j
                      WHERE j.state = 'queued' AND j.queue = n.name AND j.run_at > now()) s
  LEFT JOIN LATERAL (SELECT j.run_at FROM jobs j
                      WHERE j.state = 'queued' AND j.queue = n.name AND j.run_at <= now()
                      ORDER BY j.run_at LIMIT 1) o ON true
 ORDER BY n.name
