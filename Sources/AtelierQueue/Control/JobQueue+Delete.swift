import Foundation
import PostgresNIO

extension JobQueue {
    /// Deletes one finished job (succeeded, failed or cancelled) with its events — an operator's
    /// purge. A queued or running job is refused (cancel it first); the caller removes the job's
    /// files. Returns nothing; `QueueError.jobNotFound` when there is no such job.
    public func delete(finishedJob id: UUID) async throws {
        let rows = try await client.query("""
            WITH target AS (SELECT id, state FROM jobs WHERE id = \(id) FOR UPDATE),
                 deleted AS (DELETE FROM jobs j USING target t
                              WHERE j.id = t.id AND t.state IN ('succeeded', 'failed', 'cancelled') RETURNING j.id)
            SELECT t.state, EXISTS (SELECT 1 FROM deleted) FROM target t
            """, logger: logger)
        for try await (state, deleted) in rows.decode((String, Bool).self) {
            if deleted { return }
            throw QueueError.conflict("job \(id) is \(state); only finished jobs can be purged (cancel it first)")
        }
        throw QueueError.jobNotFound("no job with id \(id)")
    }
}
