-- 0014 — sessions end, and what expires is found by its expiry.
--
-- A refresh token remembers when its family's sign-in happened (`signed_in_at`, copied along the
-- rotation), so no session outlives ATELIER_SESSION_MAX_AGE from its sign-in however often it is
-- refreshed (issue 29). Rows made before this migration start their session now.
--
-- The revocations' clean-up (`DELETE … WHERE expires_at < …`, on every logout and refresh) and
-- the maintenance leader's purge of spent and expired refresh tokens read by expiry: indexed, so
-- neither scans its table.
ALTER TABLE refresh_tokens ADD COLUMN signed_in_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX revoked_access_tokens_expires_idx ON revoked_access_tokens (expires_at);
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);
