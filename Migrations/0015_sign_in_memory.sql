-- 0015 — sign-ins remember what they spent, and forget it once it cannot matter.
--
-- An identity token from Sign in with Apple is good for minutes and carries no nonce we set:
-- replayed within its lifetime it minted a session each time. Each one spent is kept here (its
-- SHA-256) until it expires; a second sign-in with it is refused (issue 29).
CREATE TABLE apple_identity_uses (
    token_hash text        PRIMARY KEY,                  -- hex sha256(identity token)
    expires_at timestamptz NOT NULL
);
CREATE INDEX apple_identity_uses_expires_idx ON apple_identity_uses (expires_at);

-- What the maintenance leader calls every housekeeping round: refresh tokens that have expired
-- (spent ones are kept until then, so a replay of one still ends its family) or were revoked a
-- day ago, and spent identity tokens that have expired. Here, beside the tables, so the worker
-- knows nothing of accounts but this name. Returns the rows removed.
CREATE FUNCTION atelier_purge_sign_ins() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    refresh bigint;
    identity bigint;
BEGIN
    DELETE FROM refresh_tokens WHERE expires_at < now() OR revoked_at < now() - interval '1 day';
    GET DIAGNOSTICS refresh = ROW_COUNT;
    DELETE FROM apple_identity_uses WHERE expires_at < now();
    GET DIAGNOSTICS identity = ROW_COUNT;
    RETURN refresh + identity;
END $$;
