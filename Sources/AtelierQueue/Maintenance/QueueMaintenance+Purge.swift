import Foundation
import PostgresNIO

extension QueueMaintenance {
    /// Deletes finished jobs (succeeded, failed, cancelled) that finished more than `olderThan`
    /// ago, with their events, in batches so that no statement holds locks for long.
    /// Returns the ids deleted, so callers can remove the jobs' blobs too.
    @discardableResult
    package func purgeFinished(olderThan: Duration, batchSize: Int = 5_000) async throws -> [UUID] {
        var purged: [UUID] = []
        while true {
            let rows = try await client.query("""
                DELETE FROM jobs WHERE id IN (
                    SELECT id FROM jobs
                     WHERE finished_at < now() - \(olderThan.milliseconds) * interval '1 millisecond'
                       AND state IN ('succeeded', 'failed', 'cancelled')
                     LIMIT \(batchSize)
                       FOR UPDATE SKIP LOCKED)
                RETURNING id
                """, logger: logger)
            var batch = 0
            for try await id in rows.decode(UUID.self) {
                purged.append(id)
                batch += 1
            }
            if batch < batchSize { return purged }
        }
    }
}
