-- A hundred jobs in one statement.
INSERT INTO jobs (id, kind, owner, fair_tag)
SELECT gen_random_uuid(), 'noop', 'user:' || (:client_id * 100 + i % 10), random() * 1000 FROM generate_series(1, 100) i;
