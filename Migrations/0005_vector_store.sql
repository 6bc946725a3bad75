-- Semantic search: indexed items and their 384-dimension MiniLM vectors (pgvector).
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE indexed_items (
    id          uuid PRIMARY KEY,
    owner       text NOT NULL,
    collection  text NOT NULL DEFAULT 'default',
    source_kind text NOT NULL CHECK (source_kind IN ('image', 'text')),
    -- What was indexed, so indexing the same source again replaces its row: "job:<id>:<path>"
    -- for an image of a job, "document:<id>" for a text document, or the client's own key.
    source_key  text NOT NULL,
    job_id      uuid,
    image_path  text,
    text        text NOT NULL,               -- the caption or the document's text
    metadata    jsonb NOT NULL DEFAULT '{}',
    embedding   vector(384) NOT NULL,        -- unit length: cosine distance = 1 − dot product
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (owner, collection, source_key)
);

-- Approximate nearest neighbours by cosine distance. Filters (owner, collection) are applied
-- with pgvector 0.8's iterative index scans (SET hnsw.iterative_scan) so they keep their recall.
CREATE INDEX indexed_items_embedding ON indexed_items USING hnsw (embedding vector_cosine_ops);
CREATE INDEX indexed_items_owner ON indexed_items (owner, collection);
