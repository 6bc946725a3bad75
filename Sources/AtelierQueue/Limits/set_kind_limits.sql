-- Changes one kind's limits (JobQueue.setKindLimits): each of the four is kept ($2, $4, $6, $9
-- true) or replaced by the value beside it (NULL removes it). A change that leaves no limit
-- deletes the row. A new rate refills the bucket. One audit row says who changed what.
--   $1 kind
--   $2 keep concurrency          $3 concurrency
--   $4 keep owner_concurrency    $5 owner_concurrency
--   $6 keep rate                 $7 rate        $8 rate_period_ms
--   $9 keep timeout_ms           $10 timeout_ms
--   $11 actor
WITH old AS (
    SELECT * FROM kind_limits WHERE kind = $1 FOR UPDATE
), merged AS (
    SELECT $1::text AS kind,
           CASE WHEN $2::boolean THEN (SELECT o.concurrency FROM old o) ELSE $3::integer END AS concurrency,
           CASE WHEN $4::boolean THEN (SELECT o.owner_concurrency FROM old o) ELSE $5::integer END AS owner_concurrency,
           CASE WHEN $6::boolean THEN (SELECT o.rate FROM old o) ELSE $7::integer END AS rate,
           CASE WHEN $6::boolean THEN (SELECT o.rate_period_ms FROM old o) ELSE $8::bigint END AS rate_period_ms,
           CASE WHEN $9::boolean THEN (SELECT o.timeout_ms FROM old o) ELSE $10::integer END AS timeout_ms
), removed AS (
    DELETE FROM kind_limits l USING merged m
     WHERE l.kind = m.kind AND num_nonnulls(m.concurrency, m.owner_concurrency, m.rate, m.timeout_ms) = 0
    RETURNING l.kind
), saved AS (
    INSERT INTO kind_limits AS l (kind, concurrency, owner_concurrency, rate, rate_period_ms, timeout_ms, updated_by)
    SELECT m.kind, m.concurrency, m.owner_concurrency, m.rate, m.rate_period_ms, m.timeout_ms, $11::text
      FROM merged m WHERE num_nonnulls(m.concurrency, m.owner_concurrency, m.rate, m.timeout_ms) > 0
    ON CONFLICT (kind) DO UPDATE
       SET concurrency = EXCLUDED.concurrency, owner_concurrency = EXCLUDED.owner_concurrency,
           rate = EXCLUDED.rate, rate_period_ms = EXCLUDED.rate_period_ms, timeout_ms = EXCLUDED.timeout_ms,
           tokens = CASE WHEN l.rate IS NOT DISTINCT FROM EXCLUDED.rate AND l.rate_period_ms IS NOT DISTINCT FROM EXCLUDED.rate_period_ms
                         THEN l.tokens END,
           tokens_at = CASE WHEN l.rate IS NOT DISTINCT FROM EXCLUDED.rate AND l.rate_period_ms IS NOT DISTINCT FROM EXCLUDED.rate_period_ms
                            THEN l.tokens_at END,
           updated_at = now(), updated_by = EXCLUDED.updated_by
    RETURNING l.kind, l.concurrency, l.owner_concurrency, l.rate, l.rate_period_ms, l.timeout_ms, l.updated_at, l.updated_by
), audited AS (
    INSERT INTO audit_log (actor, action, target, detail)
    SELECT $11::text, CASE WHEN EXISTS (SELECT 1 FROM removed) THEN 'clear limits' ELSE 'set limits' END, 'kind:' || m.kind,
           nullif(concat_ws(', ', 'concurrency ' || m.concurrency, 'per owner ' || m.owner_concurrency,
                            'rate ' || m.rate || ' per ' || m.rate_period_ms || 'ms', 'timeout ' || m.timeout_ms || 'ms'), '')
      FROM merged m
     WHERE EXISTS (SELECT 1 FROM saved) OR EXISTS (SELECT 1 FROM removed)
)
SELECT s.kind, s.concurrency, s.owner_concurrency, s.rate, s.rate_period_ms, s.timeout_ms, s.updated_at, s.updated_by FROM saved s
