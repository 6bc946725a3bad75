-- 0012 — the operator console (/admin): an audit log of operators' actions, and the indexes its
-- job list needs on a large table.

-- Who did what to which queue or job, and when: pause and resume (from the console or the CLI),
-- and the console's retry, cancel and purge. Kept; never updated.
CREATE TABLE audit_log (
    id      bigserial   PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    actor   text        NOT NULL,   -- "user:<id> <email>" from the console, "cli:<user>@<host>" from the CLI
    action  text        NOT NULL,   -- pause | resume | retry | cancel | purge
    target  text        NOT NULL,   -- "queue:<name>" or "job:<id>"
    detail  text
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);

-- The console lists jobs newest first and pages by (created_at, id); operators find a job by the
-- request id a client quoted.
CREATE INDEX jobs_created_idx ON jobs (created_at DESC, id DESC);
CREATE INDEX jobs_request_id_idx ON jobs (request_id) WHERE request_id IS NOT NULL;

-- New jobs, for the console's live job list (the job-events channel says nothing until a job's
-- first event): one notification per statement, the new ids comma-separated, 100 a payload.
CREATE FUNCTION atelier_notify_jobs_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_jobs_created', c.ids)
       FROM (SELECT string_agg(id::text, ',') AS ids
               FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM new_rows) j
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify_created AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_jobs_created();
