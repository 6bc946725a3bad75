-- A worker's round: claim 8 jobs with the real claim function, then complete them in one
-- statement with their events, as the completion statement does.
SELECT count(*) FROM atelier_claim('bench-' || :client_id, ARRAY['default'], ARRAY['noop'], 8, 30000, 5000, true);
WITH done AS (
    UPDATE jobs SET state = 'succeeded', finished_at = now(), updated_at = now(), progress = 100
     WHERE state = 'running' AND lease_owner = 'bench-' || :client_id
    RETURNING id
)
INSERT INTO job_events (job_id, type) SELECT id, 'succeeded' FROM done;
