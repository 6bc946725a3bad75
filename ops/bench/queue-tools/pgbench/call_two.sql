-- Two jobs in one CALL: what the API's coalescer sends under a burst of uploads.
\set o random(0, 3)
CALL atelier_enqueue_jobs(ARRAY[gen_random_uuid(), gen_random_uuid()], ARRAY['noop','noop'], ARRAY['default','default'], ARRAY[0,0], ARRAY['owner' || :o, 'other'], ARRAY['{}','{}'], ARRAY[3,3], ARRAY[-1::float8,-1::float8], ARRAY['',''], ARRAY['req','req'], ARRAY['',''], ARRAY['',''], true, ARRAY[0,0], ARRAY['',''], ARRAY[0,0], NULL);
