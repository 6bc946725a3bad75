-- Unchanged by 0021 (JobQueue+Metrics.swift): /metrics' run times of the last 15 minutes.
SELECT kind,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8
  FROM jobs
 WHERE finished_at > now() - interval '15 minutes' AND started_at IS NOT NULL AND state = 'succeeded'
 GROUP BY kind ORDER BY 1
