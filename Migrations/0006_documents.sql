-- Text documents (knowledge points: a question and its answer), indexed by `index` jobs that
-- read the current text when they run, so the last edit always wins whatever order jobs run in.
CREATE TABLE documents (
    id          uuid PRIMARY KEY,
    owner       text NOT NULL,
    collection  text NOT NULL DEFAULT 'documents',
    question    text NOT NULL,
    answer      text NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_owner ON documents (owner, collection, created_at DESC);
