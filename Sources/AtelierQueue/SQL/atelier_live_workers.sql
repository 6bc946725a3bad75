-- The workers alive right now: those whose liveness lock is held in this database. A worker holds
-- the session advisory lock (1096043602, workers.lock_key) — the first number is
-- Schema.lockNamespace, 0x41544C52, "ATLR" — on its listener connection; PostgreSQL drops it the
-- moment that connection closes, which a killed process's connection does at once. Read by the
-- rescue (atelier_rescue_lost_jobs), the registry's prune and `atelier workers`.
CREATE OR REPLACE VIEW atelier_live_workers AS
    SELECT w.id FROM workers w
      JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                     AND l.classid = 1096043602::oid
                     AND l.objid = w.lock_key::oid;
