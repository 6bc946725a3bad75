import Foundation
import PostgresNIO

extension JobQueue {
    /// Puts a failed or cancelled job back in the queue with a fresh set of attempts.
    /// Its error history is kept. Refuses jobs that are queued, running or succeeded.
    public func retry(id: UUID, owner: String? = nil) async throws {
        let rows = try await client.query("""
            WITH target AS (
                SELECT id, state FROM jobs WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)::text)
                   FOR UPDATE
            ), retried AS (
                UPDATE jobs j SET state = 'queued', attempt = 0, crashes = 0, crash_streak = 0, run_alone = false, snoozes = 0, snooze_streak = 0, run_at = now(), fair_tag = NULL, finished_at = NULL,
                                  cancel_requested = false, progress = 0, progress_step = NULL, updated_at = now()
                  FROM target t WHERE j.id = t.id AND t.state IN ('failed', 'cancelled')
                RETURNING j.id
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, 'retried', '{"by": "operator"}'::jsonb FROM retried
            )
            SELECT t.state, EXISTS (SELECT 1 FROM retried) FROM target t
            """, logger: logger)
        for try await (state, retried) in rows.decode((String, Bool).self) {
            if retried { return }
            throw QueueError.conflict("job \(id) is \(state); only failed or cancelled jobs can be retried")
        }
        throw QueueError.jobNotFound("no job with id \(id)")
    }

    /// Retries every failed job (optionally of one kind). Returns how many.
    @discardableResult
    public func retryAllFailed(kind: String? = nil) async throws -> Int {
        try await scalar("""
            WITH retried AS (
                UPDATE jobs SET state = 'queued', attempt = 0, crashes = 0, crash_streak = 0, run_alone = false, snoozes = 0, snooze_streak = 0, run_at = now(), fair_tag = NULL, finished_at = NULL,
                                progress = 0, progress_step = NULL, updated_at = now()
                 WHERE state = 'failed' AND (\(kind)::text IS NULL OR kind = \(kind)::text)
                RETURNING id
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, 'retried', '{"by": "operator"}'::jsonb FROM retried
            )
            SELECT count(*)::int FROM retried
            """, as: Int.self) ?? 0
    }
}
