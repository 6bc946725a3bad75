import Foundation
import PostgresNIO

extension JobQueue {
    /// Puts a failed or cancelled job back in the queue with a fresh set of attempts and its
    /// fair tag, as a bulk retry does (both are `atelier_retry_jobs`). Its error history is kept.
    /// Refuses jobs that are queued, running or succeeded.
    public func retry(id: UUID, owner: String? = nil) async throws {
        let rows = try await client.query("""
            WITH target AS (
                SELECT id, state FROM jobs WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)::text)
                   FOR UPDATE
            )
            SELECT t.state, cardinality(atelier_retry_jobs(ARRAY[t.id], \(fairShare), '{"by": "operator"}'::jsonb)) > 0
              FROM target t
            """, logger: logger)
        for try await (state, retried) in rows.decode((String, Bool).self) {
            if retried { return }
            throw QueueError.conflict("job \(id) is \(state); only failed or cancelled jobs can be retried")
        }
        throw QueueError.jobNotFound("no job with id \(id)")
    }
}
