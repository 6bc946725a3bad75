import AtelierTestSupport
import AtelierQueue
@testable import AtelierWorker
import Foundation
import XCTest

/// Attempts lost to a dead worker are counted apart from handler failures (migration 0008):
/// they never use up `max_attempts`, and a job that kills its worker `crashLimit` times in a
/// row is failed as a poison pill. Every crash here is made by hand — a claim by a worker that
/// then "dies" (its lease expired by SQL, or it never held a liveness lock) and one call of the
/// rescuer — so nothing depends on timing.
final class CrashTests: DatabaseTestCase {
    private let lease = Duration.seconds(30)

    private func claim(_ worker: String, kinds: [String] = ["k"]) async throws -> ClaimedJob? {
        try await queue.claim(worker: worker, queues: ["default"], kinds: kinds, limit: 1, lease: lease).first
    }

    /// Claims the job as `worker`, which then dies: its lease runs out (a hung worker) or, by
    /// default, its process is gone (it holds no liveness lock). Returns the job afterwards.
    private func crash(_ id: UUID, worker: String, kinds: [String] = ["k"], crashLimit: Int = JobQueue.defaultCrashLimit,
                       hung: Bool = false, file: StaticString = #filePath, line: UInt = #line) async throws -> Job {
        let claimed = try await claim(worker, kinds: kinds)
        XCTAssertEqual(claimed?.id, id, "the job was claimable", file: file, line: line)
        if hung {
            try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
            try await XCTAssertEqualAsync(try await queue.rescueLostJobs(crashLimit: crashLimit), 1, file: file, line: line)
        } else {
            // The lease is valid, but `worker` holds no liveness lock: a killed process.
            try await XCTAssertEqualAsync(try await queue.rescueLostJobs(restartGrace: .zero, crashLimit: crashLimit), 1,
                                          file: file, line: line)
        }
        return try await queue.job(id: id)
    }

    func testWorkerDeathsDoNotUseUpMaxAttempts() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 2)).id
        for n in 1...3 {   // max_attempts + 1 deaths: before 0008 the second one failed the job
            let job = try await crash(id, worker: "doomed-\(n)", hung: n == 2)
            XCTAssertEqual(job.state, .queued, "death \(n) of the job's worker must not fail a job that never failed itself")
            XCTAssertEqual(job.crashes, n)
            XCTAssertEqual(job.crashStreak, n)
            XCTAssertEqual(job.error, "worker doomed-\(n) stopped during attempt \(n) " + (n == 2 ? "(its lease expired)" : "(its process is gone)"))
        }
        let survivor = try await claim("healthy")
        XCTAssertEqual(survivor?.attempt, 4, "the claim number keeps counting: completion is fenced on it")
        XCTAssertEqual(survivor?.handlerAttempt, 1, "but this is the handler's first attempt")
        XCTAssertEqual(survivor?.isLastAttempt, false)
        let landed = try await queue.complete([Completion(job: survivor!, outcome: .succeeded(result: #"{"ok": true}"#))], worker: "healthy")
        XCTAssertEqual(landed, [id])
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(job.crashes, 3)
        XCTAssertEqual(job.crashStreak, 0, "a finished attempt ends the streak")
        let events = try await queue.events(jobID: id)
        XCTAssertEqual(events.map(\.type), ["running", "requeued", "running", "requeued", "running", "requeued", "running", "succeeded"])
        let requeued = try JSONSerialization.jsonObject(with: Data(events[5].data.utf8)) as? [String: Any]
        XCTAssertEqual(requeued?["reason"] as? String, "worker_lost")
        XCTAssertEqual(requeued?["crashes"] as? Int, 3)
        let history = try JSONSerialization.jsonObject(with: Data(job.errors.utf8)) as? [[String: Any]]
        XCTAssertEqual(history?.map { $0["crash"] as? Bool }, [true, true, true])
    }

    func testJobThatKillsItsWorkerRepeatedlyFailsAsAPoisonPill() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 10)).id
        for n in 1...2 {
            try await XCTAssertEqualAsync(try await crash(id, worker: "victim-\(n)", crashLimit: 3).state, .queued)
        }
        let job = try await crash(id, worker: "victim-3", crashLimit: 3)
        XCTAssertEqual(job.state, .failed, "the third death in a row reaches the crash limit")
        XCTAssertNotNil(job.finishedAt)
        XCTAssertEqual(job.crashes, 3)
        let error = job.error ?? ""
        XCTAssertTrue(error.hasPrefix("poison pill: the job stopped its worker 3 times in a row"), error)
        XCTAssertTrue(error.contains("worker victim-3 stopped during attempt 3"), error)
        let last = try await queue.events(jobID: id).last
        XCTAssertEqual(last?.type, "failed")
        let data = try JSONSerialization.jsonObject(with: Data(last!.data.utf8)) as? [String: Any]
        XCTAssertEqual(data?["reason"] as? String, "poison_pill")
        XCTAssertEqual(data?["error"] as? String, error)
        try await XCTAssertEqualAsync(try await claim("next")?.id, nil, "a poison pill is not run again")

        try await queue.retry(id: id)
        let retried = try await queue.job(id: id)
        XCTAssertEqual([retried.attempt, retried.crashes, retried.crashStreak], [0, 0, 0], "an operator's retry starts afresh")
    }

    func testOnlyCrashesInARowMakeAPoisonPill() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 10)).id
        for n in 1...2 { _ = try await crash(id, worker: "a-\(n)", crashLimit: 3) }
        // The handler finishes an attempt (a transient failure): the job did not kill that worker.
        let attempt = try await claim("b")!
        _ = try await queue.complete([Completion(job: attempt, outcome: .retry(error: "flaky", delay: .zero))], worker: "b")
        try await XCTAssertEqualAsync(try await queue.job(id: id).crashStreak, 0)
        for n in 1...2 {
            try await XCTAssertEqualAsync(try await crash(id, worker: "c-\(n)", crashLimit: 3).state, .queued,
                                          "4 crashes in all, but never 3 in a row")
        }
        let job = try await queue.job(id: id)
        XCTAssertEqual([job.crashes, job.crashStreak], [4, 2])
    }

    func testHandlerFailuresStillCountAgainstMaxAttempts() async throws {
        // Two deaths first, then the `fail` handler fails every attempt it gets: the job fails
        // after exactly max_attempts handler failures, as it did before 0008.
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "upstream 503"}"#, maxAttempts: 2)).id
        for n in 1...2 { _ = try await crash(id, worker: "dead-\(n)", kinds: ["fail"]) }
        let worker = try InProcessWorker.start(db)
        var job = try await queue.job(id: id)
        try await db.eventually("the fail job to end") {
            job = try await queue.job(id: id)
            return job.state == .failed || job.state == .succeeded
        }
        try await worker.stop()
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual(job.error, "upstream 503", "a handler failure, not a crash, ended it")
        XCTAssertEqual(job.attempt, 4, "2 lost to dead workers + 2 handler attempts")
        XCTAssertEqual(job.crashes, 2)
        let history = try JSONSerialization.jsonObject(with: Data(job.errors.utf8)) as? [[String: Any]]
        XCTAssertEqual(history?.map { $0["crash"] as? Bool ?? false }, [true, true, false, false])
        XCTAssertEqual(history?.compactMap { $0["attempt"] as? Int }, [1, 2, 3, 4])
        try await XCTAssertEqualAsync(try await queue.events(jobID: id).map(\.type),
                                      ["running", "requeued", "running", "requeued", "running", "retrying", "running", "failed"])
    }

    func testExecutorDecidesTheLastAttemptFromHandlerAttempts() async throws {
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "nope"}"#, maxAttempts: 1)).id
        _ = try await crash(id, worker: "gone", kinds: ["fail"])
        let job = try await claim("w", kinds: ["fail"])!
        XCTAssertEqual([job.attempt, job.crashes, job.handlerAttempt], [2, 1, 1])
        let executor = JobExecutor(queue: queue, handlers: HandlerRegistry(DiagnosticHandlers.all(environment: [:])),
                                   logger: queue.logger)
        let outcome = await executor.execute(job, stopSignal: StopSignal())
        XCTAssertEqual(outcome, .failed(error: "nope"), "the one handler attempt allowed was this one")
    }
}
