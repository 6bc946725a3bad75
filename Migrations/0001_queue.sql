-- 0001 — the durable job queue: jobs, their events, queues (pause state) and live workers.
-- Applied by `atelier migrate` inside one transaction. Never edit an applied migration:
-- add a new numbered file instead.

-- ---------------------------------------------------------------------------------------
-- jobs: one row per job. State machine:
--   queued → running → succeeded | failed | cancelled
--   running → queued (retry with backoff, lease lost, worker drained)
CREATE TABLE jobs (
    id               uuid        PRIMARY KEY,              -- UUIDv7, made by the enqueuer
    kind             text        NOT NULL,                 -- handler name: caption, stylize, noop …
    queue            text        NOT NULL DEFAULT 'default',
    state            text        NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    priority         smallint    NOT NULL DEFAULT 0,       -- higher runs first
    owner            text        NOT NULL DEFAULT 'system',
    payload          jsonb       NOT NULL DEFAULT '{}',
    result           jsonb,
    error            text,                                 -- last error, user-facing
    errors           jsonb       NOT NULL DEFAULT '[]',    -- history: [{attempt, at, error}]
    attempt          integer     NOT NULL DEFAULT 0,       -- claims so far (the current one when running)
    max_attempts     integer     NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
    run_at           timestamptz NOT NULL DEFAULT now(),   -- not claimable before this
    lease_owner      text,                                 -- workers.id while running
    lease_expires_at timestamptz,
    progress         smallint    NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    progress_step    text,
    cancel_requested boolean     NOT NULL DEFAULT false,
    idempotency_key  text,
    request_id       text,
    parent_id        uuid        REFERENCES jobs (id) ON DELETE SET NULL, -- a job enqueued by another
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,                          -- first claim
    finished_at      timestamptz                           -- set with a terminal state
) WITH (fillfactor = 80);   -- room on each page so lease heartbeats stay HOT updates

-- The claim scans only queued rows, already in claim order: O(batch), not O(table).
CREATE INDEX jobs_claim_idx ON jobs (priority DESC, run_at, id) WHERE state = 'queued';
-- The lease rescuer and heartbeats look at running rows only.
CREATE INDEX jobs_running_idx ON jobs (lease_owner) WHERE state = 'running';
-- Purge and throughput statistics look at finished rows by age.
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE finished_at IS NOT NULL;
-- A repeated request with the same Idempotency-Key returns the same job.
CREATE UNIQUE INDEX jobs_idempotency_idx ON jobs (owner, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_parent_idx ON jobs (parent_id) WHERE parent_id IS NOT NULL;

ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- ---------------------------------------------------------------------------------------
-- job_events: every state and progress change, ordered. The id doubles as the SSE event id.
CREATE TABLE job_events (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id     uuid        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    type       text        NOT NULL,   -- running, progress, retrying, requeued, succeeded, failed, cancelled
    data       jsonb       NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_job_idx ON job_events (job_id, id);

-- ---------------------------------------------------------------------------------------
-- queues: one row per queue that an operator paused or resumed. Absent means active.
CREATE TABLE queues (
    name       text        PRIMARY KEY,
    paused     boolean     NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------------
-- workers: the registry of worker processes. A live worker holds the session advisory lock
-- (1095036498, lock_key) on its listener connection; the lock vanishes the instant the process
-- dies, which is how its jobs are rescued within about a second instead of a lease period.
CREATE TABLE workers (
    id           text        PRIMARY KEY,                -- host/pid/random
    lock_key     integer     NOT NULL UNIQUE GENERATED ALWAYS AS IDENTITY (CYCLE),
    host         text        NOT NULL,
    pid          integer     NOT NULL,
    queues       text[]      NOT NULL,
    kinds        text[]      NOT NULL,
    concurrency  integer     NOT NULL,
    version      text        NOT NULL,
    running      integer     NOT NULL DEFAULT 0,
    processed    bigint      NOT NULL DEFAULT 0,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------------
-- Wake-ups. One notification per statement, not per row:
--   atelier_jobs        payload = queue name; a job became claimable now (insert, retry, rescue).
--   atelier_job_events  payload = "job_id:event_id,…"; for live event streams.
--   atelier_cancel      payload = job id; sent by the cancel statement itself.
CREATE FUNCTION atelier_notify_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('atelier_jobs', q.queue)
       FROM (SELECT DISTINCT queue FROM new_rows
              WHERE state = 'queued' AND run_at <= now()) AS q;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify_insert AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_claimable();
CREATE TRIGGER jobs_notify_update AFTER UPDATE ON jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_claimable();

CREATE FUNCTION atelier_notify_job_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Chunks of 100 ids keep each payload far below NOTIFY's 8000-byte limit.
    PERFORM pg_notify('atelier_job_events', c.ids)
       FROM (SELECT string_agg(job_id::text || ':' || id::text, ',') AS ids
               FROM (SELECT job_id, id, (row_number() OVER ()) / 100 AS chunk FROM new_events) e
              GROUP BY chunk) AS c;
    RETURN NULL;
END $$;

CREATE TRIGGER job_events_notify AFTER INSERT ON job_events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION atelier_notify_job_events();
