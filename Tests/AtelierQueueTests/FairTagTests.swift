import AtelierTestSupport
import AtelierQueue
import Foundation
import PostgresNIO
import XCTest

/// A job's fair tag reads the front of the line from the clock on (`atelier_fair_tag`): the entries
/// of jobs claimed before the clock moved, dead in jobs_fair_idx until a VACUUM, cost it nothing.
/// Counted as index blocks read in the tag's own transaction, not timed.
final class FairTagTests: DatabaseTestCase {
    func testATagDoesNotStepOverTheJobsClaimedBeforeTheClock() async throws {
        // 20,000 jobs of one owner; the first 19,000 claimed and finished, the clock moved to
        // within 64 turns of the last of them, as claims leave it; no VACUUM since.
        try await db.execute("ALTER TABLE jobs SET (autovacuum_enabled = false)")
        try await db.execute("""
            INSERT INTO jobs (id, kind, queue, owner, payload, fair_tag)
            SELECT atelier_uuid_v7(), 'k', 'default', 'a', '{}', g FROM generate_series(1, 20000) g
            """)
        try await db.execute("""
            UPDATE jobs SET state = 'succeeded', fair_tag = NULL, finished_at = now() WHERE fair_tag <= 19000
            """)
        try await db.execute("INSERT INTO fair_clock (priority, v) VALUES (0, 18960)")

        let tags = """
            SELECT atelier_fair_tag(true, 'newcomer', 0), atelier_fair_tag(false, 'newcomer', 0), atelier_fair_tag(true, 'a', 0)
            """
        let blocks = try await increase(of: Self.blocksRead(of: "jobs_fair_idx"), during: tags)
        var values: [Double] = []
        for try await (a, b, c) in try await queue.client.query(PostgresQuery(unsafeSQL: tags), logger: queue.logger)
            .decode((Double, Double, Double).self) { values = [a, b, c] }
        // A newcomer starts at the front (the first live tag), FIFO and the owner after the last.
        XCTAssertEqual(values, [19001, 20001, 20001])
        // Three tags, each a descent of jobs_fair_idx or jobs_owner_fair_idx and a page or two:
        // read from the start of jobs_fair_idx, the 19,000 dead entries were about 350 blocks.
        XCTAssertLessThan(blocks, 30, "three tags read \(blocks) blocks of jobs_fair_idx")
    }
}
