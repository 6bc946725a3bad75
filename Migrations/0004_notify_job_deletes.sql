-- 0004 — deleted jobs (purge) notify like job events do: API processes cache rendered jobs
-- until the job's next notification, so a purged job must announce itself too.
-- Payload on atelier_job_events: "job_id:0,…" (event id 0: nothing to replay, only "changed").
CREATE FUNCTION atelier_notify_job_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(id::text || ':0', ',') AS ids
               FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM old_jobs) j
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify_delete AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_job_deletes();
