-- The claim: up to p_limit queued jobs for worker p_worker, leased for p_lease_ms, from the
-- queues it serves (less the paused ones) and the kinds it runs (less those a kind limit holds),
-- in fair-share order (p_fair; ATELIER_FAIR_SHARE), each marked running with an event row.
-- Called by JobQueue.claim, alone or after a completion (atelier_complete_and_claim).
--
-- In order: promotion (jobs whose run_at has come get their fair tag, 256 at most per claim);
-- the run-alone rule (a worker drains before a job marked to run alone, once one has waited
-- p_isolation_wait_ms); the limited kinds' room, counted under a lock so two claims never both
-- take the last slot; the pick, each served queue walked in jobs_queue_fair_idx order; the
-- update; and the fair clock moved when it is 64 turns behind the tags taken.
--
-- Every probe is pinned to one index's order (the SET lines): with statistics taken while few jobs
-- were queued, generic plans otherwise walk the whole backlog on every claim (ClaimPlanTests).
CREATE OR REPLACE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
                              p_isolation_wait_ms bigint, p_fair boolean)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer, kind_timeout_ms integer)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET enable_incremental_sort = off
SET plan_cache_mode = force_generic_plan
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
