import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// What a claim reads does not grow with other queues' backlogs.
final class ClaimWalkTests: DatabaseTestCase {
    /// A claim walks only the queues it serves (`atelier_claim`): ready jobs of a paused queue
    /// cost it nothing. Counted in the claim's own transaction (heap rows fetched through an index).
    func testAClaimDoesNotWalkAPausedQueuesBacklog() async throws {
        try await db.execute("""
            INSERT INTO jobs (id, kind, queue, owner, fair_tag)
            SELECT atelier_uuid_v7(), 'k', 'held', 'o', g FROM generate_series(1, 3000) g
            """)
        try await queue.pause(queue: "held", actor: "ops")
        _ = try await queue.enqueue((0..<5).map { _ in NewJob(kind: "k") })
        let fetched = try await increase(of: Self.jobsRowsFetched, during: """
            SELECT id FROM atelier_claim('w1', ARRAY['default', 'held'], ARRAY['k'], 5, 30000, 1000, true)
            """)
        XCTAssertGreaterThanOrEqual(fetched, 5)
        XCTAssertLessThan(fetched, 300, "the claim read \(fetched) rows: it walked the paused queue's 3,000")
    }
}
