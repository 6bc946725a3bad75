import Foundation
import PostgresNIO

extension JobQueue {
    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then oldest.
    ///
    /// The claim query is `atelier_claim` in `Migrations/0002_claim_function.sql`: pick rows
    /// from the partial index of queued jobs in claim order, skipping rows another worker is
    /// claiming at this instant (`FOR UPDATE SKIP LOCKED`), mark them running under a lease in
    /// the same statement, and append a `running` event for each. Paused queues are left alone.
    /// It lives in the database so its planner settings can pin the index walk: cost is
    /// O(limit), not O(queued jobs), even when statistics are stale.
    public func claim(
        worker: String, queues: [String], kinds: [String], limit: Int, lease: Duration
    ) async throws -> [ClaimedJob] {
        guard limit > 0, !queues.isEmpty, !kinds.isEmpty else { return [] }
        let query: PostgresQuery = """
            SELECT * FROM atelier_claim(\(worker), \(queues)::text[], \(kinds)::text[], \(limit)::integer, \(lease.milliseconds)::bigint)
            """
        var jobs: [ClaimedJob] = []
        let rows = try await client.query(query, logger: logger)
        for try await (id, kind, queue, priority, owner, payload, attempt, maxAttempts, requestID, createdAt)
            in rows.decode((UUID, String, String, Int, String, String, Int, Int, String?, Date).self) {
            jobs.append(ClaimedJob(
                id: id, kind: kind, queue: queue, priority: priority, owner: owner, payload: payload,
                attempt: attempt, maxAttempts: maxAttempts, requestID: requestID, createdAt: createdAt,
                leaseOwner: worker))
        }
        return jobs
    }
}
