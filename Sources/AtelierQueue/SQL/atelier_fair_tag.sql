-- A job's fair-share tag, the turn it is served at within its priority: the later of the
-- priority's clock (fair_clock.v), the first queued tag at or after the clock, and the owner's
-- last queued tag plus one step (the step is 1 / the owner's weight, owner_weights). With fair
-- share off: the last queued tag plus one, first come first served. The claim serves the lowest
-- tags first, so an owner with a backlog takes turns with a newcomer instead of going first.
--
-- The front is read from the clock on: jobs claimed since the last VACUUM leave dead entries at
-- the start of jobs_fair_idx, and a probe from there would step over all of them (FairTagTests).
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
