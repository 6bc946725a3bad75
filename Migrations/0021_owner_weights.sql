-- 0021 — fair share weighted by owner: an owner of weight 2 is served two jobs for every one of
-- an owner of weight 1, while both have jobs queued (`atelier weights set OWNER W`).
--
-- Start-time fair queuing with weights (Goyal, Vin & Cheng 1996): a job of owner o with weight w
-- takes the turn its owner's previous queued job took plus 1/w, or the turn being served when
-- the owner has nothing queued. Owners without a row weigh 1, so with no weights the tags are
-- 0017's exactly. Weights count only with fair share on (p_fair); a change applies to jobs
-- tagged from then on (the queued ones keep their turns).
CREATE TABLE owner_weights (
    owner text PRIMARY KEY CHECK (char_length(owner) BETWEEN 1 AND 200),
    weight double precision NOT NULL CHECK (weight >= 0.01 AND weight <= 100),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL
);

-- 0017's function with a step of 1/weight per job in place of 1 (one primary-key probe of
-- owner_weights per owner in the batch).
CREATE OR REPLACE FUNCTION atelier_fair_tags(p_fair boolean, p_owners text[], p_priorities integer[])
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
        SELECT g.owner, g.priority, s.step,
               greatest(
                   coalesce((SELECT c.v FROM fair_clock c WHERE c.priority = g.priority), 0),
                   coalesce((SELECT h.fair_tag FROM jobs h
                              WHERE h.state = 'queued' AND h.fair_tag IS NOT NULL AND h.priority = g.priority
                              ORDER BY h.priority DESC, h.fair_tag LIMIT 1), 0),
                   CASE WHEN g.owner IS NULL
                        THEN (SELECT t.fair_tag + 1 FROM jobs t
                               WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL AND t.priority = g.priority
                               ORDER BY t.priority DESC, t.fair_tag DESC LIMIT 1)
                        ELSE (SELECT t.fair_tag + s.step FROM jobs t
                               WHERE t.state = 'queued' AND t.fair_tag IS NOT NULL
                                 AND t.owner = g.owner AND t.priority = g.priority
                               ORDER BY t.owner DESC, t.priority DESC, t.fair_tag DESC LIMIT 1) END) AS base
          FROM (SELECT DISTINCT i.owner, i.priority FROM input i) g
          CROSS JOIN LATERAL (SELECT coalesce((SELECT 1 / w.weight FROM owner_weights w WHERE w.owner = g.owner), 1)::float8 AS step) s
    )
    SELECT i.ord, s.base + (row_number() OVER (PARTITION BY i.owner, i.priority ORDER BY i.ord) - 1)::float8 * s.step
      FROM input i
      JOIN starts s ON s.owner IS NOT DISTINCT FROM i.owner AND s.priority = i.priority;
END $$;
