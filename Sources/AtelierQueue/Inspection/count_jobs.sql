-- How many jobs are in any of the states $1 (every job when $1 is empty), from the counts kept
-- with the jobs (SQL/atelier_count_jobs.sql): constant time, exact in the reader's snapshot.
SELECT coalesce(sum(n), 0)::bigint
  FROM job_counts_live
 WHERE cardinality($1::text[]) = 0 OR state = ANY ($1::text[])
