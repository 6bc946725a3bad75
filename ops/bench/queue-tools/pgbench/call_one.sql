-- One job through the API's enqueue statement (CALL atelier_enqueue_jobs, a batch of one).
-- PGOPTIONS="-c synchronous_commit=off" pgbench -n -M prepared -c 1 -t 2000 -f THIS DB  (docs/benchmarks/api.md, "Uploads under a burst")
\set o random(0, 3)
CALL atelier_enqueue_jobs(ARRAY[gen_random_uuid()], ARRAY['noop'], ARRAY['default'], ARRAY[0], ARRAY['owner' || :o], ARRAY['{}'], ARRAY[3], ARRAY[-1::float8], ARRAY[''], ARRAY['req'], ARRAY[''], ARRAY[''], true, ARRAY[0], ARRAY[''], ARRAY[0], NULL);
