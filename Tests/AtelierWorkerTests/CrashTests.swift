import AtelierHandlers
import AtelierQueue
import AtelierTestSupport
@testable import AtelierWorker
import Foundation
import XCTest

/// Attempts lost to a dead worker are counted apart from handler failures (migration 0008):
/// they never use up `max_attempts`, and a job that kills its worker `crashLimit` times in a
/// row while running alone is failed as a poison pill; a job lost together with others is not
/// blamed but runs alone next (migration 0013). Every crash here is made by hand — a claim by a
/// worker that then "dies" (its lease expired by SQL, or it never held a liveness lock) and one
/// call of the rescuer — so nothing depends on timing.
final class CrashTests: DatabaseTestCase {
    private let lease = Duration.seconds(30)

    private func claim(_ worker: String, kinds: [String] = ["k"]) async throws -> ClaimedJob? {
        try await queue.claim(worker: worker, queues: ["default"], kinds: kinds, limit: 1, lease: lease).first
    }

    /// Up to `limit` jobs for `worker`. Unless a test says otherwise, marked jobs never count as
    /// waiting too long (an hour), so no claim here depends on how fast the test runs.
    private func claimMany(_ worker: String, kinds: [String] = ["k"], queues: [String] = ["default"], limit: Int = 10,
                           isolationWait: Duration = .seconds(3600)) async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: queues, kinds: kinds, limit: limit, lease: lease, isolationWait: isolationWait)
    }

    /// `worker` claims exactly `ids` together and dies (it holds no liveness lock); one rescue.
    private func crashTogether(_ ids: [UUID], worker: String, kinds: [String] = ["k"], crashLimit: Int = QueueMaintenance.defaultCrashLimit,
                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let claimed = try await claimMany(worker, kinds: kinds, limit: ids.count)
        XCTAssertEqual(Set(claimed.map(\.id)), Set(ids), "the jobs were claimable together", file: file, line: line)
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .zero, crashLimit: crashLimit), ids.count,
                                      file: file, line: line)
    }

    private func eventData(_ event: JobEvent?) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data((event?.data ?? "{}").utf8)) as? [String: Any] ?? [:]
    }

    /// Claims the job as `worker`, which then dies: its lease runs out (a hung worker) or, by
    /// default, its process is gone (it holds no liveness lock). Returns the job afterwards.
    private func crash(_ id: UUID, worker: String, kinds: [String] = ["k"], crashLimit: Int = QueueMaintenance.defaultCrashLimit,
                       hung: Bool = false, file: StaticString = #filePath, line: UInt = #line) async throws -> Job {
        // Whatever wait the last crash alone set has passed (testRepeatedCrashesAloneAreSpacedOut).
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id) AND state = 'queued'")
        let claimed = try await claim(worker, kinds: kinds)
        XCTAssertEqual(claimed?.id, id, "the job was claimable", file: file, line: line)
        if hung {
            try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")
            try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(crashLimit: crashLimit), 1, file: file, line: line)
        } else {
            // The lease is valid, but `worker` holds no liveness lock: a killed process.
            try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .zero, crashLimit: crashLimit), 1,
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
            XCTAssertEqual(job.crashStreak, n, "its worker ran nothing else: the crash is the job's")
            XCTAssertTrue(job.runAlone)
            XCTAssertEqual(job.error, "worker doomed-\(n) stopped during attempt \(n) " + (n == 2 ? "(its lease expired)" : "(its process is gone)"))
        }
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")   // the last crash's wait is over
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
        XCTAssertFalse(job.runAlone, "and the isolation")
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
        XCTAssertTrue(error.hasPrefix("poison pill: the job stopped its worker 3 times in a row while running alone"), error)
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
        XCTAssertFalse(retried.runAlone)
    }

    func testOnlyCrashesInARowMakeAPoisonPill() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 10)).id
        for n in 1...2 { _ = try await crash(id, worker: "a-\(n)", crashLimit: 3) }
        // The handler finishes an attempt (a transient failure): the job did not kill that worker.
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")   // the second crash's wait is over
        let claimed = try await claim("b")
        let attempt = try XCTUnwrap(claimed)
        _ = try await queue.complete([Completion(job: attempt, outcome: .retry(error: "flaky", delay: .zero))], worker: "b")
        try await XCTAssertEqualAsync(try await queue.job(id: id).crashStreak, 0)
        for n in 1...2 {
            try await XCTAssertEqualAsync(try await crash(id, worker: "c-\(n)", crashLimit: 3).state, .queued,
                                          "4 crashes in all, but never 3 in a row")
        }
        let job = try await queue.job(id: id)
        XCTAssertEqual([job.crashes, job.crashStreak], [4, 2])
    }

    // MARK: Isolation (migration 0013)

    func testJobsLostTogetherAreNotBlamedButRunAloneNext() async throws {
        // A process running three jobs is killed: from the queue's side any of them, or none
        // (an operator, the OOM killer making room, ./ops/chaos), may have done it.
        let ids = try await queue.enqueue((0..<3).map { _ in NewJob(kind: "k", maxAttempts: 1) }).map(\.id)
        try await crashTogether(ids, worker: "crowded", crashLimit: 1)
        for id in ids {
            let job = try await queue.job(id: id)
            XCTAssertEqual(job.state, .queued, "not a poison pill, even with a crash limit of 1: it was not alone")
            XCTAssertEqual(job.crashes, 1)
            XCTAssertEqual(job.crashStreak, 0, "a crash shared with other jobs does not count towards the limit")
            XCTAssertTrue(job.runAlone, "its next attempt runs alone, where a crash would be its own")
            XCTAssertEqual(job.error, "worker crowded stopped during attempt 1 (its process is gone; 2 other jobs were running in it)")
            let requeued = try eventData(try await queue.events(jobID: id).last)
            XCTAssertEqual(requeued["reason"] as? String, "worker_lost")
            XCTAssertEqual(requeued["shared_with"] as? Int, 2)
            XCTAssertEqual(requeued["crash_streak"] as? Int, 0)
        }
    }

    func testAMarkedJobIsClaimedOnlyByAnIdleWorkerAndAlone() async throws {
        let marked = try await queue.enqueue([NewJob(kind: "k"), NewJob(kind: "k")]).map(\.id)
        try await crashTogether(marked, worker: "crowded")
        let fresh = try await queue.enqueue([NewJob(kind: "k"), NewJob(kind: "k")]).map(\.id)
        let other = try await queue.enqueue(NewJob(kind: "other")).id
        // "busy" runs a job of another kind (as the database sees it: a claim not completed).
        try await XCTAssertEqualAsync(try await claimMany("busy", kinds: ["other"]).map(\.id), [other])

        let byBusy = try await claimMany("busy")
        XCTAssertEqual(Set(byBusy.map(\.id)), Set(fresh), "a busy worker gets the unmarked jobs only, though the marked ones come first")
        XCTAssertEqual(byBusy.map(\.runAlone), [false, false])

        // (The two marked jobs were requeued by one statement: claim order between them is their ids'.)
        let byIdle = try await claimMany("idle")
        XCTAssertEqual(byIdle.count, 1, "an idle worker gets one marked job, and nothing with it")
        let first = try XCTUnwrap(byIdle.first)
        XCTAssertTrue(marked.contains(first.id))
        XCTAssertTrue(first.runAlone)
        let running = try eventData(try await queue.events(jobID: first.id).last)
        XCTAssertEqual(running["alone"] as? Bool, true, "its running event says so")

        let later = try await queue.enqueue(NewJob(kind: "k")).id
        try await XCTAssertEqualAsync(try await claimMany("idle").map(\.id), [], "a worker running a marked job claims nothing else")
        try await XCTAssertEqualAsync(try await claimMany("idle-2").map(\.id), marked.filter { $0 != first.id },
                                      "another idle worker takes the other marked job, ahead of the unmarked one")

        // The isolated attempt succeeds: its worker claims as usual again, and the job is clear.
        let landed = try await queue.complete([Completion(job: first, outcome: .succeeded(result: nil))], worker: "idle")
        XCTAssertEqual(landed, [first.id])
        let done = try await queue.job(id: first.id)
        XCTAssertEqual([done.crashes, done.crashStreak], [1, 0])
        XCTAssertFalse(done.runAlone, "a finished attempt clears the mark")
        try await XCTAssertEqualAsync(try await claimMany("idle").map(\.id), [later])
    }

    func testBusyWorkersDrainForAMarkedJobThatWaitedTooLong() async throws {
        let marked = try await queue.enqueue(NewJob(kind: "k")).id
        _ = try await crash(marked, worker: "gone")
        var fresh: [UUID] = []
        for _ in 0..<3 { fresh.append(try await queue.enqueue(NewJob(kind: "k")).id) }   // one by one: in claim order
        let other = try await queue.enqueue(NewJob(kind: "other")).id
        try await XCTAssertEqualAsync(try await claimMany("busy", kinds: ["other"]).map(\.id), [other])

        // An isolation wait of zero: the marked job, rescued before this claim began, has waited
        // too long. The busy worker claims nothing, so it drains, becomes idle and takes it.
        try await XCTAssertEqualAsync(try await claimMany("busy", isolationWait: .zero).map(\.id), [],
                                      "a busy worker stops claiming while a marked job it could run waits too long")
        try await XCTAssertEqualAsync(try await claimMany("busy", limit: 1).map(\.id), [fresh[0]],
                                      "within the wait it claims unmarked jobs")
        // Only a marked job this worker could run holds it back: not one of a kind it does not
        // run, nor one in a paused queue.
        try await db.execute("UPDATE jobs SET kind = 'k2' WHERE id = \(marked)")
        try await XCTAssertEqualAsync(try await claimMany("busy", limit: 1, isolationWait: .zero).map(\.id), [fresh[1]])
        try await db.execute("UPDATE jobs SET kind = 'k', queue = 'slow' WHERE id = \(marked)")
        try await queue.pause(queue: "slow", actor: "test")
        try await XCTAssertEqualAsync(try await claimMany("busy", queues: ["default", "slow"], isolationWait: .zero).map(\.id), [fresh[2]],
                                      "a marked job in a paused queue is not waiting for anyone")
        try await XCTAssertEqualAsync(try await claimMany("idle", queues: ["default", "slow"]).map(\.id), [],
                                      "nor is it claimed by an idle worker")
        try await queue.resume(queue: "slow", actor: "test")
        try await XCTAssertEqualAsync(try await claimMany("idle", queues: ["default", "slow"]).map(\.id), [marked])
    }

    func testRepeatedCrashesAloneAreSpacedOut() async throws {
        // The first crash alone is retried at once (a single kill costs no extra wait); from the
        // second in a row on, the job waits 1 s, 2 s, 4 s … (±25 %) before it runs alone again.
        // The wait is read as run_at − updated_at, both set by the rescue: no clock is involved.
        let id = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 10)).id
        let wait = { (job: UUID) async throws -> Double in
            try await self.db.scalar("SELECT extract(epoch FROM run_at - updated_at)::float8 FROM jobs WHERE id = \(job)",
                                     as: Double.self)
        }
        for (n, seconds) in [(1, 0.0), (2, 1.0), (3, 2.0), (4, 4.0)] {
            _ = try await crash(id, worker: "alone-\(n)", crashLimit: 10)
            let waited = try await wait(id)
            XCTAssertTrue((seconds * 0.75...seconds * 1.25).contains(waited), "crash \(n) alone: waits \(waited) s, not about \(seconds) s")
        }
        // A crash shared with other jobs is no evidence against either: no wait.
        let pair = try await queue.enqueue([NewJob(kind: "k2"), NewJob(kind: "k2")]).map(\.id)
        try await crashTogether(pair, worker: "crowded", kinds: ["k2"])
        for job in pair { try await XCTAssertEqualAsync(try await wait(job), 0) }
    }

    func testAPoisonPillAmongOthersIsFailedOnceItHasCrashedAloneCrashLimitTimes() async throws {
        // The pill's first crash is shared with a bystander: neither is blamed, both run alone next.
        let pill = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 10)).id
        let bystander = try await queue.enqueue(NewJob(kind: "other")).id
        try await crashTogether([pill, bystander], worker: "crowded", kinds: ["k", "other"], crashLimit: 3)
        try await XCTAssertEqualAsync(try await queue.job(id: pill).crashStreak, 0)
        // Alone, it kills its worker every time: crash limit 3 crashes alone fail it.
        for n in 1...2 {
            let job = try await crash(pill, worker: "alone-\(n)", crashLimit: 3)
            XCTAssertEqual([job.crashes, job.crashStreak], [n + 1, n])
            XCTAssertEqual(job.state, .queued)
        }
        let job = try await crash(pill, worker: "alone-3", crashLimit: 3)
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual([job.crashes, job.crashStreak], [4, 3])
        XCTAssertEqual(job.error, "poison pill: the job stopped its worker 3 times in a row while running alone (crash limit 3; "
                       + "last: worker alone-3 stopped during attempt 4 (its process is gone)); failed without another try")
        let failed = try eventData(try await queue.events(jobID: pill).last)
        XCTAssertEqual(failed["reason"] as? String, "poison_pill")
        XCTAssertEqual(failed["shared_with"] as? Int, 0)

        // The bystander runs alone once, succeeds, and is clear.
        let alone = try await claimMany("next", kinds: ["other"])
        XCTAssertEqual(alone.map(\.id), [bystander])
        _ = try await queue.complete([Completion(job: alone[0], outcome: .succeeded(result: nil))], worker: "next")
        let cleared = try await queue.job(id: bystander)
        XCTAssertEqual(cleared.state, .succeeded)
        XCTAssertEqual([cleared.crashes, cleared.crashStreak], [1, 0])
        XCTAssertFalse(cleared.runAlone)

        // An operator's retry starts the pill afresh, unmarked.
        try await queue.retry(id: pill)
        let retried = try await queue.job(id: pill)
        XCTAssertEqual([retried.attempt, retried.crashes, retried.crashStreak], [0, 0, 0])
        XCTAssertFalse(retried.runAlone)
    }

    func testTheMarkLastsUntilAHandlerFinishesAnAttempt() async throws {
        let ids = try await queue.enqueue([NewJob(kind: "k", maxAttempts: 5), NewJob(kind: "k", maxAttempts: 5)]).map(\.id)
        try await crashTogether(ids, worker: "crowded")
        // A transient failure is a finished attempt: the handler ran to its end, the process lived.
        let first = try await claimMany("a")
        XCTAssertEqual(first.count, 1)
        let (one, other) = first.first?.id == ids[0] ? (ids[0], ids[1]) : (ids[1], ids[0])
        _ = try await queue.complete([Completion(job: first[0], outcome: .retry(error: "flaky", delay: .zero))], worker: "a")
        let retried = try await queue.job(id: one)
        XCTAssertEqual(retried.state, .queued)
        XCTAssertFalse(retried.runAlone, "a finished attempt clears the mark")
        // Released on shutdown: the handler did not finish, so the job still runs alone.
        let second = try await claimMany("b")
        XCTAssertEqual(second.map(\.id), [other], "an idle worker takes the marked job first")
        _ = try await queue.complete([Completion(job: second[0], outcome: .released)], worker: "b")
        try await XCTAssertTrueAsync(try await queue.job(id: other).runAlone, "a released attempt keeps the mark")
    }

    func testHandlerFailuresStillCountAgainstMaxAttempts() async throws {
        // Two deaths first, then the `fail` handler fails every attempt it gets: the job fails
        // after exactly max_attempts handler failures, as it did before 0008.
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "upstream 503"}"#, maxAttempts: 2)).id
        for n in 1...2 { _ = try await crash(id, worker: "dead-\(n)", kinds: ["fail"]) }
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")   // the second crash's wait is over
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
                                   logger: queue.logger, stopGrace: .seconds(30))
        let outcome = await executor.execute(job, stopSignal: StopSignal()).outcome
        XCTAssertEqual(outcome, .failed(error: "nope"), "the one handler attempt allowed was this one")
    }
}
