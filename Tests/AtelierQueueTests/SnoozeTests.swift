import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// A snoozed attempt (the blob store was down) puts its job back in the queue for later
/// without spending one of its attempts, says why it waits, and is fenced like every other
/// completion (docs/architecture.md §2.6).
final class SnoozeTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func claim(_ worker: String = "w1") async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: ["default"], kinds: ["k"], limit: 10, lease: lease)
    }

    private func makeClaimable(_ id: UUID) async throws {
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")
    }

    func testASnoozedJobWaitsWithoutSpendingAnAttempt() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        let first = try await claim()[0]
        XCTAssertTrue(first.isLastAttempt, "one attempt allowed, and this is it")

        let landed = try await queue.complete(
            [Completion(job: first, outcome: .snoozed(reason: "the store is down", delay: .seconds(30)))], worker: "w1")
        XCTAssertEqual(landed, [id])
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued)
        XCTAssertEqual(job.runAt.timeIntervalSince(job.updatedAt), 30, accuracy: 1, "it waits for the delay")
        XCTAssertEqual(job.error, "the store is down", "the job says why it waits")
        XCTAssertEqual([job.snoozes, job.snoozeStreak, job.crashes], [1, 1, 0])
        XCTAssertEqual(job.attempt - job.crashes - job.snoozes, 0, "no handler attempt spent")
        XCTAssertEqual(job.errors, "[]", "a snooze is not a failure: the error history is unchanged")
        XCTAssertNil(job.leaseOwner)
        try await XCTAssertEqualAsync(try await claim(), [], "waiting")

        let events = try await queue.events(jobID: id)
        XCTAssertEqual(events.map(\.type), ["running", "requeued"])
        let data = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(events[1].data.utf8)) as? [String: Any])
        XCTAssertEqual(data["reason"] as? String, "snoozed")
        XCTAssertEqual(data["error"] as? String, "the store is down")
        XCTAssertEqual(data["snoozes"] as? Int, 1)
        XCTAssertNotNil(data["run_at"])

        try await makeClaimable(id)
        let second = try await claim()[0]
        XCTAssertEqual([second.attempt, second.snoozes, second.snoozeStreak, second.handlerAttempt], [2, 1, 1, 1])
        XCTAssertTrue(second.isLastAttempt, "still the first handler attempt")
        _ = try await queue.complete([Completion(job: second, outcome: .snoozed(reason: "still down", delay: .seconds(1)))], worker: "w1")
        let twice = try await queue.job(id: id)
        XCTAssertEqual([twice.snoozes, twice.snoozeStreak], [2, 2], "snoozes in a row")
        XCTAssertEqual(twice.error, "still down")

        try await makeClaimable(id)
        let third = try await claim()[0]
        XCTAssertEqual(third.handlerAttempt, 1)
        _ = try await queue.complete([Completion(job: third, outcome: .succeeded(result: nil))], worker: "w1")
        let done = try await queue.job(id: id)
        XCTAssertEqual(done.state, .succeeded)
        XCTAssertNil(done.error)
        XCTAssertEqual([done.snoozes, done.snoozeStreak], [2, 0], "a finished attempt ends the streak")
    }

    func testAStaleLeaseCannotSnooze() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let byA = try await claim("worker-a")[0]
        try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(), 1)
        let byB = try await claim("worker-b")[0]

        let stale = try await queue.complete(
            [Completion(job: byA, outcome: .snoozed(reason: "down", delay: .seconds(5)))], worker: "worker-a")
        XCTAssertEqual(stale, [], "the worker that lost its lease cannot snooze the job")
        let guessed = try await queue.complete(
            [Completion(jobID: id, attempt: byB.attempt, outcome: .snoozed(reason: "down", delay: .seconds(5)))], worker: "worker-a")
        XCTAssertEqual(guessed, [], "nor by guessing the new attempt number")
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .running)
        XCTAssertEqual(job.leaseOwner, "worker-b")
        XCTAssertEqual([job.snoozes, job.snoozeStreak], [0, 0])
    }

    func testAnOperatorRetryForgetsTheSnoozes() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        let first = try await claim()[0]
        _ = try await queue.complete([Completion(job: first, outcome: .snoozed(reason: "down", delay: .zero))], worker: "w1")
        let second = try await claim()[0]
        _ = try await queue.complete([Completion(job: second, outcome: .failed(error: "bad"))], worker: "w1")
        try await queue.retry(id: id)
        let job = try await queue.job(id: id)
        XCTAssertEqual([job.attempt, job.crashes, job.snoozes, job.snoozeStreak], [0, 0, 0, 0], "an operator's retry starts afresh")
    }
}
