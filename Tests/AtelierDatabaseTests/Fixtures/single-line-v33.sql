-- A database as the single migration line left it at version 33, the last before the queue and
-- the apps had lines of their own: its schema as `pg_dump --schema-only` printed it (the
-- generated schema file of commit 908ca42), and the record of its 33 migrations. Loaded by
-- SingleLineAdoptionTests, which adopts it and compares it with a database made by the lines.

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: atelier_bulk_acts_on(text, text, boolean, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_bulk_acts_on(p_action text, j_state text, j_cancel_requested boolean, j_finished_at timestamp with time zone, p_began timestamp with time zone) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE p_action
               WHEN 'cancel' THEN j_state = 'queued' OR (j_state = 'running' AND NOT j_cancel_requested)
               WHEN 'retry' THEN j_state IN ('failed', 'cancelled') AND j_finished_at < p_began
               ELSE j_state IN ('succeeded', 'failed', 'cancelled') AND j_finished_at < p_began END
$$;


--
-- Name: atelier_bulk_step(bigint, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_bulk_step(p_id bigint, p_fair boolean) RETURNS TABLE(state text, acted integer, stopping integer, purged uuid[])
    LANGUAGE plpgsql
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


--
-- Name: atelier_cancel_jobs(uuid[], text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_cancel_jobs(p_ids uuid[], p_reason text, p_event jsonb, OUT cancelled uuid[], OUT flagged uuid[]) RETURNS record
    LANGUAGE plpgsql
    AS $$
BEGIN
    WITH done AS (
        UPDATE jobs j SET state = 'cancelled', error = p_reason, fair_tag = NULL, finished_at = now(), updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state = 'queued'
        RETURNING j.id
    ), stopping AS (
        UPDATE jobs j SET cancel_requested = true, updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state = 'running'
        RETURNING j.id, pg_notify('atelier_cancel', j.id::text)
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT d.id, 'cancelled', p_event FROM done d
        UNION ALL
        SELECT s.id, 'cancel_requested', p_event FROM stopping s
    )
    SELECT (SELECT coalesce(array_agg(d.id ORDER BY d.id), '{}') FROM done d),
           (SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}') FROM stopping s)
      INTO cancelled, flagged;
END $$;


--
-- Name: atelier_claim(text, text[], text[], integer, bigint, bigint, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint, p_isolation_wait_ms bigint, p_fair boolean) RETURNS TABLE(id uuid, kind text, queue text, priority integer, owner text, payload text, attempt integer, max_attempts integer, request_id text, created_at timestamp with time zone, crashes integer, snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer, kind_timeout_ms integer)
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET enable_sort TO 'off'
    SET enable_incremental_sort TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
#variable_conflict use_column
DECLARE
    v_queues text[];       -- p_queues less the paused ones
    v_running integer;     -- what p_worker runs now: its claims whose completion has not landed
    v_alone boolean;       -- … one of them marked to run alone
    v_limited_all text[];  -- the kinds of p_kinds with a limit
    v_limited text[];      -- … those with a job ready now, their kind_limits rows locked
    v_claimable text[];    -- p_kinds less the limited kinds with no job ready: what this claim may take
    v_kinds text[];        -- limited pick: every kind of p_kinds …
    v_rooms integer[];     -- … how many of it this claim may start …
    v_owner_caps integer[]; -- … and its owner_concurrency
    v_buckets float8[];    -- … and the tokens in its bucket now (NULL: no rate)
    v_open text[];         -- the kinds with room
    v_candidates uuid[];   -- every kind's next ones, in claim order
    v_at timestamptz;      -- when the buckets are read: after the lock, so it only moves forward
    v_ids uuid[];
    v_picked_kinds text[];
    v_priorities integer[];
    v_tags float8[];
    v_due boolean;         -- a job's run_at has come and it has no tag yet
    v_kind text;
BEGIN
    -- What this claim needs to know first, in one statement: whether a job's run_at has come
    -- with no tag yet, the served queues less the paused ones, what p_worker runs now, and the
    -- kinds of p_kinds with a limit.
    SELECT (SELECT d.id FROM jobs d WHERE d.state = 'queued' AND d.fair_tag IS NULL AND d.run_at <= now()
             ORDER BY d.run_at, d.id LIMIT 1) IS NOT NULL,
           ARRAY(SELECT q FROM unnest(p_queues) q WHERE q NOT IN (SELECT p.name FROM queues p WHERE p.paused)),
           r.running, r.alone,
           ARRAY(SELECT l.kind FROM kind_limits l
                  WHERE l.kind = ANY (p_kinds) AND num_nonnulls(l.concurrency, l.owner_concurrency, l.rate) > 0)
      INTO v_due, v_queues, v_running, v_alone, v_limited_all
      FROM (SELECT count(r.id)::integer AS running, coalesce(bool_or(r.run_alone), false) AS alone
              FROM (SELECT r.id, r.run_alone FROM jobs r
                     WHERE r.state = 'running' AND r.lease_owner >= p_worker AND r.lease_owner <= p_worker
                     ORDER BY r.lease_owner) r) r;

    -- Promotion: tag up to 256 jobs whose run_at has come.
    IF v_due THEN
        WITH due AS MATERIALIZED (
            SELECT w.id, w.owner, w.priority::integer AS priority, row_number() OVER (ORDER BY w.run_at, w.id) AS ord
              FROM (SELECT d.id, d.owner, d.priority, d.run_at FROM jobs d
                     WHERE d.state = 'queued' AND d.fair_tag IS NULL AND d.run_at <= now()
                     ORDER BY d.run_at, d.id
                     LIMIT 256
                       FOR UPDATE SKIP LOCKED) w
        ), tags AS (
            SELECT t.ord, t.tag
              FROM atelier_fair_tags(p_fair, ARRAY(SELECT d.owner FROM due d ORDER BY d.ord),
                                     ARRAY(SELECT d.priority FROM due d ORDER BY d.ord)) t
        )
        UPDATE jobs j SET fair_tag = t.tag
          FROM due d JOIN tags t ON t.ord = d.ord
         WHERE j.id = d.id;
    END IF;

    -- A worker running a job marked to run alone gets nothing; a busy worker gets nothing while a
    -- marked job it could run has waited longer than p_isolation_wait_ms: it drains.
    IF v_alone OR cardinality(v_queues) = 0 THEN
        RETURN;
    END IF;
    IF v_running > 0 AND (
        SELECT w.id FROM jobs w
         WHERE w.state = 'queued' AND w.run_alone
           AND w.run_at <= now() - p_isolation_wait_ms * interval '1 millisecond'
           AND w.kind = ANY (p_kinds) AND w.queue = ANY (v_queues)
         ORDER BY w.priority DESC, w.run_at, w.id
         LIMIT 1) IS NOT NULL THEN
        RETURN;
    END IF;

    -- A limited kind's row is locked (claims of it take turns) only when a job of it is ready;
    -- a limited kind with none is left out of this claim altogether, so a job of it that
    -- becomes ready meanwhile waits for the next claim, which locks and counts.
    IF cardinality(v_limited_all) > 0 THEN
        v_limited := ARRAY(SELECT l.kind FROM kind_limits l
                            WHERE l.kind = ANY (v_limited_all)
                              AND ((SELECT n.id FROM jobs n
                                     WHERE n.state = 'queued' AND n.fair_tag IS NOT NULL
                                       AND n.kind >= l.kind AND n.kind <= l.kind
                                       AND n.run_at <= now() AND n.queue = ANY (v_queues)
                                     ORDER BY n.kind, n.priority DESC, n.fair_tag, n.id
                                     LIMIT 1) IS NOT NULL
                                   OR (SELECT n.id FROM jobs n
                                        WHERE n.state = 'queued' AND n.run_alone AND n.kind = l.kind
                                          AND n.run_at <= now() AND n.queue = ANY (v_queues)
                                        ORDER BY n.priority DESC, n.run_at, n.id
                                        LIMIT 1) IS NOT NULL)
                            ORDER BY l.kind
                              FOR UPDATE);
        -- p_kinds less the limited kinds with no job ready, in plain expressions (no statement).
        v_claimable := p_kinds;
        FOREACH v_kind IN ARRAY v_limited_all LOOP
            IF NOT v_kind = ANY (v_limited) THEN
                v_claimable := array_remove(v_claimable, v_kind);
            END IF;
        END LOOP;
        IF cardinality(v_claimable) = 0 THEN
            RETURN;
        END IF;
    ELSE
        v_limited := v_limited_all;
        v_claimable := p_kinds;
    END IF;
    v_at := clock_timestamp();

    IF cardinality(v_limited) = 0 THEN
        -- The pick: a job marked to run alone first (only for an idle worker), else the
        -- next p_limit in claim order.
        WITH lone AS MATERIALIZED (
            SELECT n.id, n.kind, n.priority::integer AS priority, n.fair_tag FROM jobs n
             WHERE n.state = 'queued' AND n.run_alone AND n.run_at <= now() AND n.kind = ANY (v_claimable)
               AND n.queue = ANY (v_queues) AND v_running = 0
             ORDER BY n.priority DESC, n.run_at, n.id
             LIMIT 1
               FOR UPDATE SKIP LOCKED
        ), next AS MATERIALIZED (
            -- Each served queue on its own in jobs_queue_fair_idx: its first p_limit
            -- claimable rows, locked, then all queues' merged in claim order and cut to p_limit.
            -- The rows cut stay locked until the claim commits.
            SELECT x.id, x.kind, x.priority, x.fair_tag
              FROM (SELECT DISTINCT q.queue FROM unnest(v_queues) AS q(queue)) q
             CROSS JOIN LATERAL (
                 SELECT n.id, n.kind, n.priority::integer AS priority, n.fair_tag FROM jobs n
                  WHERE n.state = 'queued' AND n.fair_tag IS NOT NULL AND NOT n.run_alone AND n.run_at <= now()
                    AND n.kind = ANY (v_claimable) AND n.queue >= q.queue AND n.queue <= q.queue
                  ORDER BY n.queue, n.priority DESC, n.fair_tag, n.id
                  LIMIT p_limit
                    FOR UPDATE SKIP LOCKED) x
             WHERE NOT EXISTS (SELECT 1 FROM lone)
             ORDER BY x.priority DESC, x.fair_tag, x.id
             LIMIT p_limit
        ), picked AS (
            SELECT l.id, l.kind, l.priority, l.fair_tag FROM lone l UNION ALL SELECT x.id, x.kind, x.priority, x.fair_tag FROM next x
        )
        SELECT array_agg(p.id), array_agg(p.kind), array_agg(p.priority), array_agg(p.fair_tag)
          INTO v_ids, v_picked_kinds, v_priorities, v_tags
          FROM picked p;
    ELSE
        -- Each kind's room, counted after the lock (a fresh snapshot: every claim that held the
        -- lock before has committed).
        SELECT array_agg(k.kind ORDER BY k.kind),
               array_agg(greatest(0, least(p_limit, l.concurrency - coalesce(r.running, 0),
                                           floor(b.tokens)::integer)) ORDER BY k.kind),
               array_agg(l.owner_concurrency ORDER BY k.kind),
               array_agg(b.tokens ORDER BY k.kind)
          INTO v_kinds, v_rooms, v_owner_caps, v_buckets
          FROM (SELECT DISTINCT u.kind FROM unnest(v_claimable) u(kind)) k
          LEFT JOIN kind_limits l ON l.kind = k.kind AND l.kind = ANY (v_limited)
          LEFT JOIN LATERAL (SELECT count(*)::integer AS running FROM jobs c
                              WHERE c.state = 'running' AND c.kind = k.kind AND l.concurrency IS NOT NULL) r ON true
          LEFT JOIN LATERAL (SELECT CASE WHEN l.rate IS NULL THEN NULL
                                         WHEN l.tokens IS NULL THEN l.rate::float8
                                         ELSE least(l.rate::float8, l.tokens + greatest(0, extract(epoch FROM v_at - l.tokens_at) * 1000)
                                                                   * l.rate / l.rate_period_ms) END AS tokens) b ON true;

        v_open := ARRAY(SELECT k.kind FROM unnest(v_kinds, v_rooms) AS k(kind, room) WHERE k.room > 0);
        IF cardinality(v_open) > 0 THEN
            -- A job marked to run alone first, as above, if its kind has room; else each kind's
            -- next ones, up to its room, merged in claim order. The lock follows that order by
            -- ordinality: sorting the locked rows by claim order instead would let the planner
            -- walk jobs_fair_idx filtering by id, to spare the sort (enable_sort is off).
            WITH lone AS MATERIALIZED (
                SELECT n.id, n.kind, n.priority::integer AS priority, n.fair_tag FROM jobs n
                 WHERE n.state = 'queued' AND n.run_alone AND n.run_at <= now() AND n.kind = ANY (v_open)
                   AND n.queue = ANY (v_queues) AND v_running = 0
                   AND NOT EXISTS (SELECT 1 FROM kind_limits l
                                    WHERE l.kind = n.kind AND l.kind = ANY (v_limited)
                                      AND l.owner_concurrency <= (SELECT count(*) FROM jobs c
                                                                   WHERE c.state = 'running' AND c.kind = n.kind AND c.owner = n.owner))
                 ORDER BY n.priority DESC, n.run_at, n.id
                 LIMIT 1
                   FOR UPDATE SKIP LOCKED
            )
            SELECT array_agg(l.id), array_agg(l.kind), array_agg(l.priority), array_agg(l.fair_tag)
              INTO v_ids, v_picked_kinds, v_priorities, v_tags
              FROM lone l;

            IF v_ids IS NULL THEN
                v_candidates := ARRAY(
                    SELECT w.id
                      FROM unnest(v_kinds, v_rooms, v_owner_caps) AS k(kind, room, owner_cap)
                     CROSS JOIN LATERAL (
                         SELECT s.id, s.priority, s.fair_tag
                           FROM (SELECT n.id, n.owner, n.priority, n.fair_tag,
                                        row_number() OVER (PARTITION BY n.owner ORDER BY n.priority DESC, n.fair_tag, n.id) AS nth
                                   FROM (SELECT n.id, n.owner, n.priority, n.fair_tag FROM jobs n
                                          WHERE n.state = 'queued' AND n.fair_tag IS NOT NULL AND n.kind = k.kind
                                            AND NOT n.run_alone AND n.run_at <= now() AND n.queue = ANY (v_queues)
                                          ORDER BY n.kind, n.priority DESC, n.fair_tag, n.id
                                          LIMIT CASE WHEN k.owner_cap IS NULL THEN k.room ELSE k.room + 256 END) n) s
                          WHERE k.owner_cap IS NULL
                             OR s.nth + (SELECT count(*) FROM jobs c
                                          WHERE c.state = 'running' AND c.kind = k.kind AND c.owner = s.owner) <= k.owner_cap
                          ORDER BY s.priority DESC, s.fair_tag, s.id
                          LIMIT k.room) w
                     WHERE k.room > 0
                     ORDER BY w.priority DESC, w.fair_tag, w.id);

                WITH next AS MATERIALIZED (
                    SELECT n.id, n.kind, n.priority::integer AS priority, n.fair_tag
                      FROM unnest(v_candidates) WITH ORDINALITY AS c(id, ord)
                     CROSS JOIN LATERAL (
                         SELECT n.id, n.kind, n.priority, n.fair_tag FROM jobs n
                          WHERE n.id >= c.id AND n.id <= c.id AND n.state = 'queued' AND n.fair_tag IS NOT NULL
                          ORDER BY n.id
                          LIMIT 1
                            FOR UPDATE SKIP LOCKED) n
                     ORDER BY c.ord
                     LIMIT p_limit
                )
                SELECT array_agg(x.id), array_agg(x.kind), array_agg(x.priority), array_agg(x.fair_tag)
                  INTO v_ids, v_picked_kinds, v_priorities, v_tags
                  FROM next x;
            END IF;
        END IF;

        -- Spend the tokens of what was picked (the lock is still held).
        UPDATE kind_limits l
           SET tokens = b.tokens - (SELECT count(*) FROM unnest(v_picked_kinds) t(kind) WHERE t.kind = l.kind),
               tokens_at = greatest(l.tokens_at, v_at)
          FROM unnest(v_kinds, v_buckets) AS b(kind, tokens)
         WHERE l.kind = b.kind AND b.tokens IS NOT NULL;
    END IF;

    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    -- The fair clock moves to the highest tag taken once it is 64 turns behind it, and is
    -- made once per priority: a read decides, so a claim writes fair_clock only then.
    IF EXISTS (SELECT 1 FROM unnest(v_priorities, v_tags) AS s(priority, tag)
                WHERE s.tag IS NOT NULL
                  AND coalesce((SELECT c.v FROM fair_clock c WHERE c.priority = s.priority) <= s.tag - 64, true)) THEN
        WITH served AS (
            -- The highest tag taken per priority: where V moves to.
            SELECT s.priority, max(s.tag) AS tag FROM unnest(v_priorities, v_tags) AS s(priority, tag)
             WHERE s.tag IS NOT NULL GROUP BY s.priority
        ), clock_moved AS (
            UPDATE fair_clock c SET v = s.tag FROM served s WHERE c.priority = s.priority AND c.v <= s.tag - 64
        )
        INSERT INTO fair_clock (priority, v) SELECT s.priority, s.tag FROM served s ON CONFLICT (priority) DO NOTHING;
    END IF;

    RETURN QUERY
        WITH claimed AS (
            UPDATE jobs j
               SET state = 'running', attempt = j.attempt + 1, lease_owner = p_worker, fair_tag = NULL,
                   lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
                   started_at = coalesce(j.started_at, now()), updated_at = now()
             WHERE j.id = ANY (v_ids)
            RETURNING j.id, j.kind, j.queue, j.priority, j.owner, j.payload, j.attempt, j.max_attempts,
                      j.request_id, j.created_at, j.crashes, j.snoozes, j.snooze_streak, j.run_alone, j.timeout_ms
        ), events AS (
            INSERT INTO job_events (job_id, type, data)
            SELECT c.id, 'running', CASE WHEN c.run_alone
                                         THEN jsonb_build_object('attempt', c.attempt, 'worker', p_worker, 'alone', true)
                                         ELSE jsonb_build_object('attempt', c.attempt, 'worker', p_worker) END
              FROM claimed c
        )
        SELECT c.id, c.kind, c.queue, c.priority::integer, c.owner, c.payload::text, c.attempt, c.max_attempts,
               c.request_id, c.created_at, c.crashes, c.snoozes, c.snooze_streak, c.run_alone, c.timeout_ms,
               (SELECT l.timeout_ms FROM kind_limits l WHERE l.kind = c.kind)
          FROM claimed c
         ORDER BY c.priority DESC, c.id;
END $$;


--
-- Name: atelier_complete(uuid[], integer[], text[], text[], text[], double precision[], text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_complete(p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[], p_errors text[], p_delays double precision[], p_worker text) RETURNS SETOF uuid
    LANGUAGE sql
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
    WITH locked AS MATERIALIZED (
        -- The rows this completion may change, locked in id order before any is changed.
        SELECT j.id FROM jobs j
         WHERE j.id = ANY (p_ids) AND j.state = 'running' AND j.lease_owner = p_worker
         ORDER BY j.id
           FOR NO KEY UPDATE
    ), input AS (
        SELECT c.* FROM unnest(p_ids, p_attempts, p_outcomes, p_results, p_errors, p_delays)
            AS c(id, attempt, outcome, result, error, delay_s)
         WHERE c.id IN (SELECT l.id FROM locked l)
    ), updated AS (
        UPDATE jobs j SET
            state = CASE WHEN c.outcome IN ('retry', 'released', 'snoozed') THEN 'queued' ELSE c.outcome END,
            attempt = CASE WHEN c.outcome = 'released' THEN j.attempt - 1 ELSE j.attempt END,
            -- The handler finished this attempt: the job did not kill its worker.
            crash_streak = CASE WHEN c.outcome = 'released' THEN j.crash_streak ELSE 0 END,
            -- ... so it need not run alone any more.
            run_alone = CASE WHEN c.outcome = 'released' THEN j.run_alone ELSE false END,
            -- A snoozed attempt does not count against max_attempts.
            snoozes = CASE WHEN c.outcome = 'snoozed' THEN j.snoozes + 1 ELSE j.snoozes END,
            snooze_streak = CASE c.outcome WHEN 'snoozed' THEN j.snooze_streak + 1
                                           WHEN 'released' THEN j.snooze_streak ELSE 0 END,
            -- A failure's result: what the handler said of it, e.g. {"input_unreadable": true}.
            result = CASE WHEN c.outcome = 'succeeded' THEN NULLIF(c.result, '')::jsonb
                          WHEN c.outcome = 'failed' THEN coalesce(NULLIF(c.result, '')::jsonb, j.result)
                          ELSE j.result END,
            error = CASE c.outcome WHEN 'succeeded' THEN NULL WHEN 'released' THEN j.error ELSE c.error END,
            errors = CASE WHEN c.outcome IN ('retry', 'failed')
                THEN j.errors || jsonb_build_array(jsonb_build_object(
                         'attempt', j.attempt, 'at', now(), 'error', c.error))
                ELSE j.errors END,
            run_at = CASE c.outcome WHEN 'retry' THEN now() + make_interval(secs => c.delay_s)
                                    WHEN 'snoozed' THEN now() + make_interval(secs => c.delay_s)
                                    WHEN 'released' THEN now() ELSE j.run_at END,
            progress = CASE WHEN c.outcome = 'succeeded' THEN 100 ELSE j.progress END,
            finished_at = CASE WHEN c.outcome IN ('succeeded', 'failed', 'cancelled') THEN now() END,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM input c
         WHERE j.id = c.id AND j.attempt = c.attempt AND j.state = 'running' AND j.lease_owner = p_worker
        RETURNING j.id, c.outcome, j.attempt, j.run_at, c.error, j.owner, j.request_id, j.follow_up, j.snoozes
    ), followed AS (
        -- A success enqueues the job's follow-ups, exactly once.
        INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, request_id, parent_id, follow_up)
        SELECT atelier_uuid_v7(), f->>'kind', coalesce(f->>'queue', 'default'), coalesce((f->>'priority')::int, 0),
               u.owner, coalesce(f->'payload', '{}'::jsonb), coalesce((f->>'max_attempts')::int, 5),
               u.request_id, u.id, NULLIF(f->'follow_up', 'null'::jsonb)
          FROM updated u, jsonb_array_elements(u.follow_up) AS f
         WHERE u.outcome = 'succeeded' AND u.follow_up IS NOT NULL
        RETURNING parent_id, id
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT id,
               CASE outcome WHEN 'retry' THEN 'retrying' WHEN 'released' THEN 'requeued'
                            WHEN 'snoozed' THEN 'requeued' ELSE outcome END,
               jsonb_strip_nulls(jsonb_build_object(
                   'attempt', attempt,
                   'error', NULLIF(error, ''),
                   'run_at', CASE WHEN outcome IN ('retry', 'snoozed') THEN run_at END,
                   'reason', CASE outcome WHEN 'released' THEN 'worker shutting down' WHEN 'snoozed' THEN 'snoozed' END,
                   'snoozes', CASE WHEN outcome = 'snoozed' THEN snoozes END,
                   'follow_ups', (SELECT jsonb_agg(f.id ORDER BY f.id) FROM followed f WHERE f.parent_id = updated.id)))
          FROM updated
    )
    SELECT id FROM updated
$$;


--
-- Name: atelier_complete_and_claim(uuid[], integer[], text[], text[], text[], double precision[], text, text[], text[], integer, bigint, bigint, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_complete_and_claim(p_ids uuid[], p_attempts integer[], p_outcomes text[], p_results text[], p_errors text[], p_delays double precision[], p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint, p_isolation_wait_ms bigint, p_fair boolean) RETURNS TABLE(completed uuid[], id uuid, kind text, queue text, priority integer, owner text, payload text, attempt integer, max_attempts integer, request_id text, created_at timestamp with time zone, crashes integer, snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer, kind_timeout_ms integer)
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_generic_plan'
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


--
-- Name: atelier_count_jobs(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_count_jobs() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, count(*) FROM new_jobs GROUP BY queue, kind, state;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, -count(*) FROM old_jobs GROUP BY queue, kind, state;
    ELSE
        INSERT INTO job_count_deltas (queue, kind, state, n)
        SELECT queue, kind, state, sum(n)
          FROM (SELECT queue, kind, state, 1 AS n FROM new_jobs
                UNION ALL
                SELECT queue, kind, state, -1 FROM old_jobs) c
         GROUP BY queue, kind, state
        HAVING sum(n) <> 0;
    END IF;
    RETURN NULL;
END $$;


--
-- Name: atelier_count_jobs_truncated(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_count_jobs_truncated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM job_count_deltas;
    DELETE FROM job_counts;
    RETURN NULL;
END $$;


--
-- Name: atelier_enqueue_jobs(uuid[], text[], text[], integer[], text[], text[], integer[], double precision[], text[], text[], text[], text[], boolean, integer[], text[], integer[], uuid[]); Type: PROCEDURE; Schema: public; Owner: -
--

CREATE PROCEDURE public.atelier_enqueue_jobs(IN p_ids uuid[], IN p_kinds text[], IN p_queues text[], IN p_priorities integer[], IN p_owners text[], IN p_payloads text[], IN p_max_attempts integer[], IN p_run_ats double precision[], IN p_idempotency_keys text[], IN p_request_ids text[], IN p_parent_ids text[], IN p_follow_ups text[], IN p_fair boolean, IN p_timeouts_ms integer[], IN p_unique_keys text[], IN p_tag_priorities integer[], INOUT inserted uuid[])
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


--
-- Name: atelier_extend_leases(uuid[], integer[], text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_extend_leases(p_ids uuid[], p_attempts integer[], p_worker text, p_lease_ms bigint) RETURNS TABLE(id uuid, cancel_requested boolean)
    LANGUAGE sql
    SET plan_cache_mode TO 'force_generic_plan'
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


--
-- Name: atelier_fair_tag(boolean, text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_fair_tag(p_fair boolean, p_owner text, p_priority integer) RETURNS double precision
    LANGUAGE sql STABLE
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET enable_sort TO 'off'
    SET enable_incremental_sort TO 'off'
    AS $$
    SELECT greatest(
               k.v,
               (SELECT h.fair_tag FROM jobs h
                 WHERE h.state = 'queued' AND h.fair_tag IS NOT NULL AND h.priority = p_priority::smallint
                   AND h.fair_tag >= k.v
                 ORDER BY h.priority DESC, h.fair_tag LIMIT 1),
               CASE WHEN NOT p_fair
                    THEN (SELECT t.fair_tag + 1 FROM jobs t
                           WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL AND t.priority = p_priority::smallint
                           ORDER BY t.priority DESC, t.fair_tag DESC LIMIT 1)
                    ELSE (SELECT t.fair_tag + coalesce((SELECT 1 / w.weight FROM owner_weights w WHERE w.owner = p_owner), 1)::float8
                            FROM jobs t
                           WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL
                             AND t.owner = p_owner AND t.priority = p_priority::smallint
                           ORDER BY t.owner DESC, t.priority DESC, t.fair_tag DESC LIMIT 1) END)
      FROM (SELECT coalesce((SELECT c.v FROM fair_clock c WHERE c.priority = p_priority::smallint), 0) AS v) k
$$;


--
-- Name: atelier_fair_tags(boolean, text[], integer[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_fair_tags(p_fair boolean, p_owners text[], p_priorities integer[]) RETURNS TABLE(ord bigint, tag double precision)
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET enable_sort TO 'off'
    SET enable_incremental_sort TO 'off'
    AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH input AS (
        SELECT i.ord, CASE WHEN p_fair THEN i.owner END AS owner, i.priority::smallint AS priority
          FROM unnest(p_owners, p_priorities) WITH ORDINALITY AS i(owner, priority, ord)
         WHERE i.priority IS NOT NULL  -- a job not due yet: no tag
    ), starts AS MATERIALIZED (
        -- Once per group: the first job's tag, by the one-job rule.
        SELECT g.owner, g.priority, s.step, atelier_fair_tag(p_fair, g.owner, g.priority::integer) AS base
          FROM (SELECT DISTINCT i.owner, i.priority FROM input i) g
          CROSS JOIN LATERAL (SELECT coalesce((SELECT 1 / w.weight FROM owner_weights w WHERE w.owner = g.owner), 1)::float8 AS step) s
    )
    SELECT i.ord, s.base + (row_number() OVER (PARTITION BY i.owner, i.priority ORDER BY i.ord) - 1)::float8 * s.step
      FROM input i
      JOIN starts s ON s.owner IS NOT DISTINCT FROM i.owner AND s.priority = i.priority;
END $$;


--
-- Name: atelier_fold_job_counts(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_fold_job_counts() RETURNS bigint
    LANGUAGE sql
    AS $$
    WITH folded AS (
        DELETE FROM job_count_deltas RETURNING queue, kind, state, n
    ), sums AS (
        SELECT queue, kind, state, sum(n) AS n, count(*) AS deltas FROM folded GROUP BY queue, kind, state
    ), upserted AS (
        INSERT INTO job_counts (queue, kind, state, n)
        SELECT queue, kind, state, n FROM sums ORDER BY queue, kind, state
            ON CONFLICT (queue, kind, state) DO UPDATE SET n = job_counts.n + excluded.n
    )
    SELECT coalesce(sum(deltas), 0)::bigint FROM sums
$$;


--
-- Name: atelier_insert_jobs(uuid[], text[], text[], integer[], text[], text[], integer[], double precision[], text[], text[], text[], text[], boolean, integer[], text[], integer[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_insert_jobs(p_ids uuid[], p_kinds text[], p_queues text[], p_priorities integer[], p_owners text[], p_payloads text[], p_max_attempts integer[], p_run_ats double precision[], p_idempotency_keys text[], p_request_ids text[], p_parent_ids text[], p_follow_ups text[], p_fair boolean, p_timeouts_ms integer[], p_unique_keys text[], p_tag_priorities integer[]) RETURNS SETOF uuid
    LANGUAGE sql
    SET plan_cache_mode TO 'force_generic_plan'
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


--
-- Name: atelier_job_matches(text, text, text, text, timestamp with time zone, timestamp with time zone, text, text[], text[], text[], text, timestamp with time zone, timestamp with time zone, timestamp with time zone, timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_job_matches(j_kind text, j_state text, j_queue text, j_owner text, j_created_at timestamp with time zone, j_finished_at timestamp with time zone, j_error text, f_kinds text[], f_states text[], f_queues text[], f_owner text, f_created_after timestamp with time zone, f_created_before timestamp with time zone, f_finished_after timestamp with time zone, f_finished_before timestamp with time zone, f_error text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT (coalesce(cardinality(f_kinds), 0) = 0 OR j_kind = ANY (f_kinds))
       AND (coalesce(cardinality(f_states), 0) = 0 OR j_state = ANY (f_states))
       AND (coalesce(cardinality(f_queues), 0) = 0 OR j_queue = ANY (f_queues))
       AND (f_owner IS NULL OR j_owner = f_owner)
       AND (f_created_after IS NULL OR j_created_at >= f_created_after)
       AND (f_created_before IS NULL OR j_created_at < f_created_before)
       AND (f_finished_after IS NULL OR j_finished_at >= f_finished_after)
       AND (f_finished_before IS NULL OR j_finished_at < f_finished_before)
       AND (f_error IS NULL OR strpos(lower(coalesce(j_error, '')), lower(f_error)) > 0)
$$;


--
-- Name: atelier_notify_access_revoked(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_access_revoked() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'jti:' || NEW.jti);
    RETURN NULL;
END $$;


--
-- Name: atelier_notify_claimable(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_claimable() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_jobs', q.queue)
       FROM (SELECT DISTINCT queue FROM new_rows
              WHERE state = 'queued' AND run_at <= now()) AS q;
    RETURN NULL;
END $$;


--
-- Name: atelier_notify_job_deletes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_job_deletes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(id::text || ':0', ',') AS ids
               FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM old_jobs) j
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;


--
-- Name: atelier_notify_job_events(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_job_events() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- Chunks of 100 ids keep each payload far below NOTIFY's 8000-byte limit.
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(job_id::text || ':' || id::text, ',') AS ids
               FROM (SELECT job_id, id, (row_number() OVER ()) / 100 AS chunk FROM new_events) e
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;


--
-- Name: atelier_notify_tokens(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_tokens() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'changed');
    RETURN NULL;
END $$;


--
-- Name: atelier_notify_user_disabled(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_notify_user_disabled() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.disabled_at IS DISTINCT FROM OLD.disabled_at THEN
        PERFORM pg_notify('atelier_tokens', 'user:' || NEW.id);
    END IF;
    RETURN NULL;
END $$;


--
-- Name: atelier_purge_sign_ins(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_purge_sign_ins() RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    refresh bigint;
    identity bigint;
BEGIN
    DELETE FROM refresh_tokens WHERE expires_at < now() OR revoked_at < now() - interval '1 day';
    GET DIAGNOSTICS refresh = ROW_COUNT;
    DELETE FROM apple_identity_uses WHERE expires_at < now();
    GET DIAGNOSTICS identity = ROW_COUNT;
    RETURN refresh + identity;
END $$;


--
-- Name: atelier_rescue_lost_jobs(bigint, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_rescue_lost_jobs(p_restart_grace_ms bigint, p_crash_limit integer) RETURNS integer
    LANGUAGE sql
    AS $$
    WITH lost AS (
        SELECT id, lease_expires_at < now() AS expired FROM jobs
         WHERE state = 'running'
           AND (lease_expires_at < now()
                OR (pg_postmaster_start_time() < now() - p_restart_grace_ms * interval '1 millisecond'
                    AND lease_owner NOT IN (SELECT id FROM atelier_live_workers)))
           FOR UPDATE SKIP LOCKED
    ), judged AS (
        -- The other jobs the dead worker was running (its claims not completed, rescued in this
        -- statement or not): none, and this job was alone when it died.
        SELECT j.id, o.others, o.others = 0 AND j.crash_streak + 1 >= p_crash_limit AS poison,
               'worker ' || coalesce(j.lease_owner, '?') || ' stopped during attempt ' || j.attempt
               || CASE WHEN lost.expired THEN ' (its lease expired' ELSE ' (its process is gone' END
               || CASE o.others WHEN 0 THEN ')' WHEN 1 THEN '; 1 other job was running in it)'
                       ELSE '; ' || o.others || ' other jobs were running in it)' END AS what
          FROM jobs j JOIN lost ON lost.id = j.id
         CROSS JOIN LATERAL (SELECT count(*)::int AS others FROM jobs r
                              WHERE r.state = 'running' AND r.lease_owner = j.lease_owner AND r.id <> j.id) o
    ), rescued AS (
        UPDATE jobs j SET
            state = CASE WHEN v.poison THEN 'failed' ELSE 'queued' END,
            crashes = j.crashes + 1,
            crash_streak = j.crash_streak + CASE WHEN v.others = 0 THEN 1 ELSE 0 END,
            run_alone = true,
            error = CASE WHEN v.poison
                THEN 'poison pill: the job stopped its worker ' || (j.crash_streak + 1) || ' times in a row while running alone '
                     || '(crash limit ' || p_crash_limit || '; last: ' || v.what || '); failed without another try'
                ELSE v.what END,
            errors = j.errors || jsonb_build_array(jsonb_build_object(
                'attempt', j.attempt, 'at', now(), 'error', v.what, 'crash', true)),
            -- A second crash alone in a row and the next ones wait before the next run: 1 s,
            -- doubling, ±25 %.
            run_at = now() + CASE WHEN v.others = 0 AND j.crash_streak >= 1
                THEN make_interval(secs => least(30, 2 ^ (j.crash_streak - 1)) * (0.75 + random() * 0.5))
                ELSE interval '0' END,
            finished_at = CASE WHEN v.poison THEN now() END,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM judged v WHERE j.id = v.id
        RETURNING j.id, j.state, j.attempt, j.error, j.crashes, j.crash_streak, v.others
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT id, CASE WHEN state = 'failed' THEN 'failed' ELSE 'requeued' END,
               jsonb_build_object('attempt', attempt, 'error', error, 'crashes', crashes, 'crash_streak', crash_streak,
                                  'shared_with', others, 'reason', CASE WHEN state = 'failed' THEN 'poison_pill' ELSE 'worker_lost' END)
          FROM rescued
    )
    SELECT count(*)::int FROM rescued
$$;


--
-- Name: atelier_retry_jobs(uuid[], boolean, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_retry_jobs(p_ids uuid[], p_fair boolean, p_event jsonb) RETURNS uuid[]
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_retried uuid[];
    v_owners text[];
    v_priorities integer[];
BEGIN
    WITH retried AS (
        UPDATE jobs j SET state = 'queued', attempt = 0, crashes = 0, crash_streak = 0, run_alone = false, snoozes = 0,
                          snooze_streak = 0, run_at = now(), fair_tag = NULL, finished_at = NULL,
                          cancel_requested = false, progress = 0, progress_step = NULL, updated_at = now()
         WHERE j.id = ANY (p_ids) AND j.state IN ('failed', 'cancelled')
        RETURNING j.id, j.owner, j.priority
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT r.id, 'retried', p_event FROM retried r
    )
    SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}'), array_agg(r.owner ORDER BY r.id),
           array_agg(r.priority::integer ORDER BY r.id)
      INTO v_retried, v_owners, v_priorities
      FROM retried r;
    IF cardinality(v_retried) > 0 THEN
        UPDATE jobs j SET fair_tag = t.tag
          FROM unnest(v_retried) WITH ORDINALITY AS d(id, ord)
          JOIN atelier_fair_tags(p_fair, v_owners, v_priorities) t ON t.ord = d.ord
         WHERE j.id = d.id;
    END IF;
    RETURN v_retried;
END $$;


--
-- Name: atelier_uuid_v7(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.atelier_uuid_v7() RETURNS uuid
    LANGUAGE sql
    AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                  PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                  FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;


--
-- Name: app_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_tokens (
    id uuid NOT NULL,
    name text NOT NULL,
    owner text NOT NULL,
    token_hash text NOT NULL,
    prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);


--
-- Name: apple_identity_uses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apple_identity_uses (
    token_hash text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workers (
    id text NOT NULL,
    lock_key integer NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    queues text[] NOT NULL,
    kinds text[] NOT NULL,
    concurrency integer NOT NULL,
    version text NOT NULL,
    running integer DEFAULT 0 NOT NULL,
    processed bigint DEFAULT 0 NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: atelier_live_workers; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.atelier_live_workers AS
 SELECT w.id
   FROM (public.workers w
     JOIN pg_locks l ON (((l.locktype = 'advisory'::text) AND l.granted AND (l.objsubid = 2) AND (l.database = ( SELECT pg_database.oid
           FROM pg_database
          WHERE (pg_database.datname = current_database()))) AND (l.classid = (1096043602)::oid) AND (l.objid = (w.lock_key)::oid))));


--
-- Name: atelier_schema_definitions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.atelier_schema_definitions (
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: atelier_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.atelier_schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL,
    detail text
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_log_id_seq OWNED BY public.audit_log.id;


--
-- Name: bulk_actions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bulk_actions (
    id bigint NOT NULL,
    action text NOT NULL,
    filter text NOT NULL,
    kinds text[] DEFAULT '{}'::text[] NOT NULL,
    states text[] DEFAULT '{}'::text[] NOT NULL,
    queues text[] DEFAULT '{}'::text[] NOT NULL,
    owner text,
    created_after timestamp with time zone,
    created_before timestamp with time zone,
    finished_after timestamp with time zone,
    finished_before timestamp with time zone,
    error_contains text,
    actor text NOT NULL,
    state text DEFAULT 'running'::text NOT NULL,
    batch_size integer NOT NULL,
    matched bigint NOT NULL,
    acted bigint DEFAULT 0 NOT NULL,
    stopping bigint DEFAULT 0 NOT NULL,
    batches integer DEFAULT 0 NOT NULL,
    pass smallint DEFAULT 1 NOT NULL,
    cursor uuid,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT bulk_actions_action_check CHECK ((action = ANY (ARRAY['cancel'::text, 'retry'::text, 'purge'::text]))),
    CONSTRAINT bulk_actions_batch_size_check CHECK (((batch_size >= 1) AND (batch_size <= 10000))),
    CONSTRAINT bulk_actions_matched_check CHECK ((matched >= 0)),
    CONSTRAINT bulk_actions_pass_check CHECK ((pass = ANY (ARRAY[1, 2]))),
    CONSTRAINT bulk_actions_state_check CHECK ((state = ANY (ARRAY['running'::text, 'stopped'::text, 'done'::text])))
);


--
-- Name: bulk_actions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.bulk_actions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.bulk_actions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.documents (
    id uuid NOT NULL,
    owner text NOT NULL,
    collection text DEFAULT 'documents'::text NOT NULL,
    question text NOT NULL,
    answer text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    in_review_plan boolean DEFAULT false NOT NULL
);


--
-- Name: fair_clock; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.fair_clock (
    priority smallint NOT NULL,
    v double precision NOT NULL
);


--
-- Name: indexed_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.indexed_items (
    id uuid NOT NULL,
    owner text NOT NULL,
    collection text DEFAULT 'default'::text NOT NULL,
    source_kind text NOT NULL,
    source_key text NOT NULL,
    job_id uuid,
    image_path text,
    text text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    embedding public.vector(384) NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT indexed_items_source_kind_check CHECK ((source_kind = ANY (ARRAY['image'::text, 'text'::text])))
);


--
-- Name: job_count_deltas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_count_deltas (
    queue text NOT NULL,
    kind text NOT NULL,
    state text NOT NULL,
    n bigint NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='2000', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='2000');


--
-- Name: job_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_counts (
    queue text NOT NULL,
    kind text NOT NULL,
    state text NOT NULL,
    n bigint NOT NULL
);


--
-- Name: job_counts_live; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.job_counts_live AS
 SELECT queue,
    kind,
    state,
    (sum(n))::bigint AS n
   FROM ( SELECT job_counts.queue,
            job_counts.kind,
            job_counts.state,
            job_counts.n
           FROM public.job_counts
        UNION ALL
         SELECT job_count_deltas.queue,
            job_count_deltas.kind,
            job_count_deltas.state,
            job_count_deltas.n
           FROM public.job_count_deltas) c
  GROUP BY queue, kind, state;


--
-- Name: job_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_events (
    id bigint NOT NULL,
    job_id uuid NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: job_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.job_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id uuid NOT NULL,
    kind text NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    owner text DEFAULT 'system'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    result jsonb,
    error text,
    errors jsonb DEFAULT '[]'::jsonb NOT NULL,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    progress smallint DEFAULT 0 NOT NULL,
    progress_step text,
    cancel_requested boolean DEFAULT false NOT NULL,
    idempotency_key text,
    request_id text,
    parent_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    follow_up jsonb,
    crashes integer DEFAULT 0 NOT NULL,
    crash_streak integer DEFAULT 0 NOT NULL,
    snoozes integer DEFAULT 0 NOT NULL,
    snooze_streak integer DEFAULT 0 NOT NULL,
    run_alone boolean DEFAULT false NOT NULL,
    timeout_ms integer,
    fair_tag double precision,
    unique_key text,
    CONSTRAINT jobs_crash_streak_check CHECK ((crash_streak >= 0)),
    CONSTRAINT jobs_crashes_check CHECK ((crashes >= 0)),
    CONSTRAINT jobs_follow_up_check CHECK (((follow_up IS NULL) OR (jsonb_typeof(follow_up) = 'array'::text))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT jobs_progress_check CHECK (((progress >= 0) AND (progress <= 100))),
    CONSTRAINT jobs_snooze_streak_check CHECK ((snooze_streak >= 0)),
    CONSTRAINT jobs_snoozes_check CHECK ((snoozes >= 0)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text]))),
    CONSTRAINT jobs_timeout_ms_check CHECK (((timeout_ms IS NULL) OR (timeout_ms > 0))),
    CONSTRAINT jobs_unique_key_check CHECK (((unique_key IS NULL) OR ((length(unique_key) >= 1) AND (length(unique_key) <= 255))))
)
WITH (fillfactor='80', autovacuum_vacuum_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');


--
-- Name: kind_limits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.kind_limits (
    kind text NOT NULL,
    concurrency integer,
    owner_concurrency integer,
    rate integer,
    rate_period_ms bigint,
    timeout_ms integer,
    tokens double precision,
    tokens_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_by text NOT NULL,
    CONSTRAINT kind_limits_check CHECK (((rate IS NULL) = (rate_period_ms IS NULL))),
    CONSTRAINT kind_limits_check1 CHECK ((num_nonnulls(concurrency, owner_concurrency, rate, timeout_ms) > 0)),
    CONSTRAINT kind_limits_concurrency_check CHECK (((concurrency >= 1) AND (concurrency <= 1000000))),
    CONSTRAINT kind_limits_kind_check CHECK (((char_length(kind) >= 1) AND (char_length(kind) <= 64))),
    CONSTRAINT kind_limits_owner_concurrency_check CHECK (((owner_concurrency >= 1) AND (owner_concurrency <= 1000000))),
    CONSTRAINT kind_limits_rate_check CHECK (((rate >= 1) AND (rate <= 1000000))),
    CONSTRAINT kind_limits_rate_period_ms_check CHECK (((rate_period_ms >= 1) AND (rate_period_ms <= 86400000))),
    CONSTRAINT kind_limits_timeout_ms_check CHECK (((timeout_ms >= 1) AND (timeout_ms <= 86400000)))
);


--
-- Name: owner_weights; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.owner_weights (
    owner text NOT NULL,
    weight double precision NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_by text NOT NULL,
    CONSTRAINT owner_weights_owner_check CHECK (((char_length(owner) >= 1) AND (char_length(owner) <= 200))),
    CONSTRAINT owner_weights_weight_check CHECK (((weight >= (0.01)::double precision) AND (weight <= (100)::double precision)))
);


--
-- Name: queues; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.queues (
    name text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.refresh_tokens (
    token_hash text NOT NULL,
    user_id uuid NOT NULL,
    family uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    signed_in_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: reviews; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reviews (
    id uuid NOT NULL,
    document_id uuid NOT NULL,
    owner text NOT NULL,
    review_number smallint NOT NULL,
    review_date date NOT NULL,
    completed_at timestamp with time zone,
    recall_text text
);


--
-- Name: revoked_access_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.revoked_access_tokens (
    jti uuid NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    name text NOT NULL,
    cron text NOT NULL,
    kind text NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    owner text DEFAULT 'system'::text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    next_tick timestamp with time zone NOT NULL,
    last_tick timestamp with time zone,
    last_job_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schedules_check CHECK (((last_tick IS NULL) OR (last_tick < next_tick))),
    CONSTRAINT schedules_cron_check CHECK (((length(cron) >= 1) AND (length(cron) <= 200))),
    CONSTRAINT schedules_kind_check CHECK (((length(kind) >= 1) AND (length(kind) <= 64))),
    CONSTRAINT schedules_max_attempts_check CHECK (((max_attempts >= 1) AND (max_attempts <= 100))),
    CONSTRAINT schedules_name_check CHECK (((length(name) >= 1) AND (length(name) <= 64))),
    CONSTRAINT schedules_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
    CONSTRAINT schedules_priority_check CHECK (((priority >= '-100'::integer) AND (priority <= 100))),
    CONSTRAINT schedules_queue_check CHECK (((length(queue) >= 1) AND (length(queue) <= 64)))
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid NOT NULL,
    email text,
    name text DEFAULT ''::text NOT NULL,
    role text DEFAULT 'user'::text NOT NULL,
    permissions text[] DEFAULT '{}'::text[] NOT NULL,
    apple_sub text,
    password_hash text,
    disabled_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_role_check CHECK ((role ~ '^[a-z][a-z0-9_.-]{0,31}$'::text))
);


--
-- Name: workers_lock_key_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.workers ALTER COLUMN lock_key ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.workers_lock_key_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
    CYCLE
);


--
-- Name: audit_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log ALTER COLUMN id SET DEFAULT nextval('public.audit_log_id_seq'::regclass);


--
-- Name: app_tokens app_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_tokens
    ADD CONSTRAINT app_tokens_pkey PRIMARY KEY (id);


--
-- Name: app_tokens app_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_tokens
    ADD CONSTRAINT app_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: apple_identity_uses apple_identity_uses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apple_identity_uses
    ADD CONSTRAINT apple_identity_uses_pkey PRIMARY KEY (token_hash);


--
-- Name: atelier_schema_definitions atelier_schema_definitions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.atelier_schema_definitions
    ADD CONSTRAINT atelier_schema_definitions_pkey PRIMARY KEY (name);


--
-- Name: atelier_schema_migrations atelier_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.atelier_schema_migrations
    ADD CONSTRAINT atelier_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: bulk_actions bulk_actions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bulk_actions
    ADD CONSTRAINT bulk_actions_pkey PRIMARY KEY (id);


--
-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);


--
-- Name: fair_clock fair_clock_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.fair_clock
    ADD CONSTRAINT fair_clock_pkey PRIMARY KEY (priority);


--
-- Name: indexed_items indexed_items_owner_collection_source_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.indexed_items
    ADD CONSTRAINT indexed_items_owner_collection_source_key_key UNIQUE (owner, collection, source_key);


--
-- Name: indexed_items indexed_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.indexed_items
    ADD CONSTRAINT indexed_items_pkey PRIMARY KEY (id);


--
-- Name: job_counts job_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_counts
    ADD CONSTRAINT job_counts_pkey PRIMARY KEY (queue, kind, state);


--
-- Name: job_events job_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_events
    ADD CONSTRAINT job_events_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: kind_limits kind_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.kind_limits
    ADD CONSTRAINT kind_limits_pkey PRIMARY KEY (kind);


--
-- Name: owner_weights owner_weights_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.owner_weights
    ADD CONSTRAINT owner_weights_pkey PRIMARY KEY (owner);


--
-- Name: queues queues_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.queues
    ADD CONSTRAINT queues_pkey PRIMARY KEY (name);


--
-- Name: refresh_tokens refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: reviews reviews_document_id_review_number_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reviews
    ADD CONSTRAINT reviews_document_id_review_number_key UNIQUE (document_id, review_number);


--
-- Name: reviews reviews_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reviews
    ADD CONSTRAINT reviews_pkey PRIMARY KEY (id);


--
-- Name: revoked_access_tokens revoked_access_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.revoked_access_tokens
    ADD CONSTRAINT revoked_access_tokens_pkey PRIMARY KEY (jti);


--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (name);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: workers workers_lock_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workers
    ADD CONSTRAINT workers_lock_key_key UNIQUE (lock_key);


--
-- Name: workers workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id);


--
-- Name: app_tokens_live_name_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX app_tokens_live_name_idx ON public.app_tokens USING btree (name) WHERE (revoked_at IS NULL);


--
-- Name: apple_identity_uses_expires_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apple_identity_uses_expires_idx ON public.apple_identity_uses USING btree (expires_at);


--
-- Name: audit_log_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_at_idx ON public.audit_log USING btree (at DESC, id DESC);


--
-- Name: bulk_actions_running_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bulk_actions_running_idx ON public.bulk_actions USING btree (updated_at) WHERE (state = 'running'::text);


--
-- Name: documents_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_owner ON public.documents USING btree (owner, collection, created_at DESC);


--
-- Name: indexed_items_embedding; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX indexed_items_embedding ON public.indexed_items USING hnsw (embedding public.vector_cosine_ops);


--
-- Name: indexed_items_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX indexed_items_owner ON public.indexed_items USING btree (owner, collection);


--
-- Name: job_events_job_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_events_job_idx ON public.job_events USING btree (job_id, id);


--
-- Name: jobs_fair_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_fair_idx ON public.jobs USING btree (priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));


--
-- Name: jobs_finished_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_finished_idx ON public.jobs USING btree (finished_at) WHERE (finished_at IS NOT NULL);


--
-- Name: jobs_idempotency_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX jobs_idempotency_idx ON public.jobs USING btree (owner, idempotency_key) WHERE (idempotency_key IS NOT NULL);


--
-- Name: jobs_kind_fair_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_kind_fair_idx ON public.jobs USING btree (kind, priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));


--
-- Name: jobs_owner_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_owner_created_idx ON public.jobs USING btree (owner, created_at, id);


--
-- Name: jobs_owner_fair_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_owner_fair_idx ON public.jobs USING btree (owner, priority, fair_tag) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));


--
-- Name: jobs_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_parent_idx ON public.jobs USING btree (parent_id) WHERE (parent_id IS NOT NULL);


--
-- Name: jobs_queue_fair_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_queue_fair_idx ON public.jobs USING btree (queue, priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));


--
-- Name: jobs_queued_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_queued_idx ON public.jobs USING btree (queue, run_at) WHERE (state = 'queued'::text);


--
-- Name: jobs_run_alone_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_run_alone_idx ON public.jobs USING btree (priority DESC, run_at, id) WHERE ((state = 'queued'::text) AND run_alone);


--
-- Name: jobs_running_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_running_idx ON public.jobs USING btree (lease_owner) WHERE (state = 'running'::text);


--
-- Name: jobs_running_kind_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_running_kind_idx ON public.jobs USING btree (kind, owner) WHERE (state = 'running'::text);


--
-- Name: jobs_unique_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_unique_idx ON public.jobs USING btree (owner, kind, unique_key, created_at DESC) WHERE (unique_key IS NOT NULL);


--
-- Name: jobs_waiting_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_waiting_idx ON public.jobs USING btree (run_at, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NULL));


--
-- Name: refresh_tokens_expires_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_expires_idx ON public.refresh_tokens USING btree (expires_at);


--
-- Name: refresh_tokens_family_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_family_idx ON public.refresh_tokens USING btree (family);


--
-- Name: refresh_tokens_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_user_idx ON public.refresh_tokens USING btree (user_id);


--
-- Name: reviews_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reviews_due ON public.reviews USING btree (owner, review_date) WHERE (completed_at IS NULL);


--
-- Name: revoked_access_tokens_expires_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX revoked_access_tokens_expires_idx ON public.revoked_access_tokens USING btree (expires_at);


--
-- Name: users_apple_sub_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_apple_sub_idx ON public.users USING btree (apple_sub) WHERE (apple_sub IS NOT NULL);


--
-- Name: users_email_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_email_idx ON public.users USING btree (lower(email)) WHERE (email IS NOT NULL);


--
-- Name: app_tokens app_tokens_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER app_tokens_notify AFTER DELETE OR UPDATE OF revoked_at ON public.app_tokens FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_notify_tokens();


--
-- Name: job_events job_events_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_events_notify AFTER INSERT ON public.job_events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_notify_job_events();


--
-- Name: jobs jobs_count_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_delete AFTER DELETE ON public.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_count_jobs();


--
-- Name: jobs jobs_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_insert AFTER INSERT ON public.jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_count_jobs();


--
-- Name: jobs jobs_count_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_truncate AFTER TRUNCATE ON public.jobs FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_count_jobs_truncated();


--
-- Name: jobs jobs_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_update AFTER UPDATE ON public.jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_count_jobs();


--
-- Name: jobs jobs_notify_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_notify_delete AFTER DELETE ON public.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_notify_job_deletes();


--
-- Name: jobs jobs_notify_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_notify_insert AFTER INSERT ON public.jobs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_notify_claimable();


--
-- Name: jobs jobs_notify_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_notify_update AFTER UPDATE ON public.jobs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.atelier_notify_claimable();


--
-- Name: revoked_access_tokens revoked_access_tokens_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER revoked_access_tokens_notify AFTER INSERT ON public.revoked_access_tokens FOR EACH ROW EXECUTE FUNCTION public.atelier_notify_access_revoked();


--
-- Name: users users_disabled_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_disabled_notify AFTER UPDATE OF disabled_at ON public.users FOR EACH ROW EXECUTE FUNCTION public.atelier_notify_user_disabled();


--
-- Name: job_events job_events_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_events
    ADD CONSTRAINT job_events_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;


--
-- Name: jobs jobs_parent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES public.jobs(id) ON DELETE SET NULL;


--
-- Name: refresh_tokens refresh_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: reviews reviews_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reviews
    ADD CONSTRAINT reviews_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

-- The record of the single line (the checksums are stand-ins: adoption does not read them).
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (1, 'queue', '76f82d91cecaaa82');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (2, 'claim_function', '0046267539973447');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (3, 'app_tokens', '73e6eeacb56dc68b');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (4, 'notify_job_deletes', 'b1e69f67ef5a1c2e');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (5, 'vector_store', '81778b80af32c406');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (6, 'documents', 'f5f1b20b7cacb522');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (7, 'follow_up_jobs', 'cef0cc118dd0d7ed');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (8, 'crashes_and_owner_index', 'd73e09c57637b920');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (9, 'snoozes', '4b8b908a73b3166a');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (10, 'accounts', '1fcb915885a65ba9');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (11, 'learn', '3b072c78ad109abf');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (12, 'console', 'bc502bb478b4d640');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (13, 'run_alone', 'e40c130d54e0ef47');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (14, 'sessions', '60f5e4211ee228c7');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (15, 'sign_in_memory', '1a2bff41a455dafc');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (16, 'job_timeouts', 'b0a999cd106f09e5');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (17, 'fair_share', 'e0706f095efec0be');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (18, 'unique_jobs', '71b7a0fbdc3ede28');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (19, 'schedules', 'e8d4ba19f066e25b');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (20, 'kind_limits', 'd0bd1aba9ca3bb76');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (21, 'owner_weights', '01d7e7e7db6c17c1');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (22, 'job_counts', '90a7eecf1fe8660e');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (23, 'complete_and_claim', '313d6cc0142fd9c5');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (24, 'bulk_actions', '20ede120271bccea');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (25, 'claim_per_queue', '3324a54f74c8a872');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (26, 'failure_results', '073193b587839768');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (27, 'claim_skips_idle_limits', '9771047ec58272a1');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (28, 'enqueue_commits_in_the_call', 'c679effcb7352b65');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (29, 'enqueue_one_job_without_arrays', '9ba52247c8865b26');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (30, 'plans_whatever_the_statistics', '6a774ff6968f209f');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (31, 'fair_tag_front_from_the_clock', '6262f78ef94acf51');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (32, 'row_locks_in_id_order', '03af2c4096dbe6a2');
INSERT INTO public.atelier_schema_migrations (version, name, checksum) VALUES (33, 'claim_in_fewer_statements', '231167680ac49319');
