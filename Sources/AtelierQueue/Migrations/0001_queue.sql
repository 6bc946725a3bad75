-- The queue's tables and indexes as the single migration line left them at its version 33, the
-- first version of the queue's own line: PostgreSQL alone, no extension. The queue's functions,
-- views and the triggers that call them are its definitions (Sources/AtelierQueue/SQL), applied
-- after this by the migrator; read the whole schema in docs/schema.sql.

-- Jobs: one row per job from enqueue to its end. The claim reads the partial indexes on
-- queued jobs (fair_tag set: in the fair-share line; NULL: waiting to be tagged or run later).
CREATE TABLE jobs (
    id uuid NOT NULL,
    kind text NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    owner text DEFAULT 'system'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    result jsonb,
    error text,
    errors jsonb DEFAULT '[]'::jsonb NOT NULL,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    progress smallint DEFAULT 0 NOT NULL,
    progress_step text,
    cancel_requested boolean DEFAULT false NOT NULL,
    idempotency_key text,
    request_id text,
    parent_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    follow_up jsonb,
    crashes integer DEFAULT 0 NOT NULL,
    crash_streak integer DEFAULT 0 NOT NULL,
    snoozes integer DEFAULT 0 NOT NULL,
    snooze_streak integer DEFAULT 0 NOT NULL,
    run_alone boolean DEFAULT false NOT NULL,
    timeout_ms integer,
    fair_tag double precision,
    unique_key text,
    CONSTRAINT jobs_crash_streak_check CHECK ((crash_streak >= 0)),
    CONSTRAINT jobs_crashes_check CHECK ((crashes >= 0)),
    CONSTRAINT jobs_follow_up_check CHECK (((follow_up IS NULL) OR (jsonb_typeof(follow_up) = 'array'::text))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT jobs_progress_check CHECK (((progress >= 0) AND (progress <= 100))),
    CONSTRAINT jobs_snooze_streak_check CHECK ((snooze_streak >= 0)),
    CONSTRAINT jobs_snoozes_check CHECK ((snoozes >= 0)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text]))),
    CONSTRAINT jobs_timeout_ms_check CHECK (((timeout_ms IS NULL) OR (timeout_ms > 0))),
    CONSTRAINT jobs_unique_key_check CHECK (((unique_key IS NULL) OR ((length(unique_key) >= 1) AND (length(unique_key) <= 255))))
)
WITH (fillfactor='80', autovacuum_vacuum_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');

ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

CREATE INDEX jobs_fair_idx ON jobs USING btree (priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));

CREATE INDEX jobs_finished_idx ON jobs USING btree (finished_at) WHERE (finished_at IS NOT NULL);

CREATE UNIQUE INDEX jobs_idempotency_idx ON jobs USING btree (owner, idempotency_key) WHERE (idempotency_key IS NOT NULL);

CREATE INDEX jobs_kind_fair_idx ON jobs USING btree (kind, priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));

CREATE INDEX jobs_owner_created_idx ON jobs USING btree (owner, created_at, id);

CREATE INDEX jobs_owner_fair_idx ON jobs USING btree (owner, priority, fair_tag) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));

CREATE INDEX jobs_parent_idx ON jobs USING btree (parent_id) WHERE (parent_id IS NOT NULL);

CREATE INDEX jobs_queue_fair_idx ON jobs USING btree (queue, priority DESC, fair_tag, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NOT NULL));

CREATE INDEX jobs_queued_idx ON jobs USING btree (queue, run_at) WHERE (state = 'queued'::text);

CREATE INDEX jobs_run_alone_idx ON jobs USING btree (priority DESC, run_at, id) WHERE ((state = 'queued'::text) AND run_alone);

CREATE INDEX jobs_running_idx ON jobs USING btree (lease_owner) WHERE (state = 'running'::text);

CREATE INDEX jobs_running_kind_idx ON jobs USING btree (kind, owner) WHERE (state = 'running'::text);

CREATE INDEX jobs_unique_idx ON jobs USING btree (owner, kind, unique_key, created_at DESC) WHERE (unique_key IS NOT NULL);

CREATE INDEX jobs_waiting_idx ON jobs USING btree (run_at, id) WHERE ((state = 'queued'::text) AND (fair_tag IS NULL));

ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES jobs(id) ON DELETE SET NULL;


-- What happened to each job, in order (progress, attempts, crashes, the end): the history a
-- client polls or streams, deleted with the job.
CREATE TABLE job_events (
    id bigint NOT NULL,
    job_id uuid NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE job_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME job_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY job_events
    ADD CONSTRAINT job_events_pkey PRIMARY KEY (id);

CREATE INDEX job_events_job_idx ON job_events USING btree (job_id, id);

ALTER TABLE ONLY job_events
    ADD CONSTRAINT job_events_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs(id) ON DELETE CASCADE;


-- Per-queue settings an operator changes at run time (pause).
CREATE TABLE queues (
    name text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY queues
    ADD CONSTRAINT queues_pkey PRIMARY KEY (name);


-- Live worker processes: their heartbeat, and lock_key, the advisory lock a live worker holds
-- (lost with its session, which is how a crashed worker's jobs are found).
CREATE TABLE workers (
    id text NOT NULL,
    lock_key integer NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    queues text[] NOT NULL,
    kinds text[] NOT NULL,
    concurrency integer NOT NULL,
    version text NOT NULL,
    running integer DEFAULT 0 NOT NULL,
    processed bigint DEFAULT 0 NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE workers ALTER COLUMN lock_key ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME workers_lock_key_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
    CYCLE
);

ALTER TABLE ONLY workers
    ADD CONSTRAINT workers_lock_key_key UNIQUE (lock_key);

ALTER TABLE ONLY workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id);


-- Fair share: per priority, the tag of the turn being served (the front of the line).
CREATE TABLE fair_clock (
    priority smallint NOT NULL,
    v double precision NOT NULL
);

ALTER TABLE ONLY fair_clock
    ADD CONSTRAINT fair_clock_pkey PRIMARY KEY (priority);


-- Fair share: an owner's weight, when not 1.
CREATE TABLE owner_weights (
    owner text NOT NULL,
    weight double precision NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_by text NOT NULL,
    CONSTRAINT owner_weights_owner_check CHECK (((char_length(owner) >= 1) AND (char_length(owner) <= 200))),
    CONSTRAINT owner_weights_weight_check CHECK (((weight >= (0.01)::double precision) AND (weight <= (100)::double precision)))
);

ALTER TABLE ONLY owner_weights
    ADD CONSTRAINT owner_weights_pkey PRIMARY KEY (owner);


-- Per-kind limits: concurrency (overall and per owner), rate, timeout; rate tokens kept here.
CREATE TABLE kind_limits (
    kind text NOT NULL,
    concurrency integer,
    owner_concurrency integer,
    rate integer,
    rate_period_ms bigint,
    timeout_ms integer,
    tokens double precision,
    tokens_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_by text NOT NULL,
    CONSTRAINT kind_limits_check CHECK (((rate IS NULL) = (rate_period_ms IS NULL))),
    CONSTRAINT kind_limits_check1 CHECK ((num_nonnulls(concurrency, owner_concurrency, rate, timeout_ms) > 0)),
    CONSTRAINT kind_limits_concurrency_check CHECK (((concurrency >= 1) AND (concurrency <= 1000000))),
    CONSTRAINT kind_limits_kind_check CHECK (((char_length(kind) >= 1) AND (char_length(kind) <= 64))),
    CONSTRAINT kind_limits_owner_concurrency_check CHECK (((owner_concurrency >= 1) AND (owner_concurrency <= 1000000))),
    CONSTRAINT kind_limits_rate_check CHECK (((rate >= 1) AND (rate <= 1000000))),
    CONSTRAINT kind_limits_rate_period_ms_check CHECK (((rate_period_ms >= 1) AND (rate_period_ms <= 86400000))),
    CONSTRAINT kind_limits_timeout_ms_check CHECK (((timeout_ms >= 1) AND (timeout_ms <= 86400000)))
);

ALTER TABLE ONLY kind_limits
    ADD CONSTRAINT kind_limits_pkey PRIMARY KEY (kind);


-- Cron schedules: one job per tick, made by whichever worker's maintenance runs first.
CREATE TABLE schedules (
    name text NOT NULL,
    cron text NOT NULL,
    kind text NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    owner text DEFAULT 'system'::text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    next_tick timestamp with time zone NOT NULL,
    last_tick timestamp with time zone,
    last_job_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schedules_check CHECK (((last_tick IS NULL) OR (last_tick < next_tick))),
    CONSTRAINT schedules_cron_check CHECK (((length(cron) >= 1) AND (length(cron) <= 200))),
    CONSTRAINT schedules_kind_check CHECK (((length(kind) >= 1) AND (length(kind) <= 64))),
    CONSTRAINT schedules_max_attempts_check CHECK (((max_attempts >= 1) AND (max_attempts <= 100))),
    CONSTRAINT schedules_name_check CHECK (((length(name) >= 1) AND (length(name) <= 64))),
    CONSTRAINT schedules_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
    CONSTRAINT schedules_priority_check CHECK (((priority >= '-100'::integer) AND (priority <= 100))),
    CONSTRAINT schedules_queue_check CHECK (((length(queue) >= 1) AND (length(queue) <= 64)))
);

ALTER TABLE ONLY schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (name);


-- Bulk cancel, retry and purge by filter, run in batches by the maintenance loop.
CREATE TABLE bulk_actions (
    id bigint NOT NULL,
    action text NOT NULL,
    filter text NOT NULL,
    kinds text[] DEFAULT '{}'::text[] NOT NULL,
    states text[] DEFAULT '{}'::text[] NOT NULL,
    queues text[] DEFAULT '{}'::text[] NOT NULL,
    owner text,
    created_after timestamp with time zone,
    created_before timestamp with time zone,
    finished_after timestamp with time zone,
    finished_before timestamp with time zone,
    error_contains text,
    actor text NOT NULL,
    state text DEFAULT 'running'::text NOT NULL,
    batch_size integer NOT NULL,
    matched bigint NOT NULL,
    acted bigint DEFAULT 0 NOT NULL,
    stopping bigint DEFAULT 0 NOT NULL,
    batches integer DEFAULT 0 NOT NULL,
    pass smallint DEFAULT 1 NOT NULL,
    cursor uuid,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT bulk_actions_action_check CHECK ((action = ANY (ARRAY['cancel'::text, 'retry'::text, 'purge'::text]))),
    CONSTRAINT bulk_actions_batch_size_check CHECK (((batch_size >= 1) AND (batch_size <= 10000))),
    CONSTRAINT bulk_actions_matched_check CHECK ((matched >= 0)),
    CONSTRAINT bulk_actions_pass_check CHECK ((pass = ANY (ARRAY[1, 2]))),
    CONSTRAINT bulk_actions_state_check CHECK ((state = ANY (ARRAY['running'::text, 'stopped'::text, 'done'::text])))
);

ALTER TABLE bulk_actions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME bulk_actions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY bulk_actions
    ADD CONSTRAINT bulk_actions_pkey PRIMARY KEY (id);

CREATE INDEX bulk_actions_running_idx ON bulk_actions USING btree (updated_at) WHERE (state = 'running'::text);


-- Jobs per queue, kind and state, kept with the jobs by statement triggers: job_counts is
-- folded, job_count_deltas the changes not folded yet (job_counts_live adds them).
CREATE TABLE job_counts (
    queue text NOT NULL,
    kind text NOT NULL,
    state text NOT NULL,
    n bigint NOT NULL
);

ALTER TABLE ONLY job_counts
    ADD CONSTRAINT job_counts_pkey PRIMARY KEY (queue, kind, state);



CREATE TABLE job_count_deltas (
    queue text NOT NULL,
    kind text NOT NULL,
    state text NOT NULL,
    n bigint NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='2000', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='2000');


-- What operators did (pause, limits, weights, schedules, bulk actions), newest first.
CREATE TABLE audit_log (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL,
    detail text
);

CREATE SEQUENCE audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id;

ALTER TABLE ONLY audit_log ALTER COLUMN id SET DEFAULT nextval('audit_log_id_seq'::regclass);

ALTER TABLE ONLY audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);

CREATE INDEX audit_log_at_idx ON audit_log USING btree (at DESC, id DESC);
