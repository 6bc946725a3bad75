-- 0029 — one job, the way an API request enqueues it, without the batch insert's machinery.
--
--   atelier_enqueue_jobs(…)   for a batch of one: the fair tag from one scalar query and a plain
--                             INSERT … VALUES, then COMMIT, as before inside the CALL; a larger
--                             batch goes through atelier_insert_jobs (0028), unchanged.
--   atelier_fair_tag(…)       the tag atelier_fair_tags (0021) gives the first job of a batch, for
--                             one job: the later of the priority's clock, the front of the queue
--                             and the owner's last queued job plus one step (1 / its weight).
--
-- Why: timed by pgbench (prepared, one client, synchronous_commit off), a CALL of one job took
-- 0.32–0.35 ms and a plain INSERT of one tagged row 0.15–0.19 ms. The difference was the batch
-- insert's shape — fourteen arrays unnested WITH ORDINALITY, atelier_fair_tags' RETURN QUERY
-- with a window over the batch, a hash join of the two — paid in full for one row. The API's
-- uploads are one job each (ops/bench/queue-tools/enqueue_loop.sql and BENCHMARKS.md, "Uploads
-- under a burst").
CREATE FUNCTION atelier_fair_tag(p_fair boolean, p_owner text, p_priority integer)
RETURNS double precision
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
    SELECT greatest(
               coalesce((SELECT c.v FROM fair_clock c WHERE c.priority = p_priority::smallint), 0),
               coalesce((SELECT h.fair_tag FROM jobs h
                          WHERE h.state = 'queued' AND h.fair_tag IS NOT NULL AND h.priority = p_priority::smallint
                          ORDER BY h.priority DESC, h.fair_tag LIMIT 1), 0),
               CASE WHEN NOT p_fair
                    THEN (SELECT t.fair_tag + 1 FROM jobs t
                           WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL AND t.priority = p_priority::smallint
                           ORDER BY t.priority DESC, t.fair_tag DESC LIMIT 1)
                    ELSE (SELECT t.fair_tag + coalesce((SELECT 1 / w.weight FROM owner_weights w WHERE w.owner = p_owner), 1)::float8
                            FROM jobs t
                           WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL
                             AND t.owner = p_owner AND t.priority = p_priority::smallint
                           ORDER BY t.owner DESC, t.priority DESC, t.fair_tag DESC LIMIT 1) END)
$$;

CREATE OR REPLACE PROCEDURE atelier_enqueue_jobs(p_ids uuid[], p_kinds text[], p_queues text[], p_priorities integer[], p_owners text[],
                                                 p_payloads text[], p_max_attempts integer[], p_run_ats float8[],
                                                 p_idempotency_keys text[], p_request_ids text[], p_parent_ids text[],
                                                 p_follow_ups text[], p_fair boolean, p_timeouts_ms integer[], p_unique_keys text[],
                                                 p_tag_priorities integer[], INOUT inserted uuid[])
LANGUAGE plpgsql
AS $$
DECLARE
    v_id uuid;
BEGIN
    IF cardinality(p_ids) = 1 THEN
        INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, run_at,
                          idempotency_key, request_id, parent_id, follow_up, fair_tag, timeout_ms, unique_key)
        VALUES (p_ids[1], p_kinds[1], p_queues[1], p_priorities[1], p_owners[1], p_payloads[1]::jsonb, p_max_attempts[1],
                CASE WHEN p_run_ats[1] < 0 THEN now() ELSE to_timestamp(p_run_ats[1]) END,
                NULLIF(p_idempotency_keys[1], ''), NULLIF(p_request_ids[1], ''), NULLIF(p_parent_ids[1], '')::uuid,
                NULLIF(p_follow_ups[1], '')::jsonb,
                -- -1000: a job given a run_at, tagged by the claim when its time comes (0028).
                CASE WHEN p_tag_priorities[1] = -1000 THEN NULL
                     ELSE atelier_fair_tag(p_fair, p_owners[1], p_tag_priorities[1]) END,
                NULLIF(p_timeouts_ms[1], 0), NULLIF(p_unique_keys[1], ''))
        ON CONFLICT (owner, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id INTO v_id;
        inserted := CASE WHEN v_id IS NULL THEN '{}'::uuid[] ELSE ARRAY[v_id] END;
    ELSE
        inserted := ARRAY(SELECT atelier_insert_jobs(p_ids, p_kinds, p_queues, p_priorities, p_owners, p_payloads,
                                                     p_max_attempts, p_run_ats, p_idempotency_keys, p_request_ids,
                                                     p_parent_ids, p_follow_ups, p_fair, p_timeouts_ms, p_unique_keys,
                                                     p_tag_priorities));
    END IF;
    COMMIT;
END $$;
