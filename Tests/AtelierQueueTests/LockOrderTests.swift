import AtelierTestSupport
import AtelierQueue
import Foundation
import PostgresNIO
import XCTest

/// A worker's completion and its lease renewal change the same rows (the jobs it runs) from two
/// connections, often at once. Each takes its row locks in id order, whatever order its arrays
/// and its plan have, so neither can hold one row while waiting for another the other holds: a
/// deadlock there cost a batch of completions a second and a retry (seen in a sustained
/// benchmark run, docs/reliability.md "Row locks in id order").
///
/// How it is seen without a race: a transaction holds the higher id; the statement under test,
/// given both ids in either order, must then wait for it holding the lower id already, which a
/// third session's `NOWAIT` lock of the lower id shows. Other workers' running jobs, analyzed,
/// make the planner drive each statement by its arrays (a probe of jobs_pkey per id, in the
/// arrays' order), as it does in a busy deployment; with few running jobs it walks
/// jobs_running_kind_idx instead, whose order is not the ids' either.
final class LockOrderTests: DatabaseTestCase {
    private let lease = Duration.seconds(30)

    override func setUp() async throws {
        try await super.setUp()
        try await db.execute("""
            INSERT INTO jobs (id, kind, owner, payload, state, lease_owner, attempt, started_at)
            SELECT atelier_uuid_v7(), 'k', 'o', '{}', 'running', 'busy-' || (g % 100), 1, now()
              FROM generate_series(1, 3000) g
            """)
        try await db.execute("ANALYZE jobs")
    }

    /// Two jobs running under `w`, lower id first, the higher one first in the table.
    private func twoRunningJobs() async throws -> (low: ClaimedJob, high: ClaimedJob) {
        try await queue.enqueue([NewJob(kind: "k"), NewJob(kind: "k")])
        let jobs = try await queue.claim(worker: "w", queues: ["default"], kinds: ["k"], limit: 2, lease: lease)
        XCTAssertEqual(jobs.count, 2)
        let sorted = jobs.sorted { $0.id.uuidString.lowercased() < $1.id.uuidString.lowercased() }
        // A new version of the lower id's row (an indexed column changed: not HOT) lands after
        // the higher's, so a plan that walks the table's order does not lock in id order either.
        try await db.execute("UPDATE jobs SET created_at = created_at + interval '1 microsecond' WHERE id = \(sorted[0].id)")
        return (sorted[0], sorted[1])
    }

    /// Whether another session holds a row lock on `id` (a `NOWAIT` lock of it fails).
    private static func isLocked(_ id: UUID, in db: TestDatabase) async throws -> Bool {
        do {
            try await db.execute("SELECT id FROM jobs WHERE id = \(id) FOR NO KEY UPDATE NOWAIT")
            return false
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
            return true
        }
    }

    /// Holds `held`'s row in an open transaction, runs `statement` beside it until it waits for
    /// that lock, and reports whether `other` was locked by then; then lets it finish.
    private func lockedWhileWaiting(held: UUID, other: UUID, marker: String,
                                    _ statement: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let logger = queue.logger
        let db = self.db!
        return try await queue.client.withConnection { holder in
            for try await _ in try await holder.query("BEGIN", logger: logger) {}
            for try await _ in try await holder.query("SELECT id FROM jobs WHERE id = \(held) FOR NO KEY UPDATE", logger: logger) {}
            let running = Task { try await statement() }
            try await db.eventually("the statement waits for the held row") {
                try await db.scalar("""
                    SELECT count(*)::int FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock' AND query LIKE \("%" + marker + "%") AND pid <> pg_backend_pid()
                    """, as: Int.self) == 1
            }
            let locked = try await Self.isLocked(other, in: db)
            for try await _ in try await holder.query("ROLLBACK", logger: logger) {}
            try await running.value
            return locked
        }
    }

    func testACompletionLocksItsRowsInIdOrder() async throws {
        for reversed in [false, true] {
            let (low, high) = try await twoRunningJobs()
            let batch = reversed ? [high, low] : [low, high]
            let queue = self.queue
            let locked = try await lockedWhileWaiting(held: high.id, other: low.id, marker: "atelier_complete") {
                let landed = try await queue.complete(batch.map { Completion(job: $0, outcome: .succeeded(result: nil)) },
                                                      worker: "w")
                XCTAssertEqual(landed, [low.id, high.id])
            }
            XCTAssertTrue(locked, "waiting for the higher id, the completion holds the lower one (\(reversed ? "reversed" : "in order"))")
        }
    }

    func testALeaseRenewalLocksItsRowsInIdOrder() async throws {
        for reversed in [false, true] {
            let (low, high) = try await twoRunningJobs()
            let leases = (reversed ? [high, low] : [low, high]).map { HeldLease(jobID: $0.id, attempt: $0.attempt) }
            let queue = self.queue
            let lease = self.lease
            let locked = try await lockedWhileWaiting(held: high.id, other: low.id, marker: "atelier_extend_leases") {
                let report = try await queue.extendLeases(leases, worker: "w", lease: lease)
                XCTAssertEqual(report.held, [low.id, high.id])
            }
            XCTAssertTrue(locked, "waiting for the higher id, the renewal holds the lower one (\(reversed ? "reversed" : "in order"))")
            _ = try await queue.complete([low, high].map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w")
        }
    }
}
