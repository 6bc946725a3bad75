-- The fold: the deltas committed so far, deleted and added to job_counts in one statement.
-- Deltas of transactions still open are invisible to it and wait for the next fold. Two folds at
-- once (a leader that has not yet noticed it lost the lock, and its successor) cannot count a
-- delta twice: the second's DELETE waits for the first's row locks and then skips the rows the
-- first deleted. Groups are upserted in key order, so two folds never deadlock. Returns the
-- number of deltas folded. Run by the workers' maintenance leader.
CREATE OR REPLACE FUNCTION atelier_fold_job_counts() RETURNS bigint LANGUAGE sql AS $$
    WITH folded AS (
        DELETE FROM job_count_deltas RETURNING queue, kind, state, n
    ), sums AS (
        SELECT queue, kind, state, sum(n) AS n, count(*) AS deltas FROM folded GROUP BY queue, kind, state
    ), upserted AS (
        INSERT INTO job_counts (queue, kind, state, n)
        SELECT queue, kind, state, n FROM sums ORDER BY queue, kind, state
            ON CONFLICT (queue, kind, state) DO UPDATE SET n = job_counts.n + excluded.n
    )
    SELECT coalesce(sum(deltas), 0)::bigint FROM sums
$$;
