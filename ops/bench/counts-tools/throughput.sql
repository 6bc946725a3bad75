-- Unchanged by 0021 (QueueStats.swift): finished jobs per minute over the last :minutes.
SELECT m.minute,
       count(j.id) FILTER (WHERE j.state = 'succeeded')::int,
       count(j.id) FILTER (WHERE j.state = 'failed')::int
  FROM generate_series(date_trunc('minute', now()) - (:minutes - 1) * interval '1 minute',
                       date_trunc('minute', now()), interval '1 minute') AS m(minute)
  LEFT JOIN jobs j ON j.finished_at >= m.minute AND j.finished_at < m.minute + interval '1 minute'
 GROUP BY m.minute ORDER BY m.minute
