-- 0003 — app tokens: the credentials API clients present (X-App-Token or Authorization: Bearer).
-- Only a SHA-256 of each token is stored; the token itself is shown once, at creation.
CREATE TABLE app_tokens (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL,
    owner        text        NOT NULL,                -- jobs created with this token belong to it
    token_hash   text        NOT NULL UNIQUE,         -- hex sha256(token)
    prefix       text        NOT NULL,                -- first characters, to recognise a token in lists
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
-- Names identify live tokens for `atelier tokens revoke NAME`.
CREATE UNIQUE INDEX app_tokens_live_name_idx ON app_tokens (name) WHERE revoked_at IS NULL;

-- API processes cache tokens; a revocation tells them at once.
CREATE FUNCTION atelier_notify_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'changed');
    RETURN NULL;
END $$;

CREATE TRIGGER app_tokens_notify AFTER UPDATE OF revoked_at OR DELETE ON app_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_tokens();
