-- Wake-up trigger (statement level): one NOTIFY atelier_jobs per queue in which the statement
-- made a job claimable now (an insert, a retry, a rescue), so idle workers claim at once instead
-- of at their next poll.
CREATE OR REPLACE FUNCTION atelier_notify_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_jobs', q.queue)
       FROM (SELECT DISTINCT queue FROM new_rows
              WHERE state = 'queued' AND run_at <= now()) AS q;
    RETURN NULL;
END $$;

-- Where it fires.
CREATE OR REPLACE TRIGGER jobs_notify_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_claimable();
CREATE OR REPLACE TRIGGER jobs_notify_update AFTER UPDATE ON jobs REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_claimable();
