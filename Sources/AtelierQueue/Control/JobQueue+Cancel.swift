import Foundation
import PostgresNIO

extension JobQueue {
    /// Cancels a job, as a bulk cancel does (both are `atelier_cancel_jobs`). A queued job is cancelled at once; a running one is flagged, its worker is
    /// notified (`atelier_cancel`) and stops it, then records `cancelled`. Finished jobs are left
    /// as they are. `owner` limits the cancel to that owner's jobs (nil: any job, for operators).
    /// Returns the job's state after the call.
    @discardableResult
    public func cancel(id: UUID, owner: String? = nil, reason: String = "cancelled") async throws -> JobState {
        let rows = try await client.query("""
            WITH target AS (
                SELECT id, state FROM jobs WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)::text)
                   FOR UPDATE
            )
            SELECT CASE WHEN cardinality(c.cancelled) > 0 THEN 'cancelled' ELSE t.state END
              FROM target t,
                   atelier_cancel_jobs(ARRAY[t.id], \(reason), jsonb_build_object('reason', \(reason)::text)) c
            """, logger: logger)
        for try await state in rows.decode(String.self) {
            return JobState(rawValue: state) ?? .failed
        }
        throw QueueError.jobNotFound("no job with id \(id)")
    }
}
