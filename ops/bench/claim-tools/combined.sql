-- The same round in one statement and one transaction (migration 0023): complete the batch
-- this client holds and claim the next.
SELECT coalesce(array_agg(id) FILTER (WHERE id IS NOT NULL), '{}') AS ids,
       coalesce(array_agg(attempt) FILTER (WHERE id IS NOT NULL), '{}') AS attempts,
       count(id) AS n
  FROM atelier_complete_and_claim(:ids::uuid[], :attempts::integer[],
                                  array_fill('succeeded'::text, ARRAY[:n::integer]), array_fill(''::text, ARRAY[:n::integer]),
                                  array_fill(''::text, ARRAY[:n::integer]), array_fill(0::float8, ARRAY[:n::integer]),
                                  'pgbench-' || :client_id, ARRAY['default'], ARRAY['noop'], :batch, 30000, 5000, true)
\gset
