-- 0011 — the Learn Assistant: knowledge points in review plans, and their reviews.
-- The Learn Assistant's knowledge points are documents in the collection `learn`; whether a
-- point is in the user's review plan is a column of every document (false for /v1 ones).
ALTER TABLE documents ADD COLUMN in_review_plan boolean NOT NULL DEFAULT false;

-- Spaced review: five reviews per point, made with it (+1, 3, 7, 14 and 30 days), kept when the
-- point is edited, gone with it. A review is due from its date (UTC) until completed.
CREATE TABLE reviews (
    id            uuid PRIMARY KEY,
    document_id   uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    owner         text NOT NULL,
    review_number smallint NOT NULL,
    review_date   date NOT NULL,
    completed_at  timestamptz,
    recall_text   text,
    UNIQUE (document_id, review_number)
);
CREATE INDEX reviews_due ON reviews (owner, review_date) WHERE completed_at IS NULL;
