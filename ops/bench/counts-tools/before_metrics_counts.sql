-- Before 0021: /metrics' jobs by kind and state, zeros included (JobQueue+Metrics.swift as it was).
SELECT k.kind, s.state, count(j.id)::int
  FROM (SELECT DISTINCT kind FROM jobs) k
 CROSS JOIN unnest(ARRAY['queued','running','succeeded','failed','cancelled']) AS s(state)
  LEFT JOIN jobs j ON j.kind = k.kind AND j.state = s.state
 GROUP BY k.kind, s.state ORDER BY 1, 2
