import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// Unique jobs (migration 0018, docs/queue.md "Unique jobs"): while a job of the same owner,
/// kind and key is queued, running or finished within the period, enqueue answers with it.
final class UniqueJobTests: DatabaseTestCase {
    private func job(_ key: String, owner: String = "o", kind: String = "k", period: Duration = .seconds(600)) -> NewJob {
        NewJob(kind: kind, owner: owner, unique: UniqueJob(key: key, period: period))
    }

    func testAQueuedRunningOrRecentJobIsTheAnswer() async throws {
        let first = try await queue.enqueue(job("thumbs:42"))
        XCTAssertEqual([first.inserted, first.duplicate], [true, false])

        let whileQueued = try await queue.enqueue(job("thumbs:42"))
        XCTAssertEqual(whileQueued, EnqueuedJob(id: first.id, inserted: false, duplicate: true))

        let claimed = try await queue.claim(worker: "w", queues: ["default"], kinds: ["k"], limit: 1, lease: .seconds(30))
        XCTAssertEqual(claimed.map(\.id), [first.id])
        let whileRunning = try await queue.enqueue(job("thumbs:42"))
        XCTAssertEqual(whileRunning.id, first.id)
        XCTAssertTrue(whileRunning.duplicate)

        _ = try await queue.complete([Completion(job: claimed[0], outcome: .succeeded(result: nil))], worker: "w")
        let recent = try await queue.enqueue(job("thumbs:42"))
        XCTAssertEqual(recent.id, first.id, "finished within the period")

        try await db.execute("UPDATE jobs SET finished_at = now() - interval '11 minutes' WHERE id = \(first.id)")
        let later = try await queue.enqueue(job("thumbs:42"))
        XCTAssertEqual([later.inserted, later.duplicate], [true, false], "the period is over: the work runs again")
        XCTAssertNotEqual(later.id, first.id)
        let short = try await queue.enqueue(job("thumbs:42", period: .seconds(1)))
        XCTAssertEqual(short.id, later.id, "queued: a duplicate whatever the period")
    }

    func testOwnerKindAndKeyTogetherMakeADuplicate() async throws {
        let first = try await queue.enqueue(job("x"))
        for other in [job("y"), job("x", owner: "p"), job("x", kind: "k2")] {
            let result = try await queue.enqueue(other)
            XCTAssertTrue(result.inserted)
            XCTAssertNotEqual(result.id, first.id)
        }
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 4)
    }

    /// Enqueues of one key at the same moment, from many connections: one job, one answer.
    func testConcurrentEnqueuesOfOneKeyMakeOneJob() async throws {
        let queue = self.queue
        let racing = job("race")
        let results = try await withThrowingTaskGroup(of: EnqueuedJob.self) { group in
            for _ in 0..<16 { group.addTask { try await queue.enqueue(racing) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.filter(\.inserted).count, 1)
        XCTAssertEqual(Set(results.map(\.id)).count, 1, "every caller got the same job")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 1)
    }

    func testABatchWithUniqueJobsAnswersEachInOrder() async throws {
        let results = try await queue.enqueue([job("a"), NewJob(kind: "k"), job("a"), job("b")])
        XCTAssertEqual(results.map(\.inserted), [true, true, false, true])
        XCTAssertEqual(results[2].id, results[0].id)
        XCTAssertTrue(results[2].duplicate)
    }

    func testAnIdempotencyKeyKeepsItsMeaning() async throws {
        var first = job("u")
        first.idempotencyKey = "req-1"
        let created = try await queue.enqueue(first)
        var retried = job("v")
        retried.idempotencyKey = "req-1"
        let replay = try await queue.enqueue(retried)
        XCTAssertEqual(replay.id, created.id, "the request was made before: its job, whatever the unique key")
        XCTAssertFalse(replay.inserted)
        XCTAssertFalse(replay.duplicate)
    }

    func testBadUniqueSettingsAreRefused() async throws {
        for bad in [job(""), job(String(repeating: "k", count: 256)), job("k", period: .zero), job("k", period: .seconds(31 * 86_400))] {
            do {
                _ = try await queue.enqueue(bad)
                XCTFail("accepted \(bad.unique!)")
            } catch let error as QueueError {
                guard case .invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
    }
}
