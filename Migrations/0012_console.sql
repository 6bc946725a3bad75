-- 0012 — the operator console (/admin): an audit log of operators' actions.
-- (Its job list needs no new index: job ids are UUIDv7 and sort by creation, so it pages on the
-- primary key, and the insert path stays as it was.)

-- Who did what to which queue or job, and when: pause and resume (from the console or the CLI),
-- and the console's retry, cancel and purge. Kept; never updated.
CREATE TABLE audit_log (
    id      bigserial   PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    actor   text        NOT NULL,   -- "user:<id> <email>" from the console, "cli:<user>@<host>" from the CLI
    action  text        NOT NULL,   -- pause | resume | retry | cancel | purge
    target  text        NOT NULL,   -- "queue:<name>" or "job:<id>"
    detail  text
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
