import Foundation
import PostgresNIO

/// A running attempt as its worker knows it.
package struct HeldLease: Sendable, Hashable {
    package var jobID: UUID
    package var attempt: Int

    package init(jobID: UUID, attempt: Int) {
        self.jobID = jobID
        self.attempt = attempt
    }
}

/// What a heartbeat learned about the leases a worker holds.
package struct LeaseReport: Sendable, Equatable {
    /// Leases extended: still this worker's.
    package var held: Set<UUID>
    /// Of those, the jobs someone asked to cancel.
    package var cancelRequested: Set<UUID>
}

extension JobQueue {
    /// Extends the leases of the attempts `worker` is running, and reports which are still its
    /// own and which were asked to cancel. An attempt missing from `held` was rescued from this
    /// worker: stop it, its completion would be refused anyway.
    ///
    /// The statement is `atelier_extend_leases` (`Sources/AtelierQueue/SQL/`), beside
    /// `atelier_complete`: both lock their rows in id order, since they run at once from two
    /// connections and, each in its plan's order, could deadlock.
    package func extendLeases(_ leases: [HeldLease], worker: String, lease: Duration) async throws -> LeaseReport {
        guard !leases.isEmpty else { return LeaseReport(held: [], cancelRequested: []) }
        let ids = leases.map(\.jobID)
        let rows = try await client.query("""
            SELECT id, cancel_requested
              FROM atelier_extend_leases(\(ids)::uuid[], \(leases.map(\.attempt))::int[], \(worker), \(lease.milliseconds)::bigint)
            """, logger: logger)
        var report = LeaseReport(held: [], cancelRequested: [])
        for try await (id, cancel) in rows.decode((UUID, Bool).self) {
            report.held.insert(id)
            if cancel { report.cancelRequested.insert(id) }
        }
        return report
    }

    /// Reports progress of a running attempt (0…100 and a step name) and appends a `progress`
    /// event (`report_progress.sql`). Fenced like completion: returns `false` if the lease is no
    /// longer this worker's.
    package func reportProgress(
        job: ClaimedJob, percent: Int, step: String?, detail: String? = nil
    ) async throws -> Bool {
        let percent = min(100, max(0, percent))
        if let detail { try Self.requireJSONObject(detail, what: "progress detail") }
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(job.id)
        bindings.append(job.attempt)
        bindings.append(job.leaseOwner)
        bindings.append(percent)
        bindings.append(step)
        bindings.append(detail)
        let rows = try await client.query(PostgresQuery(unsafeSQL: EmbeddedAssets.reportProgressSql, binds: bindings), logger: logger)
        var count = 0
        for try await n in rows.decode(Int.self) { count = n }
        return count == 1
    }
}
