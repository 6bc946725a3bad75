-- Before 0021: /metrics' ready jobs by queue (JobQueue+Metrics.swift as it was).
SELECT queue, count(*)::int FROM jobs WHERE state = 'queued' AND run_at <= now() GROUP BY queue ORDER BY 1
