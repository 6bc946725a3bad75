-- The enqueue: a batch of jobs (one array per column, an element per job), committed inside the
-- CALL, so the caller learns of the commit in the same round trip. A single job is inserted here
-- directly; a batch by atelier_insert_jobs. `inserted` returns the ids inserted; a job whose
-- (owner, idempotency key) exists is left out. p_tag_priorities[i] = -1000 marks a job given a
-- later run_at: it is tagged by the claim when its time comes. Called by JobQueue.enqueue.
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
                -- -1000: a job given a run_at, tagged by the claim when its time comes.
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
