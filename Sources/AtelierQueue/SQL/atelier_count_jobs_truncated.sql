-- TRUNCATE has no transition table: the counts are emptied with the jobs.
CREATE OR REPLACE FUNCTION atelier_count_jobs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_count_deltas;
    DELETE FROM job_counts;
    RETURN NULL;
END $$;

-- Where it fires.
CREATE OR REPLACE TRIGGER jobs_count_truncate AFTER TRUNCATE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_count_jobs_truncated();
