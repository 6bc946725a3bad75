-- 0010 — accounts: users who sign in (email and password, or Apple), their refresh tokens, and
-- access tokens revoked before they expire.
CREATE TABLE users (
    id            uuid        PRIMARY KEY,
    email         text,                                  -- as given; unique without regard to case
    name          text        NOT NULL DEFAULT '',
    role          text        NOT NULL DEFAULT 'user' CHECK (role ~ '^[a-z][a-z0-9_.-]{0,31}$'),
    permissions   text[]      NOT NULL DEFAULT '{}',
    apple_sub     text,                                  -- Apple's `sub` for Sign in with Apple
    password_hash text,                                  -- scrypt$…; NULL: no password sign-in
    disabled_at   timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_idx ON users (lower(email)) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX users_apple_sub_idx ON users (apple_sub) WHERE apple_sub IS NOT NULL;

-- Refresh tokens: only a SHA-256 of each is kept. A family is the chain rotated from one
-- sign-in; a spent token presented again revokes its family.
CREATE TABLE refresh_tokens (
    token_hash text        PRIMARY KEY,                  -- hex sha256(token)
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    family     uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,                              -- rotated: spent
    revoked_at timestamptz
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id);

-- Access tokens (JWTs) revoked by logout, kept until they would have expired.
CREATE TABLE revoked_access_tokens (
    jti        uuid        PRIMARY KEY,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz NOT NULL DEFAULT now()
);

-- API processes keep revoked access tokens and disabled users in memory; tell them at once.
CREATE FUNCTION atelier_notify_access_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'jti:' || NEW.jti);
    RETURN NULL;
END $$;
CREATE TRIGGER revoked_access_tokens_notify AFTER INSERT ON revoked_access_tokens
    FOR EACH ROW EXECUTE FUNCTION atelier_notify_access_revoked();

CREATE FUNCTION atelier_notify_user_disabled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.disabled_at IS DISTINCT FROM OLD.disabled_at THEN
        PERFORM pg_notify('atelier_tokens', 'user:' || NEW.id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER users_disabled_notify AFTER UPDATE OF disabled_at ON users
    FOR EACH ROW EXECUTE FUNCTION atelier_notify_user_disabled();
