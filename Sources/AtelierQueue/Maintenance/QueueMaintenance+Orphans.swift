import Foundation
import PostgresNIO

extension QueueMaintenance {
    /// Of `ids`, those that name no job: purged, or never inserted (an upload whose insert
    /// failed). The orphan sweep removes such jobs' blob folders.
    package func missingJobs(_ ids: [UUID]) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await client.query("""
            SELECT c.id FROM unnest(\(ids)::uuid[]) AS c(id)
             WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = c.id)
            """, logger: logger)
        var missing = Set<UUID>()
        for try await id in rows.decode(UUID.self) { missing.insert(id) }
        return missing
    }
}
