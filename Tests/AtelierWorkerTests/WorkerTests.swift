import AtelierTestSupport
import AtelierQueue
@testable import AtelierWorker
import Foundation
import Logging
import Synchronization
import XCTest

/// The worker runtime in-process: retries, permanent failures, cancellation of running jobs,
/// drain, progress, a wake-up by NOTIFY.
final class WorkerTests: DatabaseTestCase {
    private func waitForState(_ id: UUID, _ states: Set<JobState>, timeout: Duration = .seconds(60)) async throws -> Job {
        var last: Job?
        try await db.eventually("job \(id) to reach \(states)", timeout: timeout) {
            last = try await queue.job(id: id)
            return states.contains(last!.state)
        }
        return last!
    }

    func testTransientFailuresAreRetriedUntilMaxAttempts() async throws {
        let worker = try InProcessWorker.start(db)
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "upstream 503"}"#, maxAttempts: 3)).id
        let job = try await waitForState(id, [.failed])
        XCTAssertEqual(job.attempt, 3)
        XCTAssertEqual(job.error, "upstream 503")
        let history = try JSONSerialization.jsonObject(with: Data(job.errors.utf8)) as? [[String: Any]]
        XCTAssertEqual(history?.compactMap { $0["attempt"] as? Int }, [1, 2, 3])
        try await XCTAssertEqualAsync(try await queue.events(jobID: id).map(\.type),
                       ["running", "retrying", "running", "retrying", "running", "failed"])
        try await worker.stop()
    }

    func testRetriedJobCanSucceedLater() async throws {
        let worker = try InProcessWorker.start(db)
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"succeed_on_attempt": 2}"#)).id
        let job = try await waitForState(id, [.succeeded, .failed])
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(job.attempt, 2)
        XCTAssertNil(job.error)
        try await worker.stop()
    }

    func testPermanentFailureFailsAtOnce() async throws {
        let worker = try InProcessWorker.start(db)
        let id = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "not an image", "permanent": true}"#)).id
        let bad = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"milliseconds": 5}"#)).id
        let job = try await waitForState(id, [.failed])
        XCTAssertEqual(job.attempt, 1)
        XCTAssertEqual(job.error, "not an image")
        let badJob = try await waitForState(bad, [.failed])
        XCTAssertEqual(badJob.attempt, 1, "a payload that does not decode is permanent")
        XCTAssertTrue(badJob.error?.contains("missing field 'ms'") ?? false, badJob.error ?? "")
        try await worker.stop()
    }

    func testCancellingARunningJobStopsItsHandler() async throws {
        let worker = try InProcessWorker.start(db)
        let id = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 60000}"#)).id
        _ = try await waitForState(id, [.running])
        try await XCTAssertEqualAsync(try await queue.cancel(id: id), .running)
        let job = try await waitForState(id, [.cancelled, .succeeded, .failed], timeout: .seconds(20))
        XCTAssertEqual(job.state, .cancelled)
        XCTAssertEqual(job.error, "cancelled by request")
        try await worker.stop()
    }

    /// A bulk cancel tells the running jobs it matches to stop, as a single cancel does: a live
    /// worker stops them and records them cancelled; the queued ones are cancelled at once.
    func testABulkCancelStopsTheRunningJobsItMatches() async throws {
        let worker = try InProcessWorker.start(db)
        let running = try await queue.enqueue((0..<2).map { _ in NewJob(kind: "sleep", payload: #"{"ms": 60000}"#) }).map(\.id)
        for id in running { _ = try await waitForState(id, [.running]) }
        let waiting = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 1}"#, queue: "held")).id
        let action = try await queue.bulkActions.begin(.cancel, try JobCriteria(terms: ["kind=sleep"]), actor: "ops")
        let ended = try await BulkActionRunner(queue: queue, logger: Logger(label: "test")) { _ in }.run(action.id)
        XCTAssertEqual(ended.stopping, 2)
        XCTAssertEqual(ended.acted, 1)
        for id in running {
            let job = try await waitForState(id, [.cancelled, .succeeded, .failed], timeout: .seconds(20))
            XCTAssertEqual(job.state, .cancelled)
        }
        try await XCTAssertEqualAsync(try await queue.job(id: waiting).state, .cancelled)
        try await worker.stop()
    }

    func testDrainFinishesShortJobsAndReleasesLongOnes() async throws {
        let worker = try InProcessWorker.start(db) { $0.drainTimeout = .milliseconds(1500) }
        let short = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 300}"#)).id
        let long = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 60000}"#)).id
        _ = try await waitForState(short, [.running])
        _ = try await waitForState(long, [.running])
        try await worker.stop()
        try await XCTAssertEqualAsync(try await queue.job(id: short).state, .succeeded, "finished during the drain")
        let released = try await queue.job(id: long)
        XCTAssertEqual(released.state, .queued, "released back to the queue")
        XCTAssertEqual(released.attempt, 0, "the interrupted attempt does not count")
        try await XCTAssertEqualAsync(try await queue.workers(), [], "deregistered")
    }

    func testTimeoutIsATransientFailure() async throws {
        struct Slow: JobHandler {
            let kind = "slow"
            var timeout: Duration? { .milliseconds(200) }
            var retryPolicy: RetryPolicy { RetryPolicy(base: .milliseconds(50), jitter: 0) }
            func run(_ context: JobContext) async throws -> JobResult {
                try await Task.sleep(for: .seconds(60))
                return .none
            }
        }
        let worker = try InProcessWorker.start(db, handlers: [Slow()])
        let id = try await queue.enqueue(NewJob(kind: "slow", maxAttempts: 2)).id
        let job = try await waitForState(id, [.failed])
        XCTAssertEqual(job.attempt, 2)
        XCTAssertTrue(job.error?.hasPrefix("timed out after") ?? false, job.error ?? "")
        try await worker.stop()
    }

    /// A job's own timeout (`timeout_s`) bounds its attempts, within its kind's: a job may ask
    /// for less time than the kind allows, never more.
    func testAJobsOwnTimeoutBoundsItsAttempts() async throws {
        struct Sleeper: JobHandler {
            let kind: String
            let timeout: Duration?
            var retryPolicy: RetryPolicy { RetryPolicy(base: .milliseconds(50), jitter: 0) }
            func run(_ context: JobContext) async throws -> JobResult {
                let ms = try context.payload(as: [String: Int].self)["ms"] ?? 0
                try await Task.sleep(for: .milliseconds(ms))
                return .none
            }
        }
        let worker = try InProcessWorker.start(db, handlers: [Sleeper(kind: "patient", timeout: .seconds(600)),
                                                              Sleeper(kind: "brisk", timeout: .milliseconds(200))])
        let stuck = try await queue.enqueue(NewJob(kind: "patient", payload: #"{"ms": 600000}"#, maxAttempts: 2,
                                                   timeout: .milliseconds(200))).id
        let quick = try await queue.enqueue(NewJob(kind: "patient", payload: #"{"ms": 10}"#, timeout: .seconds(30))).id
        let greedy = try await queue.enqueue(NewJob(kind: "brisk", payload: #"{"ms": 600000}"#, maxAttempts: 1,
                                                    timeout: .seconds(3600))).id
        let job = try await waitForState(stuck, [.failed])
        XCTAssertEqual(job.attempt, 2, "each attempt timed out and was retried by the policy")
        XCTAssertEqual(job.error, "timed out after 0.2 seconds")
        try await XCTAssertEqualAsync(try await queue.events(jobID: stuck).map(\.type),
                                      ["running", "retrying", "running", "failed"])
        let fine = try await waitForState(quick, [.succeeded])
        XCTAssertEqual(fine.attempt, 1, "a job within its timeout is not touched")
        let capped = try await waitForState(greedy, [.failed])
        XCTAssertEqual(capped.error, "timed out after 0.2 seconds", "never more than the kind's")
        try await worker.stop()
    }

    /// An operator's timeout for a kind (`atelier limits set KIND --timeout`) replaces the
    /// handler's, is seen without a restart, and a job's own may still only shorten it.
    func testAnOperatorsKindTimeoutReplacesTheHandlers() async throws {
        struct Sleeper: JobHandler {
            let kind = "patient"
            let timeout: Duration? = .seconds(600)
            func run(_ context: JobContext) async throws -> JobResult {
                try await Task.sleep(for: .milliseconds(try context.payload(as: [String: Int].self)["ms"] ?? 0))
                return .none
            }
        }
        let worker = try InProcessWorker.start(db, handlers: [Sleeper()])
        try await queue.limits.set(KindLimitsChange(kind: "patient", timeout: .set(.milliseconds(300))), actor: "test")
        let stuck = try await queue.enqueue(NewJob(kind: "patient", payload: #"{"ms": 600000}"#, maxAttempts: 1)).id
        let shorter = try await queue.enqueue(NewJob(kind: "patient", payload: #"{"ms": 600000}"#, maxAttempts: 1,
                                                     timeout: .milliseconds(100))).id
        let job = try await waitForState(stuck, [.failed])
        XCTAssertEqual(job.error, "timed out after 0.3 seconds")
        let own = try await waitForState(shorter, [.failed])
        XCTAssertEqual(own.error, "timed out after 0.1 seconds")
        try await worker.stop()
    }

    func testNotificationWakesAnIdleWorkerBeforeItsPoll() async throws {
        // With a 10-minute poll, only the NOTIFY on insert can wake the worker.
        let worker = try InProcessWorker.start(db) { $0.pollInterval = .seconds(600) }
        try await db.eventually("worker registered") { try await !queue.workers().isEmpty }
        try await Task.sleep(for: .milliseconds(300))
        let id = try await queue.enqueue(NewJob(kind: "noop")).id
        _ = try await waitForState(id, [.succeeded], timeout: .seconds(30))
        try await worker.stop()
    }

    /// A worker whose registry row was pruned (unreachable past the prune threshold, then back)
    /// registers again under the key it holds the liveness lock on: it is alive, so a rescue
    /// leaves its running job alone. With a fresh key it read as dead, and every rescue took its
    /// jobs back as crashes (found by ./ops/containers proof, where a worker outlived its database).
    func testAWorkerPrunedWhileAliveIsAliveAgainAfterItsNextHeartbeat() async throws {
        let worker = try InProcessWorker.start(db) { $0.heartbeatInterval = .milliseconds(100) }
        try await db.eventually("worker alive") { try await queue.workers().first?.alive == true }
        let key = try await db.scalar("SELECT lock_key FROM workers", as: Int32.self)
        try await db.execute("DELETE FROM workers")
        try await db.eventually("registered again") { try await !queue.workers().isEmpty }
        let again = try await queue.workers()
        XCTAssertEqual(again.map(\.alive), [true], "alive under the lock it holds")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT lock_key FROM workers", as: Int32.self), key)
        try await worker.stop()
    }

    func testHandlerProgressAndResult() async throws {
        let worker = try InProcessWorker.start(db)
        let id = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 1000}"#)).id
        let job = try await waitForState(id, [.succeeded])
        XCTAssertEqual(job.result, #"{"slept_ms": 1000}"#)
        let progress = try await queue.events(jobID: id).filter { $0.type == "progress" }
        XCTAssertGreaterThanOrEqual(progress.count, 5)
        try await worker.stop()
    }

    /// A handler blocked where cancellation does not reach (here: a wait that ignores it, like a
    /// C call or a lost thread) must not hold its job: after its timeout and the stop grace the
    /// attempt is recorded as timed out, the process drains and asks to be replaced, and the
    /// job runs again on another worker. Before, the heartbeats kept its lease for ever
    /// (`./ops/cluster` in CI: four caption jobs held until the run's end).
    func testAHandlerThatDoesNotStopIsAbandonedAndItsJobRunsElsewhere() async throws {
        let gate = TestGate()
        defer { gate.open() }
        struct Prompt: JobHandler {
            let kind = "stubborn"
            func run(_ context: JobContext) async throws -> JobResult { .none }
        }
        let stuck = try InProcessWorker.start(db, handlers: [StubbornHandler(gate: gate, timeout: .milliseconds(200))]) {
            $0.stopGrace = .milliseconds(300)
        }
        let id = try await queue.enqueue(NewJob(kind: "stubborn", maxAttempts: 3)).id
        try await db.eventually("the stuck attempt handed back", timeout: .seconds(60)) {
            let job = try await queue.job(id: id)
            return job.attempt == 1 && job.state != .running
        }
        do {
            try await stuck.task.value
            XCTFail("a worker that abandoned a handler must not end as if drained normally")
        } catch let recycled as WorkerRecycled {
            XCTAssertEqual(recycled.kind, "stubborn")
        }
        let handedBack = try await queue.job(id: id)
        XCTAssertEqual(handedBack.state, .queued, "recorded as a timed-out attempt, not left running")
        XCTAssertEqual(handedBack.attempt, 1)
        XCTAssertTrue(handedBack.error?.hasPrefix("timed out after") ?? false, handedBack.error ?? "")
        try await XCTAssertEqualAsync(try await queue.workers().map(\.id).contains(stuck.worker.id), false, "deregistered")

        let healthy = try InProcessWorker.start(db, handlers: [Prompt()])
        let job = try await waitForState(id, [.succeeded, .failed])
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(job.attempt, 2)
        try await healthy.stop()
    }

    /// A cancelled job whose handler does not stop ends `cancelled` all the same.
    func testACancelledJobWhoseHandlerDoesNotStopEndsCancelled() async throws {
        let gate = TestGate()
        defer { gate.open() }
        let stuck = try InProcessWorker.start(db, handlers: [StubbornHandler(gate: gate, timeout: nil)]) {
            $0.stopGrace = .milliseconds(300)
        }
        let id = try await queue.enqueue(NewJob(kind: "stubborn")).id
        _ = try await waitForState(id, [.running])
        try await XCTAssertEqualAsync(try await queue.cancel(id: id), .running)
        try await db.eventually("the cancelled attempt ended", timeout: .seconds(60)) {
            try await queue.job(id: id).state != .running
        }
        do {
            try await stuck.task.value
            XCTFail("a worker that abandoned a handler must not end as if drained normally")
        } catch is WorkerRecycled {}
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .cancelled)
        XCTAssertEqual(job.error, "cancelled by request")
    }
}

/// `stubborn`: reports a step, then waits on `gate`, which ignores cancellation — a handler
/// blocked where its stop cannot reach it.
private struct StubbornHandler: JobHandler {
    let kind = "stubborn"
    let gate: TestGate
    let timeout: Duration?
    var retryPolicy: RetryPolicy { RetryPolicy(base: .milliseconds(50), jitter: 0) }

    func run(_ context: JobContext) async throws -> JobResult {
        try await context.progress(10, step: "stuck")
        await gate.wait()
        return .none
    }
}

/// A backlog drained with and without claims riding on completion flushes (migration 0023):
/// every job runs once, and the handlers never run more at once than the worker's concurrency.
final class WorkerRefillTests: DatabaseTestCase {
    /// Counts the handlers running at once and how often each job ran.
    private final class Tally: Sendable {
        private let state = Mutex<(now: Int, most: Int, runs: [UUID: Int])>((0, 0, [:]))
        func begin(_ id: UUID) { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.runs[id, default: 0] += 1 } }
        func end() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
        var runs: [UUID: Int] { state.withLock { $0.runs } }
    }

    private struct Counted: JobHandler {
        let kind = "counted"
        let tally: Tally
        func run(_ context: JobContext) async throws -> JobResult {
            tally.begin(context.job.id)
            defer { tally.end() }
            for _ in 0..<3 { await Task.yield() }
            return .none
        }
    }

    private func drain(claimWithCompletions: Bool) async throws {
        let tally = Tally()
        let ids = try await queue.enqueue((0..<120).map { _ in NewJob(kind: "counted") }).map(\.id)
        let worker = try InProcessWorker.start(db, handlers: [Counted(tally: tally)]) {
            $0.concurrency = 6
            $0.claimWithCompletions = claimWithCompletions
        }
        try await db.eventually("120 jobs to succeed", timeout: .seconds(120)) {
            try await self.db.scalar("SELECT count(*)::int FROM jobs WHERE state = 'succeeded'", as: Int.self) == 120
        }
        try await worker.stop()
        XCTAssertEqual(tally.runs.count, 120)
        XCTAssertEqual(Set(tally.runs.keys), Set(ids))
        XCTAssertEqual(Set(tally.runs.values), [1], "each job ran once")
        XCTAssertLessThanOrEqual(tally.most, 6)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT max(attempt)::int FROM jobs", as: Int.self), 1)
        try await XCTAssertEqualAsync(
            try await db.scalar("SELECT count(*)::int FROM job_events WHERE type = 'running'", as: Int.self), 120)
    }

    func testABacklogRunsEachJobOnceWithClaimsOnCompletion() async throws {
        try await drain(claimWithCompletions: true)
    }

    func testABacklogRunsEachJobOnceWithTheClaimLoopAlone() async throws {
        try await drain(claimWithCompletions: false)
    }
}
