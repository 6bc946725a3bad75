import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// Migration 0022 counts the jobs a database already holds when it is applied.
final class JobCountsMigrationTests: DatabaseTestCase {
    /// 0022 is undone on a migrated database, jobs are written with no trigger to count them, and
    /// the migration runs again: its counts are those of the rows.
    func testTheMigrationCountsTheJobsAlreadyThere() async throws {
        try await db.execute("DROP TRIGGER jobs_count_insert ON jobs")
        try await db.execute("DROP TRIGGER jobs_count_update ON jobs")
        try await db.execute("DROP TRIGGER jobs_count_delete ON jobs")
        try await db.execute("DROP TRIGGER jobs_count_truncate ON jobs")
        try await db.execute("DROP VIEW job_counts_live")
        try await db.execute("DROP TABLE job_counts, job_count_deltas")
        try await db.execute("DROP FUNCTION atelier_count_jobs(), atelier_count_jobs_truncated(), atelier_fold_job_counts()")
        try await db.execute("DROP INDEX jobs_queued_idx")
        try await db.execute("DELETE FROM atelier_schema_migrations WHERE version = 22")
        try await queue.enqueue((0..<7).map { _ in NewJob(kind: "k") } + [NewJob(kind: "other", queue: "images")])
        let claimed = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["k"], limit: 3, lease: .seconds(30))
        XCTAssertEqual(claimed.count, 3)
        let report = try await Migrator(client: queue.client, logger: queue.logger, migrations: Migration.builtIn(), definitions: QueueSchema.definitions).migrate()
        XCTAssertEqual(report.applied, [22])
        let rows = try await queue.client.query("""
            SELECT queue || '/' || kind || '/' || state, n::int FROM job_counts_live ORDER BY 1
            """)
        var counts: [String: Int] = [:]
        for try await (group, n) in rows.decode((String, Int).self) { counts[group] = n }
        XCTAssertEqual(counts, ["default/k/queued": 4, "default/k/running": 3, "images/other/queued": 1])
        try await XCTAssertEqualAsync(try await queue.countJobs(in: [.queued]), 5)
    }
}
