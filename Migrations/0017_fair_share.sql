-- 0017 — fair share: within a priority the claim interleaves owners instead of serving FIFO.
--
-- Before, the claim walked queued jobs in (priority DESC, run_at, id) order: one owner's burst of
-- 20,000 jobs made every other owner wait behind all of it. Now every ready queued job carries a
-- fair_tag, and the claim walks (priority DESC, fair_tag, id). Tags are start-time fair queuing
-- (Goyal, Vin & Cheng 1996) counted in jobs: an owner's next job is tagged one after its last
-- queued one, or at the queue's virtual time V when it has none queued. So the n-th queued job of
-- every owner carries about the same tag, and the claim serves owners round robin; an owner with
-- nothing queued re-enters at V, the point the claim is serving now — one job-duration away
-- whatever the others' backlog.
--
--   fair_tag    set when a job becomes ready: by the enqueue for a job due now, by the claim's
--               first statement (the promotion, below) for one due later — a retry's back-off, a
--               snooze, a scheduled run_at, a rescued or operator-retried job, a follow-up. NULL
--               while it waits and from the claim on (so a job that comes back is tagged afresh).
--   fair_clock  V per priority: the highest tag claimed, written by the claim only when it moved
--               by FAIR_CLOCK_STEP (64) or more, so claims do not queue on one row; a newcomer is
--               tagged at greatest(V, first queued tag), at most 64 tags before the true point.
--
-- With fairness off (ATELIER_FAIR_SHARE=off, p_fair false) every job is tagged after the last
-- queued one of its priority: one owner for everybody, which is FIFO by the time a job became
-- ready, the order before this migration. Tags are compared only within a priority.
ALTER TABLE jobs ADD COLUMN fair_tag double precision;

CREATE TABLE fair_clock (
    priority smallint PRIMARY KEY,
    v double precision NOT NULL
);

-- Jobs queued before this migration: tag each owner's jobs 0, 1, 2 … in their old claim order, so
-- the backlog an upgrade finds is already interleaved. Jobs not due yet wait for the promotion.
UPDATE jobs j SET fair_tag = t.tag
  FROM (SELECT id, (row_number() OVER (PARTITION BY priority, owner ORDER BY run_at, id) - 1)::float8 AS tag
          FROM jobs WHERE state = 'queued' AND run_at <= now()) t
 WHERE j.id = t.id;

-- The claim order (replaces jobs_claim_idx): ready jobs only, so rows waiting for a later run_at
-- are not walked past.
DROP INDEX jobs_claim_idx;
CREATE INDEX jobs_fair_idx ON jobs (priority DESC, fair_tag, id) WHERE state = 'queued' AND fair_tag IS NOT NULL;
-- An owner's last queued tag (the tag after which its next job goes).
CREATE INDEX jobs_owner_fair_idx ON jobs (owner, priority, fair_tag) WHERE state = 'queued' AND fair_tag IS NOT NULL;
-- Jobs waiting to become ready, in the order the promotion tags them.
CREATE INDEX jobs_waiting_idx ON jobs (run_at, id) WHERE state = 'queued' AND fair_tag IS NULL;

-- The tags for a batch of jobs becoming ready, one per element of the parallel arrays (ord is the
-- element's 1-based position; an element whose priority is NULL gets no row). Jobs are grouped by (owner, priority) — by priority alone when
-- p_fair is false — and each group continues after its last queued tag, or starts at V:
-- greatest(fair_clock.v, the priority's first queued tag), so a stale clock costs nothing.
-- Cost: three index probes per group (fair_clock, the head of jobs_fair_idx, and
-- jobs_owner_fair_idx or the tail of jobs_fair_idx), none per job. Two batches of one owner
-- tagged at the same instant may share tags: ties are broken by id, and neither batch gains a
-- place on anyone else. PL/pgSQL, so that it is never inlined: inlined into the enqueue, it made
-- that prepared statement's plan complex enough for PostgreSQL to re-plan it at every call
-- (custom plans, ~1 ms each). PL/pgSQL's own plan cache made the same choice for the query
-- below (p_fair known makes a custom plan look cheaper), hence force_generic_plan: planned once
-- per connection (one job per insert: 1.5 ms → 0.6 ms; 0.4–0.5 ms without fair tags). The
-- probes are LIMIT 1 walks of an index in its order, the plan the planner picks unpinned.
CREATE FUNCTION atelier_fair_tags(p_fair boolean, p_owners text[], p_priorities integer[])
RETURNS TABLE (ord bigint, tag double precision)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH input AS (
        SELECT i.ord, CASE WHEN p_fair THEN i.owner END AS owner, i.priority::smallint AS priority
          FROM unnest(p_owners, p_priorities) WITH ORDINALITY AS i(owner, priority, ord)
         WHERE i.priority IS NOT NULL  -- a job not due yet: no tag
    ), starts AS MATERIALIZED (
        -- Once per group: left to the planner, the probes below ran once per job.
        SELECT g.owner, g.priority,
               greatest(
                   coalesce((SELECT c.v FROM fair_clock c WHERE c.priority = g.priority), 0),
                   coalesce((SELECT h.fair_tag FROM jobs h
                              WHERE h.state = 'queued' AND h.fair_tag IS NOT NULL AND h.priority = g.priority
                              ORDER BY h.priority DESC, h.fair_tag LIMIT 1), 0),
                   CASE WHEN g.owner IS NULL
                        THEN (SELECT t.fair_tag + 1 FROM jobs t
                               WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL AND t.priority = g.priority
                               ORDER BY t.priority DESC, t.fair_tag DESC LIMIT 1)
                        ELSE (SELECT t.fair_tag + 1 FROM jobs t
                               WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL
                                 AND t.owner = g.owner AND t.priority = g.priority
                               ORDER BY t.owner DESC, t.priority DESC, t.fair_tag DESC LIMIT 1) END) AS base
          FROM (SELECT DISTINCT i.owner, i.priority FROM input i) g
    )
    SELECT i.ord, s.base + (row_number() OVER (PARTITION BY i.owner, i.priority ORDER BY i.ord) - 1)::float8
      FROM input i
      JOIN starts s ON s.owner IS NOT DISTINCT FROM i.owner AND s.priority = i.priority;
END $$;

-- The claim (0013's, in fair_tag order, returning 0016's timeout). PL/pgSQL, for one reason: the
-- promotion — up to 256 jobs whose run_at has come get their tags, in run_at order, SKIP LOCKED
-- so concurrent claims share the work — runs only when such a job exists (one probe of
-- jobs_waiting_idx), so an ordinary claim pays neither its UPDATE nor that UPDATE's statement
-- trigger. The claim proper runs after it, in a statement of its own, so it sees the promoted
-- rows; it is 0013's walking jobs_fair_idx, clearing the tags it takes and moving fair_clock.
-- Every column is qualified, and `#variable_conflict use_column` says a bare name is a column:
-- the output columns (id, kind …) are PL/pgSQL variables too.
DROP FUNCTION atelier_claim(text, text[], text[], integer, bigint, bigint);
CREATE FUNCTION atelier_claim(p_worker text, p_queues text[], p_kinds text[], p_limit integer, p_lease_ms bigint,
                              p_isolation_wait_ms bigint, p_fair boolean)
RETURNS TABLE (id uuid, kind text, queue text, priority integer, owner text, payload text,
               attempt integer, max_attempts integer, request_id text, created_at timestamptz, crashes integer,
               snoozes integer, snooze_streak integer, run_alone boolean, timeout_ms integer)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
#variable_conflict use_column
BEGIN
    IF EXISTS (SELECT 1 FROM jobs d WHERE d.state = 'queued' AND d.fair_tag IS NULL AND d.run_at <= now()) THEN
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

    RETURN QUERY
        WITH open AS MATERIALIZED (
            -- p_queues less the paused ones; read below as `(SELECT …)::text[]`: an array for ANY,
            -- not a subquery.
            SELECT ARRAY(SELECT q FROM unnest(p_queues) q
                         WHERE q NOT IN (SELECT p.name FROM queues p WHERE p.paused)) AS queues
        ), mine AS MATERIALIZED (
            -- What p_worker runs now: its claims whose completion has not landed (jobs_running_idx).
            SELECT count(*) AS running, coalesce(bool_or(r.run_alone), false) AS alone
              FROM jobs r WHERE r.state = 'running' AND r.lease_owner = p_worker
        ), lone AS MATERIALIZED (
            SELECT n.id, n.priority, n.fair_tag FROM jobs n
             WHERE n.state = 'queued' AND n.run_alone AND n.run_at <= now() AND n.kind = ANY (p_kinds)
               AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
               AND (SELECT m.running FROM mine m) = 0
             ORDER BY n.priority DESC, n.run_at, n.id
             LIMIT 1
               FOR UPDATE SKIP LOCKED
        ), next AS MATERIALIZED (
            SELECT n.id, n.priority, n.fair_tag FROM jobs n
             WHERE n.state = 'queued' AND n.fair_tag IS NOT NULL AND NOT n.run_alone AND n.run_at <= now()
               AND n.kind = ANY (p_kinds)
               AND n.queue = ANY ((SELECT o.queues FROM open o)::text[])
               AND NOT EXISTS (SELECT 1 FROM lone)
               AND NOT (SELECT m.alone FROM mine m)
               AND ((SELECT m.running FROM mine m) = 0 OR NOT EXISTS (
                    SELECT 1 FROM jobs w
                     WHERE w.state = 'queued' AND w.run_alone
                       AND w.run_at <= now() - p_isolation_wait_ms * interval '1 millisecond'
                       AND w.kind = ANY (p_kinds) AND w.queue = ANY ((SELECT o.queues FROM open o)::text[])))
             ORDER BY n.priority DESC, n.fair_tag, n.id
             LIMIT p_limit
               FOR UPDATE SKIP LOCKED
        ), picked AS (
            SELECT l.id, l.priority, l.fair_tag FROM lone l UNION ALL SELECT x.id, x.priority, x.fair_tag FROM next x
        ), served AS (
            -- The highest tag taken per priority: where V moves to.
            SELECT p.priority, max(p.fair_tag) AS tag FROM picked p WHERE p.fair_tag IS NOT NULL GROUP BY p.priority
        ), clock_moved AS (
            UPDATE fair_clock c SET v = s.tag FROM served s WHERE c.priority = s.priority AND c.v <= s.tag - 64
        ), clock_made AS (
            INSERT INTO fair_clock (priority, v) SELECT s.priority, s.tag FROM served s ON CONFLICT (priority) DO NOTHING
        ), claimed AS (
            UPDATE jobs j
               SET state = 'running', attempt = j.attempt + 1, lease_owner = p_worker, fair_tag = NULL,
                   lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
                   started_at = coalesce(j.started_at, now()), updated_at = now()
              FROM picked WHERE j.id = picked.id
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
               c.request_id, c.created_at, c.crashes, c.snoozes, c.snooze_streak, c.run_alone, c.timeout_ms
          FROM claimed c
         ORDER BY c.priority DESC, c.id;
END $$;
