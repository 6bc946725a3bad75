-- Before 0021: each queue's depth from its queued and running rows (QueueStats.swift as it was).
WITH active AS (
    SELECT queue, state, run_at FROM jobs WHERE state = 'queued'
    UNION ALL
    SELECT queue, state, run_at FROM jobs WHERE state = 'running'
)
SELECT n.name, coalesce(q.paused, false),
       count(a.queue) FILTER (WHERE a.state = 'queued' AND a.run_at <= now())::int,
       count(a.queue) FILTER (WHERE a.state = 'queued' AND a.run_at > now())::int,
       count(a.queue) FILTER (WHERE a.state = 'running')::int,
       coalesce(extract(epoch FROM now() - min(a.run_at) FILTER (
           WHERE a.state = 'queued' AND a.run_at <= now())), 0)::float8
  FROM (SELECT DISTINCT queue AS name FROM active UNION SELECT name FROM queues) n
  LEFT JOIN queues q ON q.name = n.name
  LEFT JOIN active a ON a.queue = n.name
 GROUP BY n.name, q.paused ORDER BY n.name
