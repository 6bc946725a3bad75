@testable import AtelierQueue
import AtelierTestSupport
import XCTest

/// Cancel every job a filter matches, in batches, exactly once however the run is interrupted:
/// a bulk action (`atelier jobs cancel --where 'owner=alice state=queued'`, or
/// `POST /v1/admin/jobs/cancel`). It is recorded with its filter and who began it, counts what
/// matches in the same snapshot, and acts on jobs created before it began; a running job is told
/// to stop. A dry run (`--dry-run`) counts without acting.
final class CancelByFilter: DatabaseTestCase {
    func testCancelOneOwnersQueuedJobs() async throws {
        let alices = try await queue.enqueue((0..<25).map { _ in NewJob(kind: "render", owner: "alice") }).map(\.id)
        let bobs = try await queue.enqueue((0..<5).map { _ in NewJob(kind: "render", owner: "bob") }).map(\.id)

        let action = try await queue.bulkActions.begin(.cancel, try JobCriteria(terms: ["owner=alice", "state=queued"]),
                                               actor: "ops@example.com", batchSize: 10)
        XCTAssertEqual(action.matched, 25)
        let ended = try await BulkActionRunner(queue: queue, logger: queue.logger) { _ in }.run(action.id)
        XCTAssertEqual(ended.state, .done)
        XCTAssertEqual(ended.acted, 25)
        XCTAssertEqual(ended.batches, 4, "10, 10 and 5; then a second pass for rows a worker held the first time (none here)")

        let alicesNow = try await queue.jobs(ids: alices)
        XCTAssertTrue(alicesNow.allSatisfy { $0.state == .cancelled })
        let bobsNow = try await queue.jobs(ids: bobs)
        XCTAssertTrue(bobsNow.allSatisfy { $0.state == .queued }, "bob's jobs are not in the filter")
    }
}
