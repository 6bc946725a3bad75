import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// The queue library against a real PostgreSQL: enqueue, claim order, delays, idempotency,
/// fencing, retries, cancellation, pause/resume, purge, rescue.
final class QueueTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func claim(_ worker: String = "w1", limit: Int = 10, kinds: [String] = ["k"], queues: [String] = ["default"]) async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: queues, kinds: kinds, limit: limit, lease: lease)
    }

    func testEnqueueClaimCompleteRecordsResultAndEvents() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", payload: #"{"n": 1}"#, requestID: "req-1")).id
        let claimed = try await claim()
        XCTAssertEqual(claimed.map(\.id), [id])
        XCTAssertEqual(claimed[0].attempt, 1)
        XCTAssertEqual(claimed[0].payload, #"{"n": 1}"#)
        XCTAssertEqual(claimed[0].requestID, "req-1")
        try await XCTAssertEqualAsync(try await claim(), [], "a running job is not claimed twice")

        let landed = try await queue.complete([Completion(job: claimed[0], outcome: .succeeded(result: #"{"ok": true}"#))], worker: "w1")
        XCTAssertEqual(landed, [id])
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(job.result, #"{"ok": true}"#)
        XCTAssertEqual(job.progress, 100)
        XCTAssertNil(job.leaseOwner)
        XCTAssertNotNil(job.finishedAt)
        let events = try await queue.events(jobID: id)
        XCTAssertEqual(events.map(\.type), ["running", "succeeded"])
        XCTAssertLessThan(events[0].id, events[1].id)
        try await XCTAssertEqualAsync(try await queue.events(jobID: id, after: events[0].id).map(\.type), ["succeeded"], "resume after an event id")
    }

    func testBadEnqueuesAreRefusedAndChangeNothing() async throws {
        for job in [NewJob(kind: ""), NewJob(kind: "k", payload: "[1]"), NewJob(kind: "k", payload: "{oops"),
                    NewJob(kind: "k", priority: 1000), NewJob(kind: "k", maxAttempts: 0)] {
            do {
                try await queue.enqueue([NewJob(kind: "k"), job])
                XCTFail("accepted \(job)")
            } catch {
                XCTAssertNotNil(DatabaseErrorText.queueError(error), "\(error)")
            }
        }
        try await XCTAssertEqualAsync(try await queue.jobs(JobFilter()).total, 0, "a refused batch inserts nothing")
    }

    func testHigherPriorityFirstThenOldestFirst() async throws {
        let low = try await queue.enqueue(NewJob(kind: "k", priority: -10)).id
        let first = try await queue.enqueue(NewJob(kind: "k")).id
        let high = try await queue.enqueue(NewJob(kind: "k", priority: Priority.interactive)).id
        let second = try await queue.enqueue(NewJob(kind: "k")).id
        var order: [UUID] = []
        for _ in 0..<4 { order += try await claim(limit: 1).map(\.id) }
        XCTAssertEqual(order, [high, first, second, low])
    }

    func testClaimTakesOnlyItsQueuesAndKinds() async throws {
        let mine = try await queue.enqueue(NewJob(kind: "k", queue: "images")).id
        _ = try await queue.enqueue(NewJob(kind: "k", queue: "other"))
        _ = try await queue.enqueue(NewJob(kind: "unknown", queue: "images"))
        try await XCTAssertEqualAsync(try await claim(queues: ["images"]).map(\.id), [mine])
    }

    func testDelayedJobIsNotClaimedBeforeItsTime() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", delay: .milliseconds(1500))).id
        try await XCTAssertEqualAsync(try await claim(), [])
        try await Task.sleep(for: .milliseconds(1600))
        try await XCTAssertEqualAsync(try await claim().map(\.id), [id])
    }

    func testIdempotencyKeyReturnsTheSameJob() async throws {
        let first = try await queue.enqueue(NewJob(kind: "k", owner: "alice", idempotencyKey: "key-1"))
        let again = try await queue.enqueue(NewJob(kind: "k", owner: "alice", idempotencyKey: "key-1"))
        let otherOwner = try await queue.enqueue(NewJob(kind: "k", owner: "bob", idempotencyKey: "key-1"))
        XCTAssertTrue(first.inserted)
        XCTAssertEqual(again, EnqueuedJob(id: first.id, inserted: false))
        XCTAssertTrue(otherOwner.inserted, "keys are per owner")
        XCTAssertNotEqual(otherOwner.id, first.id)
        let batch = try await queue.enqueue([
            NewJob(kind: "k", owner: "alice", idempotencyKey: "key-2"),
            NewJob(kind: "k", owner: "alice", idempotencyKey: "key-2"),
            NewJob(kind: "k", owner: "alice", idempotencyKey: "key-1"),
        ])
        XCTAssertTrue(batch[0].inserted)
        XCTAssertEqual(batch[1], EnqueuedJob(id: batch[0].id, inserted: false), "duplicates within one batch")
        XCTAssertEqual(batch[2], EnqueuedJob(id: first.id, inserted: false))
        try await XCTAssertEqualAsync(try await queue.jobs(JobFilter()).total, 3)
    }

    func testCompletionIsFencedOnTheLease() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let byA = try await claim("worker-a")[0]
        // A stops heartbeating: its lease expires and the rescuer returns the job to the queue.
        try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(), 1)
        let rescued = try await queue.job(id: id)
        XCTAssertEqual(rescued.state, .queued)
        XCTAssertTrue(rescued.error?.contains("worker-a") ?? false)
        let byB = try await claim("worker-b")[0]
        XCTAssertEqual(byB.attempt, 2)

        let late = try await queue.complete([Completion(job: byA, outcome: .succeeded(result: #"{"by": "a"}"#))], worker: "worker-a")
        XCTAssertEqual(late, [], "the worker that lost its lease cannot complete the job")
        let stolen = try await queue.complete([Completion(jobID: id, attempt: 2, outcome: .succeeded(result: #"{"by": "a"}"#))], worker: "worker-a")
        XCTAssertEqual(stolen, [], "nor by guessing the new attempt number")
        try await XCTAssertEqualAsync(try await queue.reportProgress(job: byA, percent: 50, step: "late"), false)
        try await XCTAssertEqualAsync(try await queue.job(id: id).state, .running)

        let landed = try await queue.complete([Completion(job: byB, outcome: .succeeded(result: #"{"by": "b"}"#))], worker: "worker-b")
        XCTAssertEqual(landed, [id])
        let again = try await queue.complete([Completion(job: byB, outcome: .failed(error: "twice"))], worker: "worker-b")
        XCTAssertEqual(again, [], "a result is written once")
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(job.result, #"{"by": "b"}"#)
    }

    func testRescueOfTheLastAttemptDoesNotFailTheJob() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        _ = try await claim()
        try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(), 1)
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued, "a lost attempt is a crash, not a failure (CrashTests)")
        XCTAssertEqual(job.crashes, 1)
    }

    func testRunningJobsOfLiveWorkersAreNotRescued() async throws {
        _ = try await queue.enqueue(NewJob(kind: "k"))
        _ = try await claim("nobody-registered")
        // The lease is valid; the owner never registered, but liveness only counts once the
        // database has been up for the restart grace period.
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .seconds(3600 * 24 * 365)), 0)
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .zero), 1, "an owner holding no liveness lock is dead")
    }

    func testRetryOutcomeRequeuesWithBackoffAndKeepsHistory() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 3)).id
        let first = try await claim()[0]
        let landed = try await queue.complete([Completion(job: first, outcome: .retry(error: "flaky", delay: .seconds(30)))], worker: "w1")
        XCTAssertEqual(landed, [id])
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued)
        XCTAssertEqual(job.error, "flaky")
        XCTAssertEqual(job.runAt.timeIntervalSince(job.updatedAt), 30, accuracy: 1)
        try await XCTAssertEqualAsync(try await claim(), [], "backing off")
        let history = try JSONSerialization.jsonObject(with: Data(job.errors.utf8)) as? [[String: Any]]
        XCTAssertEqual(history?.count, 1)
        XCTAssertEqual(history?.first?["attempt"] as? Int, 1)
        try await XCTAssertEqualAsync(try await queue.events(jobID: id).map(\.type), ["running", "retrying"])
    }

    func testReleasedJobReturnsAtOnceWithoutSpendingAnAttempt() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await claim()[0]
        _ = try await queue.complete([Completion(job: claimed, outcome: .released)], worker: "w1")
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued)
        XCTAssertEqual(job.attempt, 0)
        try await XCTAssertEqualAsync(try await claim().first?.attempt, 1)
    }

    func testCancelQueuedJobIsImmediate() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        try await XCTAssertEqualAsync(try await queue.cancel(id: id), .cancelled)
        try await XCTAssertEqualAsync(try await claim(), [])
        try await XCTAssertEqualAsync(try await queue.job(id: id).state, .cancelled)
        try await XCTAssertEqualAsync(try await queue.cancel(id: id), .cancelled, "cancelling twice is harmless")
        do {
            _ = try await queue.cancel(id: UUID())
            XCTFail("unknown id")
        } catch {
            guard case .jobNotFound = DatabaseErrorText.queueError(error) else { return XCTFail("\(error)") }
        }
    }

    func testCancelIsScopedToTheOwner() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", owner: "alice")).id
        do {
            _ = try await queue.cancel(id: id, owner: "mallory")
            XCTFail("another owner's job must look absent")
        } catch {
            XCTAssertNotNil(DatabaseErrorText.queueError(error))
        }
        do {
            _ = try await queue.job(id: id, owner: "mallory")
            XCTFail("another owner's job must look absent")
        } catch {}
        try await XCTAssertEqualAsync(try await queue.job(id: id).state, .queued)
    }

    func testCancelRunningJobFlagsItForItsWorker() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await claim()[0]
        try await XCTAssertEqualAsync(try await queue.cancel(id: id), .running)
        let report = try await queue.extendLeases([HeldLease(jobID: id, attempt: claimed.attempt)], worker: "w1", lease: lease)
        XCTAssertEqual(report.cancelRequested, [id], "the heartbeat tells the worker")
        _ = try await queue.complete([Completion(job: claimed, outcome: .cancelled(reason: "cancelled by request"))], worker: "w1")
        try await XCTAssertEqualAsync(try await queue.job(id: id).state, .cancelled)
    }

    func testPauseStopsClaimsAndResumeRestartsThem() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", queue: "images")).id
        try await queue.pause(queue: "images", actor: "tester")
        try await XCTAssertEqualAsync(try await claim(queues: ["images"]), [])
        try await XCTAssertEqualAsync(try await queue.queues(), [QueueInfo(name: "images", paused: true)])
        try await queue.resume(queue: "images", actor: "tester")
        try await XCTAssertEqualAsync(try await claim(queues: ["images"]).map(\.id), [id])
        let log = try await queue.auditLog(target: "queue:images")
        XCTAssertEqual(log.map(\.action), ["resume", "pause"], "each change is audited, newest first")
        XCTAssertEqual(Set(log.map(\.actor)), ["tester"])
    }

    /// A failure may say something for the API to act on (0026): kept as the failed job's
    /// result; a failure that says nothing leaves the result as it was.
    func testAFailureKeepsWhatItSaid() async throws {
        let said = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        let silent = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        let claimed = try await claim()
        XCTAssertEqual(Set(claimed.map(\.id)), [said, silent])
        let landed = try await queue.complete(claimed.map { job in
            Completion(job: job, outcome: job.id == said ? .failed(error: "unreadable", result: #"{"input_unreadable": true}"#)
                                                         : .failed(error: "boom"))
        }, worker: "w1")
        XCTAssertEqual(landed, [said, silent])
        let kept = try await queue.job(id: said)
        XCTAssertEqual(kept.state, .failed)
        XCTAssertEqual(kept.result, #"{"input_unreadable": true}"#)
        try await XCTAssertEqualAsync(try await queue.job(id: silent).result, nil)
        do {
            let next = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
            let job = try await claim()[0]
            XCTAssertEqual(job.id, next)
            _ = try await queue.complete([Completion(job: job, outcome: .failed(error: "x", result: "[1]"))], worker: "w1")
            XCTFail("a failure's result must be a JSON object")
        } catch {}
    }

    func testOperatorRetryOfFailedJobs() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1)).id
        let claimed = try await claim()[0]
        _ = try await queue.complete([Completion(job: claimed, outcome: .failed(error: "boom"))], worker: "w1")
        do {
            try await queue.retry(id: try await queue.enqueue(NewJob(kind: "k")).id)
            XCTFail("a queued job cannot be retried")
        } catch {
            XCTAssertTrue(DatabaseErrorText.describe(error).contains("only failed or cancelled"))
        }
        try await queue.retry(id: id)
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued)
        XCTAssertEqual(job.attempt, 0)
        XCTAssertEqual(job.error, "boom", "history is kept")
    }

    func testPurgeDeletesOnlyOldFinishedJobsWithTheirEvents() async throws {
        let old = try await queue.enqueue(NewJob(kind: "k")).id
        let recent = try await queue.enqueue(NewJob(kind: "k")).id
        let waiting = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await claim(limit: 2)
        _ = try await queue.complete(claimed.map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w1")
        try await db.execute("UPDATE jobs SET finished_at = now() - interval '8 days' WHERE id = \(old)")
        let purged = try await queue.maintenance.purgeFinished(olderThan: .seconds(7 * 86400))
        XCTAssertEqual(purged, [old])
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_events WHERE job_id = \(old)", as: Int.self), 0)
        let remaining = Set(try await queue.jobs(JobFilter()).jobs.map(\.id))
        XCTAssertEqual(remaining, [recent, waiting])
    }

    func testStatsCountByKindAndStateAndQueueDepth() async throws {
        try await queue.enqueue((0..<3).map { _ in NewJob(kind: "k") })
        try await queue.enqueue(NewJob(kind: "other", delay: .seconds(600)))
        let claimed = try await claim(limit: 1)
        _ = try await queue.complete([Completion(job: claimed[0], outcome: .succeeded(result: nil))], worker: "w1")
        let stats = try await queue.stats(minutes: 3)
        let counts = Dictionary(uniqueKeysWithValues: stats.counts.map { ("\($0.kind)/\($0.state.rawValue)", $0.count) })
        XCTAssertEqual(counts, ["k/queued": 2, "k/succeeded": 1, "other/queued": 1])
        XCTAssertEqual(stats.queues.first?.ready, 2)
        XCTAssertEqual(stats.queues.first?.scheduled, 1)
        XCTAssertEqual(stats.throughput.count, 3)
        XCTAssertEqual(stats.throughput.last?.succeeded, 1)
    }

    func testProgressIsRecordedAsEvents() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await claim()[0]
        try await XCTAssertTrueAsync(try await queue.reportProgress(job: claimed, percent: 40, step: "decode", detail: #"{"stage": 1}"#))
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.progress, 40)
        XCTAssertEqual(job.progressStep, "decode")
        let event = try await queue.events(jobID: id).last
        XCTAssertEqual(event?.type, "progress")
        let data = try JSONSerialization.jsonObject(with: Data(event!.data.utf8)) as? [String: Any]
        XCTAssertEqual(data?["progress"] as? Int, 40)
        XCTAssertEqual(data?["stage"] as? Int, 1)
    }
}
