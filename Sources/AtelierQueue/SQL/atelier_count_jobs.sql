-- The jobs count trigger (insert, update, delete; statement level, with transition tables):
-- appends to job_count_deltas the change per (queue, kind, state) that the statement made. Rows an
-- UPDATE left in their group (a lease renewal, progress, a fair tag) cancel out and append
-- nothing. atelier_fold_job_counts folds the deltas into job_counts; job_counts_live adds both.
CREATE OR REPLACE FUNCTION atelier_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- Where it fires.
CREATE OR REPLACE TRIGGER jobs_count_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();
CREATE OR REPLACE TRIGGER jobs_count_update AFTER UPDATE ON jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();
CREATE OR REPLACE TRIGGER jobs_count_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs();
