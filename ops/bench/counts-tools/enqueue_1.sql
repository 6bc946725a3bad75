-- One job per statement, tagged as the enqueue tags a job due now (a simpler statement than the
-- real enqueue's, so the triggers' share of it is if anything overstated).
INSERT INTO jobs (id, kind, owner, fair_tag) VALUES (gen_random_uuid(), 'noop', 'user:' || :client_id, random() * 1000);
