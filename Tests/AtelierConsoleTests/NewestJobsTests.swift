@testable import AtelierConsole
import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// The live feed's look at the newest jobs (``NewestJobs``) against the real database, with
/// inserts in flight: job ids are made before their insert commits, so a job can become visible
/// after one with a later id was already seen — it must still be found. No sleeps: the
/// transaction is held open on its own connection while the feed looks.
final class NewestJobsTests: DatabaseTestCase {
    func testAJobWhoseInsertCommitsAfterANewerOneWasSeenIsStillFound() async throws {
        let now = Date()
        let (earlier, later) = (JobID.make(now: now.addingTimeInterval(-1)), JobID.make(now: now))
        var newest = NewestJobs(queue: queue, limit: 50)
        try await queue.enqueue(NewJob(id: JobID.make(now: now.addingTimeInterval(-2)), kind: "noop"))
        let baseline = try await newest.look()
        XCTAssertEqual(baseline, [], "the first look only takes note")

        let stillNew = try await queue.client.withConnection { connection in
            // The earlier job's insert is in flight (its id made, its transaction open) …
            try await connection.query("BEGIN", logger: queue.logger)
            try await connection.query("INSERT INTO jobs (id, kind) VALUES (\(earlier), 'noop')", logger: queue.logger)
            // … while the later one commits and the feed sees it.
            try await queue.enqueue(NewJob(id: later, kind: "noop"))
            let seen = try await newest.look()
            XCTAssertEqual(seen, [later])
            try await connection.query("COMMIT", logger: queue.logger)
            return try await newest.look()
        }
        XCTAssertEqual(stillNew, [earlier], "a job committed after a newer one was seen is new at the next look")
        let again = try await newest.look()
        XCTAssertEqual(again, [], "a job is new once")
    }

    func testOnlyTheNewestCountLikeTheListsFirstPage() async throws {
        var newest = NewestJobs(queue: queue, limit: 3)
        _ = try await newest.look()
        let ids = (0..<5).map { JobID.make(now: Date().addingTimeInterval(Double($0))) }
        try await queue.enqueue(ids.map { NewJob(id: $0, kind: "noop") })
        let found = try await newest.look()
        XCTAssertEqual(found, Array(ids.reversed().prefix(3)), "the newest three, newest first")
        XCTAssertEqual(newest.ids, found)
    }
}
