-- Before 0021: jobs by kind and state, counted in the table (QueueStats.swift as it was).
SELECT kind, state, count(*)::int FROM jobs GROUP BY kind, state ORDER BY kind, state
