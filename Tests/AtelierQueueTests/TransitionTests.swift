import AtelierTestSupport
@testable import AtelierQueue
import Foundation
import PostgresNIO
import XCTest

/// A transition has one home: a single-job retry or cancel and a bulk one are the same SQL
/// function (`atelier_retry_jobs`, `atelier_cancel_jobs`), so they leave the same rows.
final class TransitionTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    /// A job's row without what differs between any two jobs (ids, times, the turn it got).
    private func row(_ id: UUID, without extra: [String] = []) async throws -> String {
        let dropped = ["id", "created_at", "updated_at", "run_at", "started_at", "finished_at", "fair_tag", "lease_expires_at"] + extra
        return try await db.scalar("""
            SELECT (to_jsonb(j) - \(dropped)::text[]
                    || jsonb_build_object('finished', j.finished_at IS NOT NULL, 'tagged', j.fair_tag IS NOT NULL,
                                          'due', j.run_at <= now()))::text
              FROM jobs j WHERE j.id = \(id)
            """, as: String.self)
    }

    private func runBulk(_ action: BulkActionKind, _ terms: String...) async throws -> BulkAction {
        let begun = try await queue.bulkActions.begin(action, try JobCriteria(terms: terms), actor: "ops", batchSize: 10)
        return try await BulkActionRunner(queue: queue, logger: queue.logger) { _ in }.run(begun.id)
    }

    /// Two jobs of one owner and kind, each failed on its last attempt by its worker.
    private func twoFailedJobs() async throws -> (UUID, UUID) {
        let ids = try await queue.enqueue([NewJob(kind: "k", owner: "o", maxAttempts: 1),
                                           NewJob(kind: "k", owner: "o", maxAttempts: 1)]).map(\.id)
        let claimed = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["k"], limit: 2, lease: lease)
        XCTAssertEqual(Set(claimed.map(\.id)), Set(ids))
        _ = try await queue.complete(claimed.map { Completion(job: $0, outcome: .failed(error: "boom")) }, worker: "w1")
        return (ids[0], ids[1])
    }

    func testASingleRetryAndABulkRetryLeaveTheSameRow() async throws {
        let (single, bulk) = try await twoFailedJobs()
        let before = try await row(single)
        try await XCTAssertEqualAsync(try await row(bulk), before, "the two jobs start alike")

        try await queue.retry(id: single)
        let ended = try await runBulk(.retry, "state=failed")
        XCTAssertEqual(ended.acted, 1, "the single retry already took the other job")

        let retried = try await row(single)
        XCTAssertNotEqual(retried, before)
        try await XCTAssertEqualAsync(try await row(bulk), retried)
        XCTAssertTrue(retried.contains(#""tagged": true"#), "both are tagged for fair share at once: \(retried)")
        XCTAssertTrue(retried.contains(#""state": "queued""#), retried)
    }

    func testASingleCancelAndABulkCancelLeaveTheSameRows() async throws {
        let ids = try await queue.enqueue((0..<4).map { _ in NewJob(kind: "c", owner: "o") }).map(\.id)
        let running = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["c"], limit: 2, lease: lease).map(\.id)
        let queued = ids.filter { !running.contains($0) }

        try await XCTAssertEqualAsync(try await queue.cancel(id: queued[0]), .cancelled)
        try await XCTAssertEqualAsync(try await queue.cancel(id: running[0]), .running)
        let ended = try await runBulk(.cancel, "kind=c")
        XCTAssertEqual(ended.acted, 1)
        XCTAssertEqual(ended.stopping, 1)

        // The reason is each caller's own ("cancelled", "cancelled by bulk action N").
        let cancelled = try await row(queued[0], without: ["error"])
        XCTAssertTrue(cancelled.contains(#""state": "cancelled""#), cancelled)
        try await XCTAssertEqualAsync(try await row(queued[1], without: ["error"]), cancelled)
        let flagged = try await row(running[0])
        XCTAssertTrue(flagged.contains(#""cancel_requested": true"#), flagged)
        try await XCTAssertEqualAsync(try await row(running[1]), flagged)
        let events = try await db.scalar("""
            SELECT string_agg(type, ',' ORDER BY type) FROM job_events
             WHERE job_id = ANY(\(ids)::uuid[]) AND type IN ('cancelled', 'cancel_requested')
            """, as: String.self)
        XCTAssertEqual(events, "cancel_requested,cancel_requested,cancelled,cancelled")
    }
}
