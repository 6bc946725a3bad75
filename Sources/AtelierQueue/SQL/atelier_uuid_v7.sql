-- A UUIDv7 made in SQL (PostgreSQL 18 has uuidv7(); this works on 13+): 48-bit Unix
-- milliseconds over a random v4 UUID, version bits set to 7, variant kept. Follow-up jobs' ids.
CREATE OR REPLACE FUNCTION atelier_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                  PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                  FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
