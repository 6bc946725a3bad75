-- Unchanged by 0021 (JobQueue+RunTimes.swift, the overview's): run times of the last :minutes.
SELECT kind, count(*)::int,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8
  FROM jobs
 WHERE finished_at > now() - :minutes * interval '1 minute' AND started_at IS NOT NULL
   AND state IN ('succeeded', 'failed')
 GROUP BY kind ORDER BY kind
