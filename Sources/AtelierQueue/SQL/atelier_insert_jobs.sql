-- The batch insert under atelier_enqueue_jobs: one row per element of the arrays, each job
-- tagged by atelier_fair_tags (a job given a later run_at is tagged by the claim when its time
-- comes). Returns the ids inserted; a job whose (owner, idempotency key) exists is left out.
CREATE OR REPLACE FUNCTION atelier_insert_jobs(p_ids uuid[], p_kinds text[], p_queues text[], p_priorities integer[], p_owners text[],
                                    p_payloads text[], p_max_attempts integer[], p_run_ats float8[],
                                    p_idempotency_keys text[], p_request_ids text[], p_parent_ids text[],
                                    p_follow_ups text[], p_fair boolean, p_timeouts_ms integer[], p_unique_keys text[],
                                    p_tag_priorities integer[])
RETURNS SETOF uuid
LANGUAGE sql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
    WITH input AS (
        SELECT * FROM unnest(p_ids, p_kinds, p_queues, p_priorities, p_owners, p_payloads, p_max_attempts,
                             p_run_ats, p_idempotency_keys, p_request_ids, p_parent_ids, p_follow_ups, p_timeouts_ms,
                             p_unique_keys)
            WITH ORDINALITY
            AS t(id, kind, queue, priority, owner, payload, max_attempts, run_at, idempotency_key, request_id,
                 parent_id, follow_up, timeout_ms, unique_key, ord)
    ), tags AS (
        -- p_tag_priorities: the priority of each job due now, -1000 (no priority is) for one
        -- given a run_at, which the claim tags when its time comes.
        SELECT f.ord, f.tag FROM atelier_fair_tags(p_fair, p_owners, array_replace(p_tag_priorities, -1000, NULL)) f
    )
    INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, run_at,
                      idempotency_key, request_id, parent_id, follow_up, fair_tag, timeout_ms, unique_key)
    SELECT i.id, i.kind, i.queue, i.priority, i.owner, i.payload::jsonb, i.max_attempts,
           CASE WHEN i.run_at < 0 THEN now() ELSE to_timestamp(i.run_at) END,
           NULLIF(i.idempotency_key, ''), NULLIF(i.request_id, ''), NULLIF(i.parent_id, '')::uuid,
           NULLIF(i.follow_up, '')::jsonb, g.tag, NULLIF(i.timeout_ms, 0),
           NULLIF(i.unique_key, '')
      FROM input i LEFT JOIN tags g ON g.ord = i.ord
    ON CONFLICT (owner, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id
$$;
