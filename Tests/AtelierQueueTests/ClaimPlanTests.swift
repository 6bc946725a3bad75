import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// The claim and the fair tag (`atelier_claim`, `atelier_fair_tags`) read a few rows whatever
/// the planner's statistics say. The statistics here are the worst a deployment sees: taken when
/// nothing was queued (after a drain, at a quiet hour), with a backlog arriving after; generic
/// plans chosen from them would walk the whole backlog on every claim and every enqueue's tag.
/// Counted as heap rows fetched through an index in the statement's own transaction, not timed.
final class ClaimPlanTests: DatabaseTestCase {
    /// Below about 30,000 queued jobs the planner found the right walks even from these
    /// statistics; the bad plans were chosen above it.
    private let backlog = 50_000

    /// One test, so the backlog is made once: the tags, an unlimited claim, then a limited one.
    func testTheClaimAndTheTagReadAFewRowsOfABacklogTheStatisticsDoNotShow() async throws {
        // Statistics from a table of finished jobs only, kept: autovacuum must not refresh them.
        try await db.execute("ALTER TABLE jobs SET (autovacuum_enabled = false)")
        try await db.execute("""
            INSERT INTO jobs (id, kind, queue, owner, payload, state, finished_at)
            SELECT atelier_uuid_v7(), 'noop', 'default', 'o', '{}', 'succeeded', now() FROM generate_series(1, 100)
            """)
        try await db.execute("ANALYZE jobs")
        // Three owners' backlog of one kind, then 1,000 jobs of another, limited below, behind it.
        try await db.execute("""
            INSERT INTO jobs (id, kind, queue, owner, payload, fair_tag)
            SELECT atelier_uuid_v7(), 'noop', 'default', 'o' || (g % 3), '{}', g FROM generate_series(1, \(backlog)) g
            """)
        try await db.execute("""
            INSERT INTO jobs (id, kind, queue, owner, payload, fair_tag)
            SELECT atelier_uuid_v7(), 'sleep', 'default', 'o' || (g % 3), '{}', \(backlog) + g FROM generate_series(1, 1000) g
            """)

        let one = try await rowsFetched("SELECT atelier_fair_tag(true, 'o1', 0)")
        XCTAssertLessThan(one, 10, "one job's tag read \(one) rows of a backlog of \(backlog)")
        let fifo = try await rowsFetched("SELECT atelier_fair_tag(false, 'o1', 0)")
        XCTAssertLessThan(fifo, 10, "one job's tag, fair share off, read \(fifo) rows of a backlog of \(backlog)")
        let batch = try await rowsFetched("SELECT tag FROM atelier_fair_tags(true, ARRAY['o1', 'o2', 'new'], ARRAY[0, 0, 0])")
        XCTAssertLessThan(batch, 20, "a batch's tags read \(batch) rows of a backlog of \(backlog)")

        let unlimited = try await rowsFetched("""
            SELECT id FROM atelier_claim('w1', ARRAY['default'], ARRAY['noop', 'sleep'], 16, 30000, 1000, true)
            """)
        XCTAssertGreaterThanOrEqual(unlimited, 16)
        XCTAssertLessThan(unlimited, 200, "a claim read \(unlimited) rows of a backlog of \(backlog)")

        // A limit on one served kind with a job of it ready: the probe for it, the limited pick
        // and the lock of its candidates.
        try await db.execute("""
            INSERT INTO kind_limits (kind, concurrency, owner_concurrency, updated_by) VALUES ('sleep', 4, 1, 'test')
            """)
        let limited = try await rowsFetched("""
            SELECT id FROM atelier_claim('w2', ARRAY['default'], ARRAY['noop', 'sleep'], 16, 30000, 1000, true)
            """)
        XCTAssertGreaterThanOrEqual(limited, 16)
        // The limited pick reads up to room + 256 of the limited kind's next (its per-owner cap).
        XCTAssertLessThan(limited, 600, "a limited claim read \(limited) rows of a backlog of \(backlog)")
    }

    private func rowsFetched(_ sql: String) async throws -> Int64 {
        try await increase(of: Self.jobsRowsFetched, during: sql)
    }
}
