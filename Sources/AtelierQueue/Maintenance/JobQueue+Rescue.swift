import Foundation
import PostgresNIO

extension JobQueue {
    /// Returns the jobs of dead workers to the queue (or fails them if that was their last attempt).
    ///
    /// A running job is rescued when its lease expired (a hung or partitioned worker), or when its
    /// worker's liveness lock is gone (a killed process: detected within one rescuer tick, not a
    /// lease period). Liveness is ignored for `restartGrace` after the database itself started,
    /// while workers reconnect and take their locks again. The worker that lost the job can no
    /// longer complete it: completion is fenced on the lease.
    @discardableResult
    public func rescueLostJobs(restartGrace: Duration = .seconds(15)) async throws -> Int {
        try await scalar("""
            WITH lost AS (
                SELECT id FROM jobs
                 WHERE state = 'running'
                   AND (lease_expires_at < now()
                        OR (pg_postmaster_start_time() < now() - \(restartGrace.milliseconds) * interval '1 millisecond'
                            AND lease_owner NOT IN (\(unescaped: Liveness.liveWorkerIDs))))
                   FOR UPDATE SKIP LOCKED
            ), rescued AS (
                UPDATE jobs j SET
                    state = CASE WHEN j.attempt >= j.max_attempts THEN 'failed' ELSE 'queued' END,
                    error = 'worker ' || coalesce(j.lease_owner, '?') || ' stopped during attempt ' || j.attempt,
                    errors = j.errors || jsonb_build_array(jsonb_build_object(
                        'attempt', j.attempt, 'at', now(),
                        'error', 'worker ' || coalesce(j.lease_owner, '?') || ' stopped during attempt ' || j.attempt)),
                    run_at = now(),
                    finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                  FROM lost WHERE j.id = lost.id
                RETURNING j.id, j.state, j.attempt, j.error
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, CASE WHEN state = 'failed' THEN 'failed' ELSE 'requeued' END,
                       jsonb_build_object('attempt', attempt, 'error', error)
                  FROM rescued
            )
            SELECT count(*)::int FROM rescued
            """, as: Int.self) ?? 0
    }
}
