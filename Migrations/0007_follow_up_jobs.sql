-- 0007 — follow-up jobs: a job may carry the jobs to enqueue when it succeeds. The completion
-- statement inserts them in the same statement that records the success (so a follow-up is
-- enqueued exactly once, and never for a job that failed or was cancelled), owned by the same
-- owner, with parent_id naming the job that led to them.
--
-- follow_up: a JSON array of {kind, payload?, queue?, priority?, max_attempts?, follow_up?}.
ALTER TABLE jobs ADD COLUMN follow_up jsonb
    CHECK (follow_up IS NULL OR jsonb_typeof(follow_up) = 'array');

-- A UUIDv7 made in SQL (PostgreSQL 18 has uuidv7(); this works on 13+): 48-bit Unix
-- milliseconds over a random v4 UUID, version bits set to 7, variant kept.
CREATE FUNCTION atelier_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                  PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                  FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
