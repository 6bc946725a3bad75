-- TRUNCATE has no transition table: the counts are emptied with the jobs.
CREATE OR REPLACE FUNCTION atelier_count_jobs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_count_deltas;
    DELETE FROM job_counts;
    RETURN NULL;
END $$;
