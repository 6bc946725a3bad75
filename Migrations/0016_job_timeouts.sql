-- 0016 — a job may carry its own timeout.
--
-- Before, a handler's attempt was bounded only by its kind's built-in timeout, if any; a client
-- that knows its job should take seconds had no way to say so, and a stuck attempt held its slot
-- until the lease said otherwise. Now `timeout_ms` (from `"timeout_s"` on POST /v1/jobs, or
-- NewJob.timeout) bounds each attempt: the worker cancels the handler's task when it is past,
-- abandons the task (and replaces its process) if it has not returned ATELIER_STOP_GRACE later,
-- and records the attempt as timed out, retried by the kind's policy. NULL: the kind's default.
ALTER TABLE jobs ADD COLUMN timeout_ms integer CHECK (timeout_ms IS NULL OR timeout_ms > 0);
-- The claim returns it from 0017 on (0017 redefines the claim for fair share anyway).
