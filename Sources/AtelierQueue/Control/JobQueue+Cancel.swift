import Foundation
import PostgresNIO

extension JobQueue {
    /// Cancels a job. A queued job is cancelled at once; a running one is flagged, its worker is
    /// notified (`atelier_cancel`) and stops it, then records `cancelled`. Finished jobs are left
    /// as they are. `owner` limits the cancel to that owner's jobs (nil: any job, for operators).
    /// Returns the job's state after the call.
    @discardableResult
    public func cancel(id: UUID, owner: String? = nil, reason: String = "cancelled") async throws -> JobState {
        let rows = try await client.query("""
            WITH target AS (
                SELECT id, state FROM jobs WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)::text)
                   FOR UPDATE
            ), cancelled AS (
                UPDATE jobs j SET state = 'cancelled', error = \(reason), fair_tag = NULL, finished_at = now(), updated_at = now()
                  FROM target t WHERE j.id = t.id AND t.state = 'queued'
                RETURNING j.id
            ), flagged AS (
                UPDATE jobs j SET cancel_requested = true, updated_at = now()
                  FROM target t WHERE j.id = t.id AND t.state = 'running'
                RETURNING j.id, pg_notify('atelier_cancel', j.id::text)
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, 'cancelled', jsonb_build_object('reason', \(reason)::text) FROM cancelled
                UNION ALL
                SELECT id, 'cancel_requested', jsonb_build_object('reason', \(reason)::text) FROM flagged
            )
            SELECT CASE WHEN EXISTS (SELECT 1 FROM cancelled) THEN 'cancelled' ELSE state END FROM target
            """, logger: logger)
        for try await state in rows.decode(String.self) {
            return JobState(rawValue: state) ?? .failed
        }
        throw QueueError.jobNotFound("no job with id \(id)")
    }
}
