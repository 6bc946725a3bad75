-- The floor: one tagged job by a plain INSERT in autocommit (triggers fire; no tag computed).
\set o random(0, 3)
INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, run_at, request_id, fair_tag) VALUES (gen_random_uuid(), 'noop', 'default', 0, 'owner' || :o, '{}', 3, now(), 'req', 1);
