-- bench_time(queries, runs): runs the statements of one reader (a surface: `queue stats`,
-- /metrics, the overview) `runs` times, each statement planned and executed as the client's
-- unnamed statements are, every row fetched; the median and the slowest run, in milliseconds.
CREATE FUNCTION bench_time(queries text[], runs int) RETURNS TABLE (p50_ms float8, max_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times float8[] := '{}';
    q text;
    r record;
BEGIN
    FOR i IN 1..runs LOOP
        t0 := clock_timestamp();
        FOREACH q IN ARRAY queries LOOP
            FOR r IN EXECUTE q LOOP END LOOP;
        END LOOP;
        times := times || (extract(epoch FROM clock_timestamp() - t0) * 1000)::float8;
    END LOOP;
    RETURN QUERY SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t)::numeric, 2)::float8,
                        round(max(t)::numeric, 2)::float8
                   FROM unnest(times) t;
END $$;
