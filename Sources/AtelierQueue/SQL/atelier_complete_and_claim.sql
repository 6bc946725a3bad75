-- A worker's completions and its next claim in one round trip: atelier_complete, then
-- atelier_claim for as many jobs as the worker has room for. The first row carries the ids
-- completed (its other columns NULL); the jobs claimed follow, one row each, when p_limit > 0.
CREATE OR REPLACE FUNCTION atelier_complete_and_claim(
    p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[], p_errors text[], p_delays float8[],
    p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
    p_isolation_wait_ms bigint, p_fair boolean)
RETURNS TABLE (completed uuid[], id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer, kind_timeout_ms integer)
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    RETURN QUERY SELECT ARRAY(SELECT atelier_complete(p_ids, p_attempts, p_outcomes, p_results, p_errors, p_delays, p_worker)),
                        NULL::uuid, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::text, NULL::integer,
                        NULL::integer, NULL::text, NULL::timestamptz, NULL::integer, NULL::integer, NULL::integer,
                        NULL::boolean, NULL::integer, NULL::integer;
    IF p_limit > 0 THEN
        RETURN QUERY SELECT NULL::uuid[], c.*
                       FROM atelier_claim(p_worker, p_queues, p_kinds, p_limit, p_lease_ms, p_isolation_wait_ms, p_fair) c;
    END IF;
END $$;

ALTER FUNCTION atelier_complete_and_claim(uuid[], integer[], text[], text[], text[], float8[], text, text[], text[],
                                          integer, bigint, bigint, boolean)
    SET plan_cache_mode = force_generic_plan;
