-- 0019 — cron schedules (issue 31): jobs enqueued on a timetable by the maintenance leader.
--
-- One row per schedule. `next_tick` is the first tick not yet enqueued (UTC, on the minute);
-- `last_tick` the newest one enqueued, and the guard that makes each tick happen once: the
-- leader's tick statement (Sources/AtelierQueue/Schedules/schedule_tick.sql) moves `last_tick`
-- forward and inserts the job in one statement, and only if `last_tick` is older than the tick.
-- Two leaders (an old one that has not noticed it lost the lock, and the new one) update the same
-- row: the second waits for the first and then finds nothing to do. `last_tick` only grows, so
-- (name, tick) is unique over every job a schedule ever made.
CREATE TABLE schedules (
    name         text        PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    cron         text        NOT NULL CHECK (length(cron) BETWEEN 1 AND 200),
    kind         text        NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
    queue        text        NOT NULL DEFAULT 'default' CHECK (length(queue) BETWEEN 1 AND 64),
    payload      jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
    priority     smallint    NOT NULL DEFAULT 0 CHECK (priority BETWEEN -100 AND 100),
    max_attempts integer     NOT NULL DEFAULT 5 CHECK (max_attempts BETWEEN 1 AND 100),
    owner        text        NOT NULL DEFAULT 'system',
    paused       boolean     NOT NULL DEFAULT false,
    next_tick    timestamptz NOT NULL,
    last_tick    timestamptz,
    last_job_id  uuid,       -- the job of last_tick (it may have been purged since)
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CHECK (last_tick IS NULL OR last_tick < next_tick)
);
