-- 0018 — unique jobs: an enqueue that names a unique key gets the existing job back.
--
-- While a job of the same owner, kind and unique_key is queued or running, or finished within
-- the period the new enqueue asks for, the enqueue returns that job instead of making another
-- (NewJob.unique; `"unique": {"key", "period_s"}` on POST /v1/jobs, the key defaulting to a hash
-- of the kind and the request's input). Unlike the idempotency key, which names one request for
-- ever, a unique key names work: the same work may run again once the period is over.
--
-- Enqueues of one (owner, kind, key) are serialised by a transaction-scoped advisory lock taken
-- before the look for an existing job (Sources/AtelierQueue/Enqueue/JobQueue+Unique.swift); the
-- look runs after the lock is granted, in a statement of its own, so it sees a job the previous
-- holder committed. This index answers the look.
ALTER TABLE jobs ADD COLUMN unique_key text CHECK (unique_key IS NULL OR length(unique_key) BETWEEN 1 AND 255);
CREATE INDEX jobs_unique_idx ON jobs (owner, kind, unique_key, created_at DESC) WHERE unique_key IS NOT NULL;
