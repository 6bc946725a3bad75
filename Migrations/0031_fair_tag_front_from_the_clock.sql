-- 0031 — a job's fair tag reads the front of the line from the clock on, and is computed in one
-- place.
--
--   atelier_fair_tag(…)    the later of the priority's clock (fair_clock.v), the first queued tag
--                          at or after the clock, and the owner's last queued tag plus one step
--                          (with fair share off: the last queued tag plus one).
--   atelier_fair_tags(…)   a batch's tags: atelier_fair_tag once per (owner, priority) of the
--                          batch, then one step per job after it. Before, it restated the rule.
--
-- Why: the front was the first queued tag of the priority, read from the start of
-- jobs_fair_idx. The start of that index is where claimed jobs leave their entries, dead until a
-- VACUUM removes them; every enqueue stepped over all of them (perf on a sustained run: 6.5 % of
-- PostgreSQL's CPU in that probe, the pages read growing with the jobs claimed since the last
-- VACUUM). The clock is at most 64 turns behind the highest tag claimed (0017), so the probe now
-- starts at the clock and steps over the few claimed since it moved (FairTagTests).
--
-- What changes: a queued tag below the clock (a job of a paused queue, or of a kind held by its
-- limit, while other queues or kinds are served past it) no longer pulls the front below the
-- clock, which did not matter — the clock won — and the front is now the first tag at or after
-- the clock rather than the clock itself: a newcomer starts at the turn the claims are at, not up
-- to 64 turns before it.
CREATE OR REPLACE FUNCTION atelier_fair_tag(p_fair boolean, p_owner text, p_priority integer)
RETURNS double precision
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET enable_incremental_sort = off
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

CREATE OR REPLACE FUNCTION atelier_fair_tags(p_fair boolean, p_owners text[], p_priorities integer[])
RETURNS TABLE (ord bigint, tag double precision)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET enable_incremental_sort = off
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
