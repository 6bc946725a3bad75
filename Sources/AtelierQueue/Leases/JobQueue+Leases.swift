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
    /// The rows are locked in id order before any is changed, as the completion's are
    /// (`atelier_complete`, migration 0032): the two run at once from two connections and, each
    /// in its plan's order, could deadlock.
    package func extendLeases(_ leases: [HeldLease], worker: String, lease: Duration) async throws -> LeaseReport {
        guard !leases.isEmpty else { return LeaseReport(held: [], cancelRequested: []) }
        let ids = leases.map(\.jobID)
        let rows = try await client.query("""
            WITH locked AS MATERIALIZED (
                SELECT j.id FROM jobs j
                 WHERE j.id = ANY (\(ids)::uuid[]) AND j.state = 'running' AND j.lease_owner = \(worker)
                 ORDER BY j.id
                   FOR NO KEY UPDATE
            )
            UPDATE jobs j
               SET lease_expires_at = now() + \(lease.milliseconds) * interval '1 millisecond'
              FROM unnest(\(ids)::uuid[], \(leases.map(\.attempt))::int[]) AS l(id, attempt)
             WHERE j.id = l.id AND j.attempt = l.attempt AND j.state = 'running' AND j.lease_owner = \(worker)
               AND l.id IN (SELECT k.id FROM locked k)
            RETURNING j.id, j.cancel_requested
            """, logger: logger)
        var report = LeaseReport(held: [], cancelRequested: [])
        for try await (id, cancel) in rows.decode((UUID, Bool).self) {
            report.held.insert(id)
            if cancel { report.cancelRequested.insert(id) }
        }
        return report
    }

    /// Reports progress of a running attempt (0…100 and a step name) and appends a `progress`
    /// event. Fenced like completion: returns `false` if the lease is no longer this worker's.
    package func reportProgress(
        job: ClaimedJob, percent: Int, step: String?, detail: String? = nil
    ) async throws -> Bool {
        let percent = min(100, max(0, percent))
        if let detail { try Self.requireJSONObject(detail, what: "progress detail") }
        let rows = try await client.query("""
            WITH updated AS (
                UPDATE jobs SET progress = \(percent), progress_step = \(step), updated_at = now()
                 WHERE id = \(job.id) AND attempt = \(job.attempt) AND state = 'running'
                   AND lease_owner = \(job.leaseOwner)
                RETURNING id
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, 'progress',
                       jsonb_strip_nulls(jsonb_build_object('progress', \(percent)::int, 'step', \(step)::text))
                       || coalesce(\(detail)::jsonb, '{}'::jsonb)
                  FROM updated
            )
            SELECT count(*)::int FROM updated
            """, logger: logger)
        var count = 0
        for try await n in rows.decode(Int.self) { count = n }
        return count == 1
    }
}
