-- Event trigger (statement level): NOTIFY atelier_job_events with "job_id:event_id,…" for the
-- events the statement inserted, for live event streams (SSE) and the API's job cache.
CREATE OR REPLACE FUNCTION atelier_notify_job_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Chunks of 100 ids keep each payload far below NOTIFY's 8000-byte limit.
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(job_id::text || ':' || id::text, ',') AS ids
               FROM (SELECT job_id, id, (row_number() OVER ()) / 100 AS chunk FROM new_events) e
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;

-- Where it fires.
CREATE OR REPLACE TRIGGER job_events_notify AFTER INSERT ON job_events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_job_events();
