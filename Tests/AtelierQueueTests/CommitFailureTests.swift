import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// A write that PostgreSQL fails at its commit is a failure to its caller. Over the extended
/// protocol a lone statement commits at the `Sync` after its `CommandComplete`, and PostgresNIO
/// ends a statement at `CommandComplete`: without more, an enqueue whose commit failed (the
/// server stopping between the two, as a fast shutdown does) would answer with a job that does
/// not exist (docs/reliability.md, "A commit the caller can trust"). A deferred constraint
/// trigger that raises fails the commit here on purpose.
final class CommitFailureTests: DatabaseTestCase {
    private func jobs() async throws -> Int {
        try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
    }

    func testAnEnqueueWhoseCommitFailsThrows() async throws {
        try await db.failCommitsOfJobs()
        do {
            let job = try await queue.enqueue(NewJob(kind: "k", owner: "o"))
            XCTFail("the enqueue answered \(job.id), a job that was never committed")
        } catch {}
        try await XCTAssertEqualAsync(try await jobs(), 0)
    }

    func testABatchEnqueueWhoseCommitFailsThrows() async throws {
        try await db.failCommitsOfJobs()
        do {
            let jobs = try await queue.enqueue((0..<3).map { _ in NewJob(kind: "k", owner: "o") })
            XCTFail("the enqueue answered \(jobs.count) jobs that were never committed")
        } catch {}
        try await XCTAssertEqualAsync(try await jobs(), 0)
    }
}
