-- Jobs by kind and state, every queue together: the counts kept with the jobs (SQL/atelier_count_jobs.sql),
-- not a count of the table. Pairs that count zero are left out, as a count(*) … GROUP BY would.
-- Cost: the (queue, kind, state) groups plus the deltas not folded yet, whatever the table holds.
SELECT kind, state, sum(n)::bigint
  FROM job_counts_live
 GROUP BY kind, state
HAVING sum(n) <> 0
 ORDER BY kind, state
