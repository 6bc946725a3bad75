-- Today's worker round as bare SQL: complete the batch this client holds (one transaction),
-- then claim the next (another). pgbench keeps the batch in :ids/:attempts/:n between rounds.
SELECT count(*) FROM atelier_complete(:ids::uuid[], :attempts::integer[],
                                      array_fill('succeeded'::text, ARRAY[:n::integer]), array_fill(''::text, ARRAY[:n::integer]),
                                      array_fill(''::text, ARRAY[:n::integer]), array_fill(0::float8, ARRAY[:n::integer]),
                                      'pgbench-' || :client_id);
SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(attempt), '{}') AS attempts, count(*) AS n
  FROM atelier_claim('pgbench-' || :client_id, ARRAY['default'], ARRAY['noop'], :batch, 30000, 5000, true)
\gset
