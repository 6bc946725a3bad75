-- The lease renewal: a worker's heartbeat extends by p_lease_ms the leases of the jobs it still
-- holds (p_ids with the attempt each runs, running under p_worker's lease), and learns which of
-- them an operator asked to cancel. Returns those jobs; a job missing from the result is no
-- longer this worker's (rescued from it), and the worker stops it.
--
-- The rows are locked in id order before any is changed, as atelier_complete locks them, so a
-- renewal and a completion of the same worker never deadlock (LockOrderTests).
CREATE OR REPLACE FUNCTION atelier_extend_leases(p_ids uuid[], p_attempts integer[], p_worker text, p_lease_ms bigint)
RETURNS TABLE (id uuid, cancel_requested boolean)
LANGUAGE sql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
    WITH locked AS MATERIALIZED (
        SELECT j.id FROM jobs j
         WHERE j.id = ANY (p_ids) AND j.state = 'running' AND j.lease_owner = p_worker
         ORDER BY j.id
           FOR NO KEY UPDATE
    )
    UPDATE jobs j
       SET lease_expires_at = now() + p_lease_ms * interval '1 millisecond'
      FROM unnest(p_ids, p_attempts) AS l(id, attempt)
     WHERE j.id = l.id AND j.attempt = l.attempt AND j.state = 'running' AND j.lease_owner = p_worker
       AND l.id IN (SELECT k.id FROM locked k)
    RETURNING j.id, j.cancel_requested
$$;
