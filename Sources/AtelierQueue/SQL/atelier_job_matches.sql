-- The job filter of bulk actions and the operators' job list (JobCriteria): kinds, states,
-- queues, owner, created and finished after or before, error text contains; an empty or NULL
-- criterion matches every job. One SQL expression, inlined by the planner where it is called.
CREATE OR REPLACE FUNCTION atelier_job_matches(
    j_kind text, j_state text, j_queue text, j_owner text, j_created_at timestamptz,
    j_finished_at timestamptz, j_error text,
    f_kinds text[], f_states text[], f_queues text[], f_owner text, f_created_after timestamptz,
    f_created_before timestamptz, f_finished_after timestamptz, f_finished_before timestamptz,
    f_error text)
RETURNS boolean
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
