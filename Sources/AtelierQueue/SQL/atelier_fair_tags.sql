-- A batch's fair tags, in the order of its jobs (ord): atelier_fair_tag once per (owner,
-- priority) of the batch, then one step per further job of the same owner and priority.
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
