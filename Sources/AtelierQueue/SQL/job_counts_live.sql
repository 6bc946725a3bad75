-- Jobs per (queue, kind, state), exact and cheap: the folded job_counts plus the deltas not
-- yet folded. What /metrics, the console and `atelier queue stats` read.
CREATE OR REPLACE VIEW job_counts_live AS
    SELECT queue, kind, state, sum(n)::bigint AS n
      FROM (SELECT queue, kind, state, n FROM job_counts
            UNION ALL
            SELECT queue, kind, state, n FROM job_count_deltas) c
     GROUP BY queue, kind, state;
