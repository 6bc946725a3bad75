-- The apps' tables as the single migration line left them at its version 33, the first version
-- of the apps' own line: accounts and their tokens, app tokens, documents and reviews, indexed
-- items (pgvector). Nothing here refers to the queue's tables, and the queue refers to none of
-- these; read the whole schema in docs/schema.sql.

-- pgvector. In the containers the superuser has created it already, and the role that migrates
-- owns the database but not the extension: nothing here may need the extension's owner.
CREATE EXTENSION IF NOT EXISTS vector;

-- Accounts: users (scrypt passwords or Sign in with Apple), disabled ones notified at once.
CREATE TABLE users (
    id uuid NOT NULL,
    email text,
    name text DEFAULT ''::text NOT NULL,
    role text DEFAULT 'user'::text NOT NULL,
    permissions text[] DEFAULT '{}'::text[] NOT NULL,
    apple_sub text,
    password_hash text,
    disabled_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_role_check CHECK ((role ~ '^[a-z][a-z0-9_.-]{0,31}$'::text))
);

ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

CREATE UNIQUE INDEX users_apple_sub_idx ON users USING btree (apple_sub) WHERE (apple_sub IS NOT NULL);

CREATE UNIQUE INDEX users_email_idx ON users USING btree (lower(email)) WHERE (email IS NOT NULL);


-- Refresh tokens, rotated within a family; a reused one revokes its family.
CREATE TABLE refresh_tokens (
    token_hash text NOT NULL,
    user_id uuid NOT NULL,
    family uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    signed_in_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash);

CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens USING btree (expires_at);

CREATE INDEX refresh_tokens_family_idx ON refresh_tokens USING btree (family);

CREATE INDEX refresh_tokens_user_idx ON refresh_tokens USING btree (user_id);

ALTER TABLE ONLY refresh_tokens
    ADD CONSTRAINT refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;


-- Access tokens revoked before their expiry (sign-out), until they expire.
CREATE TABLE revoked_access_tokens (
    jti uuid NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY revoked_access_tokens
    ADD CONSTRAINT revoked_access_tokens_pkey PRIMARY KEY (jti);

CREATE INDEX revoked_access_tokens_expires_idx ON revoked_access_tokens USING btree (expires_at);


-- Apple identity tokens already used, so one cannot be replayed before it expires.
CREATE TABLE apple_identity_uses (
    token_hash text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY apple_identity_uses
    ADD CONSTRAINT apple_identity_uses_pkey PRIMARY KEY (token_hash);

CREATE INDEX apple_identity_uses_expires_idx ON apple_identity_uses USING btree (expires_at);


-- App tokens: the credentials API clients present; only a SHA-256 of each is stored.
CREATE TABLE app_tokens (
    id uuid NOT NULL,
    name text NOT NULL,
    owner text NOT NULL,
    token_hash text NOT NULL,
    prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

ALTER TABLE ONLY app_tokens
    ADD CONSTRAINT app_tokens_pkey PRIMARY KEY (id);

ALTER TABLE ONLY app_tokens
    ADD CONSTRAINT app_tokens_token_hash_key UNIQUE (token_hash);

CREATE UNIQUE INDEX app_tokens_live_name_idx ON app_tokens USING btree (name) WHERE (revoked_at IS NULL);


-- Text documents (a question and its answer), indexed by `index` jobs that read the text
-- when they run; the Learn Assistant's knowledge points are those of collection `learn`.
CREATE TABLE documents (
    id uuid NOT NULL,
    owner text NOT NULL,
    collection text DEFAULT 'documents'::text NOT NULL,
    question text NOT NULL,
    answer text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    in_review_plan boolean DEFAULT false NOT NULL
);

ALTER TABLE ONLY documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);

CREATE INDEX documents_owner ON documents USING btree (owner, collection, created_at DESC);


-- The Learn Assistant's reviews of its knowledge points.
CREATE TABLE reviews (
    id uuid NOT NULL,
    document_id uuid NOT NULL,
    owner text NOT NULL,
    review_number smallint NOT NULL,
    review_date date NOT NULL,
    completed_at timestamp with time zone,
    recall_text text
);

ALTER TABLE ONLY reviews
    ADD CONSTRAINT reviews_document_id_review_number_key UNIQUE (document_id, review_number);

ALTER TABLE ONLY reviews
    ADD CONSTRAINT reviews_pkey PRIMARY KEY (id);

CREATE INDEX reviews_due ON reviews USING btree (owner, review_date) WHERE (completed_at IS NULL);

ALTER TABLE ONLY reviews
    ADD CONSTRAINT reviews_document_id_fkey FOREIGN KEY (document_id) REFERENCES documents(id) ON DELETE CASCADE;


-- Semantic search: indexed items and their MiniLM embeddings (pgvector).
CREATE TABLE indexed_items (
    id uuid NOT NULL,
    owner text NOT NULL,
    collection text DEFAULT 'default'::text NOT NULL,
    source_kind text NOT NULL,
    source_key text NOT NULL,
    job_id uuid,
    image_path text,
    text text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    embedding vector(384) NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT indexed_items_source_kind_check CHECK ((source_kind = ANY (ARRAY['image'::text, 'text'::text])))
);

ALTER TABLE ONLY indexed_items
    ADD CONSTRAINT indexed_items_owner_collection_source_key_key UNIQUE (owner, collection, source_key);

ALTER TABLE ONLY indexed_items
    ADD CONSTRAINT indexed_items_pkey PRIMARY KEY (id);

CREATE INDEX indexed_items_embedding ON indexed_items USING hnsw (embedding vector_cosine_ops);

CREATE INDEX indexed_items_owner ON indexed_items USING btree (owner, collection);


-- functions
CREATE FUNCTION atelier_notify_access_revoked() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'jti:' || NEW.jti);
    RETURN NULL;
END $$;

CREATE FUNCTION atelier_notify_tokens() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('atelier_tokens', 'changed');
    RETURN NULL;
END $$;

CREATE FUNCTION atelier_notify_user_disabled() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.disabled_at IS DISTINCT FROM OLD.disabled_at THEN
        PERFORM pg_notify('atelier_tokens', 'user:' || NEW.id);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION atelier_purge_sign_ins() RETURNS bigint
    LANGUAGE plpgsql
    AS $$
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


-- triggers
CREATE TRIGGER app_tokens_notify AFTER DELETE OR UPDATE OF revoked_at ON app_tokens FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_tokens();

CREATE TRIGGER revoked_access_tokens_notify AFTER INSERT ON revoked_access_tokens FOR EACH ROW EXECUTE FUNCTION atelier_notify_access_revoked();

CREATE TRIGGER users_disabled_notify AFTER UPDATE OF disabled_at ON users FOR EACH ROW EXECUTE FUNCTION atelier_notify_user_disabled();
