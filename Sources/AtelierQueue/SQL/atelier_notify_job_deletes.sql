-- Deleted jobs (a purge) notify as job events do, on atelier_job_events with event id 0
-- ("job_id:0,…": nothing to replay, only "changed"): API processes cache rendered jobs until a
-- job's next notification, so a purged job must announce itself too.
CREATE OR REPLACE FUNCTION atelier_notify_job_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(id::text || ':0', ',') AS ids
               FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM old_jobs) j
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;

-- Where it fires.
CREATE OR REPLACE TRIGGER jobs_notify_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_job_deletes();
