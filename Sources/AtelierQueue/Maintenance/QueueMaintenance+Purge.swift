import Foundation
import PostgresNIO

extension QueueMaintenance {
    /// Deletes finished jobs (succeeded, failed, cancelled) that finished more than `olderThan`
    /// ago, with their events, in batches so that no statement holds locks for long
    /// (`purge_finished.sql`, one batch).
    /// Returns the ids deleted, so callers can remove the jobs' blobs too.
    @discardableResult
    package func purgeFinished(olderThan: Duration, batchSize: Int = 5_000) async throws -> [UUID] {
        var purged: [UUID] = []
        while true {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(olderThan.milliseconds)
            bindings.append(batchSize)
            let rows = try await client.query(PostgresQuery(unsafeSQL: EmbeddedAssets.purgeFinishedSql, binds: bindings), logger: logger)
            var batch = 0
            for try await id in rows.decode(UUID.self) {
                purged.append(id)
                batch += 1
            }
            if batch < batchSize { return purged }
        }
    }
}
