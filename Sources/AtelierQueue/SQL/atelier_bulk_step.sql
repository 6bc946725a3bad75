-- One batch of a bulk action (cancel, retry or purge every job a filter matches), in one
-- transaction: the next bulk_actions.batch_size matching jobs after the cursor, locked, acted on
-- as the single-job action would, and the cursor and counts moved with them. A crash rolls back
-- the batch with its cursor, so a re-run does each job once. Called by BulkActionRunner.
--
-- Two passes: pass 1 walks the jobs by id and skips rows another transaction holds (a claim, a
-- completion), so it never waits on the workers; pass 2 walks again from the start, waiting for
-- such rows (each wait is one short worker statement), and finds only the few pass 1 skipped.
-- Locks are taken in id order, as atelier_complete and the lease renewal take theirs.
CREATE OR REPLACE FUNCTION atelier_bulk_step(p_id bigint, p_fair boolean)
RETURNS TABLE (state text, acted integer, stopping integer, purged uuid[])
LANGUAGE plpgsql VOLATILE
AS $$
#variable_conflict use_column
DECLARE
    a bulk_actions;
    v_ids uuid[];
    v_acted integer := 0;
    v_stopping integer := 0;
    v_purged uuid[] := '{}';
    v_after uuid;
BEGIN
    SELECT * INTO a FROM bulk_actions b WHERE b.id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF a.state <> 'running' THEN
        RETURN QUERY SELECT a.state, 0, 0, '{}'::uuid[];
        RETURN;
    END IF;
    v_after := coalesce(a.cursor, '00000000-0000-0000-0000-000000000000'::uuid);

    IF a.pass = 1 THEN
        v_ids := ARRAY(
            SELECT j.id FROM jobs j
             WHERE j.id > v_after AND j.created_at < a.started_at
               AND atelier_bulk_acts_on(a.action, j.state, j.cancel_requested, j.finished_at, a.started_at)
               AND atelier_job_matches(j.kind, j.state, j.queue, j.owner, j.created_at, j.finished_at, j.error,
                                       a.kinds, a.states, a.queues, a.owner, a.created_after, a.created_before,
                                       a.finished_after, a.finished_before, a.error_contains)
             ORDER BY j.id
             LIMIT a.batch_size
               FOR UPDATE OF j SKIP LOCKED);
    ELSE
        v_ids := ARRAY(
            SELECT j.id FROM jobs j
             WHERE j.id > v_after AND j.created_at < a.started_at
               AND atelier_bulk_acts_on(a.action, j.state, j.cancel_requested, j.finished_at, a.started_at)
               AND atelier_job_matches(j.kind, j.state, j.queue, j.owner, j.created_at, j.finished_at, j.error,
                                       a.kinds, a.states, a.queues, a.owner, a.created_after, a.created_before,
                                       a.finished_after, a.finished_before, a.error_contains)
             ORDER BY j.id
             LIMIT a.batch_size
               FOR UPDATE OF j);
    END IF;

    -- A row locked and re-read after a wait (pass 2) is checked again: it may have moved on.
    IF a.action = 'cancel' THEN
        SELECT cardinality(c.cancelled), cardinality(c.flagged) INTO v_acted, v_stopping
          FROM atelier_cancel_jobs(v_ids, 'cancelled by bulk action ' || a.id,
                                   jsonb_build_object('reason', 'cancelled by bulk action ' || a.id, 'bulk_action', a.id)) c;
    ELSIF a.action = 'retry' THEN
        v_acted := cardinality(atelier_retry_jobs(v_ids, p_fair, jsonb_build_object('by', 'operator', 'bulk_action', a.id)));
    ELSE
        WITH deleted AS (
            DELETE FROM jobs j WHERE j.id = ANY (v_ids) AND j.state IN ('succeeded', 'failed', 'cancelled')
            RETURNING j.id
        )
        SELECT coalesce(array_agg(d.id), '{}') INTO v_purged FROM deleted d;
        v_acted := cardinality(v_purged);
    END IF;

    UPDATE bulk_actions b SET
        acted = b.acted + v_acted,
        stopping = b.stopping + v_stopping,
        batches = b.batches + 1,
        cursor = CASE WHEN cardinality(v_ids) < a.batch_size THEN NULL
                      ELSE v_ids[cardinality(v_ids)] END,  -- the ids come in order
        pass = CASE WHEN cardinality(v_ids) < a.batch_size THEN 2 ELSE b.pass END,
        state = CASE WHEN cardinality(v_ids) < a.batch_size AND a.pass = 2 THEN 'done' ELSE b.state END,
        finished_at = CASE WHEN cardinality(v_ids) < a.batch_size AND a.pass = 2 THEN now() END,
        updated_at = now()
     WHERE b.id = p_id
    RETURNING b.state INTO a.state;
    RETURN QUERY SELECT a.state, v_acted, v_stopping, v_purged;
END $$;
