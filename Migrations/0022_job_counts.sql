-- 0022 — job counts kept with the jobs, so `atelier queue stats`, `/metrics` and the console's
-- overview read them in time independent of the table's size instead of `count(*)` over it.
--
--   job_count_deltas  (queue, kind, state, n): what one statement on jobs changed, one row per
--                     group it touched (n may be negative). Appended by the statement-level
--                     triggers below in the writer's own transaction: insert-only, so the
--                     workers' concurrent claims and completions never wait on each other here,
--                     and a transaction that dies leaves no delta behind.
--   job_counts        (queue, kind, state) → n: the deltas folded so far. Written only by the
--                     fold (atelier_fold_job_counts, the maintenance leader every tick), which
--                     moves the committed deltas into it in one statement.
--   job_counts_live   what readers read: job_counts plus the deltas not folded yet, summed in
--                     one statement (one snapshot), so exact whether or not a fold ran: a delta is
--                     either still in job_count_deltas or already in job_counts, never both,
--                     never neither. Its cost is the groups plus the deltas appended since the
--                     last fold, not the jobs.
--
-- Why not one counter row per (queue, kind, state) updated in place: every claim and every
-- completion of a kind would update the same two rows and hold their locks to its commit, so the
-- workers' statements would queue on them. Appending a row costs the same as that update and
-- takes no lock anyone else wants.
CREATE TABLE job_counts (
    queue text   NOT NULL,
    kind  text   NOT NULL,
    state text   NOT NULL,
    n     bigint NOT NULL,
    PRIMARY KEY (queue, kind, state)
);

-- Appended to and emptied all the time, read whole: vacuumed early so its dead rows (which a
-- reader's scan walks past) stay few.
CREATE TABLE job_count_deltas (
    queue text   NOT NULL,
    kind  text   NOT NULL,
    state text   NOT NULL,
    n     bigint NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 2000);

-- One trigger function for the three events (each trigger names only the transition tables its
-- event has). Rows an UPDATE left in their group (a lease renewal, progress, a fair tag) cancel
-- out and append nothing, so most updates cost one aggregation of their own rows.
CREATE FUNCTION atelier_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, count(*) FROM new_jobs GROUP BY queue, kind, state;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, -count(*) FROM old_jobs GROUP BY queue, kind, state;
    ELSE
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, sum(n)
          FROM (SELECT queue, kind, state, 1 AS n FROM new_jobs
                UNION ALL
                SELECT queue, kind, state, -1 FROM old_jobs) c
         GROUP BY queue, kind, state
        HAVING sum(n) <> 0;
    END IF;
    RETURN NULL;
END $$;

-- AFTER triggers of one event fire in name order: these (jobs_count_*) before the wake-ups
-- (jobs_notify_*), so the counts are written before anyone is told; both commit together.
CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();
CREATE TRIGGER jobs_count_update AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();

-- TRUNCATE has no transition table; it empties the counts with the jobs.
CREATE FUNCTION atelier_count_jobs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_count_deltas;
    DELETE FROM job_counts;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_count_truncate AFTER TRUNCATE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs_truncated();

-- The fold: the deltas committed so far, deleted and added to job_counts in one statement.
-- Deltas of transactions still open are invisible to it and wait for the next fold. Two folds at
-- once (a leader that has not yet noticed it lost the lock, and its successor) cannot count a
-- delta twice: the second's DELETE waits for the first's row locks and then skips the rows the
-- first deleted. Groups are upserted in key order, so two folds never deadlock. Returns the
-- number of deltas folded.
CREATE FUNCTION atelier_fold_job_counts() RETURNS bigint LANGUAGE sql AS $$
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

CREATE VIEW job_counts_live AS
    SELECT queue, kind, state, sum(n)::bigint AS n
      FROM (SELECT queue, kind, state, n FROM job_counts
            UNION ALL
            SELECT queue, kind, state, n FROM job_count_deltas) c
     GROUP BY queue, kind, state;

-- Queued jobs by queue and run_at: the head of a queue's range is its oldest job, and the part
-- past now() its scheduled ones (delayed, backing off) — what the counts cannot hold, since a job
-- moves from scheduled to ready by time alone. Reading it costs the scheduled jobs, not the table.
CREATE INDEX jobs_queued_idx ON jobs (queue, run_at) WHERE state = 'queued';

-- The jobs there already. The triggers exist from here on and CREATE TRIGGER locked the table
-- against writes until this migration commits, so no job is counted twice or missed.
INSERT INTO job_counts (queue, kind, state, n)
SELECT queue, kind, state, count(*) FROM jobs GROUP BY queue, kind, state;
