import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// Real `atelier work` processes against a real PostgreSQL: exactly-once under concurrency,
/// SIGKILL recovery with fencing, the supervisor, SIGTERM drain, and a real poison pill.
final class WorkerProcessTests: DatabaseTestCase {
    func testFourProcessesRunEveryJobExactlyOnce() async throws {
        let log = ExecutionLogFile()
        defer { log.remove() }
        let workers = try (0..<4).map { _ in
            try AtelierProcess.worker(db, arguments: ["--concurrency", "8"], environment: log.environment)
        }
        try await db.eventually("4 workers registered") { try await queue.workers().filter(\.alive).count == 4 }
        // Enqueue while the workers run, in batches, so wake-ups by NOTIFY and claims interleave.
        var ids: [UUID] = []
        for _ in 0..<20 {
            ids += try await queue.enqueue((0..<100).map { _ in NewJob(kind: "noop") }).map(\.id)
        }
        try await db.eventually("2000 jobs to finish", timeout: .seconds(180)) {
            try await queue.stats().counts.first { $0.state == .succeeded }?.count == 2000
        }
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers {
            let status = try await worker.waitForExit()
            XCTAssertEqual(status, 0, "SIGTERM drains and exits 0:\n\(worker.crashReport)")
        }

        let counts = try await queue.stats().counts
        XCTAssertEqual(counts.map(\.count).reduce(0, +), 2000)
        XCTAssertEqual(counts.filter { $0.state != .succeeded }.map(\.count).reduce(0, +), 0, "none lost, none left running")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs WHERE attempt <> 1", as: Int.self), 0,
                       "every job was claimed exactly once")
        let runs = log.entries()
        XCTAssertEqual(runs.count, 2000, "every job's handler ran exactly once")
        XCTAssertEqual(Set(runs.map(\.job)), Set(ids.map { $0.uuidString.lowercased() }))
        XCTAssertEqual(Set(runs.map(\.pid)).count, 4, "all four processes took part")
        try await XCTAssertEqualAsync(try await queue.workers().count, 0, "workers deregister on shutdown")
    }

    func testKilledWorkersJobIsRescuedAndItsLateCompletionRefused() async throws {
        let log = ExecutionLogFile()
        defer { log.remove() }
        let first = try AtelierProcess.worker(db, environment: log.environment)
        let id = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 1500}"#)).id
        var deadOwner = ""
        try await db.eventually("the first worker's handler to start the job") {
            let job = try await queue.job(id: id)
            deadOwner = job.leaseOwner ?? ""
            return job.state == .running && log.entries().count == 1
        }
        first.signal(SIGKILL)
        try await XCTAssertEqualAsync(try await first.waitForExit(), 128 + SIGKILL)

        let second = try AtelierProcess.worker(db, environment: log.environment)
        try await db.eventually("the job to run again and succeed", timeout: .seconds(90)) {
            try await queue.job(id: id).state == .succeeded
        }
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.attempt, 2)
        XCTAssertNotEqual(job.leaseOwner, deadOwner)
        XCTAssertEqual(log.entries().map(\.attempt), [1, 2], "ran once per claim")
        try await XCTAssertEqualAsync(try await queue.events(jobID: id).map(\.type).filter { $0 != "progress" },
                       ["running", "requeued", "running", "succeeded"], "the history shows the rescue")
        // The dead worker's completion, arriving late, is refused by the fence.
        let late = try await queue.complete(
            [Completion(jobID: id, attempt: 1, outcome: .succeeded(result: #"{"late": true}"#))], worker: deadOwner)
        XCTAssertEqual(late, [])
        try await XCTAssertEqualAsync(try await queue.job(id: id).result, #"{"slept_ms": 1500}"#)
        second.signal(SIGTERM)
        try await XCTAssertEqualAsync(try await second.waitForExit(), 0)
    }

    func testSupervisorRestartsAWorkerProcessThatDies() async throws {
        let supervisor = try AtelierProcess.worker(db, arguments: ["--processes", "2"])
        try await db.eventually("2 worker processes") { try await queue.workers().filter(\.alive).count == 2 }
        let victim = try await queue.workers().filter(\.alive)[0]
        kill(Int32(victim.pid), SIGKILL)
        try await db.eventually("a replacement process", timeout: .seconds(60)) {
            let alive = try await queue.workers().filter(\.alive)
            return alive.count == 2 && !alive.contains { $0.pid == victim.pid }
        }
        let id = try await queue.enqueue(NewJob(kind: "noop")).id
        try await db.eventually("the replacement to work") { try await queue.job(id: id).state == .succeeded }
        supervisor.signal(SIGTERM)
        try await XCTAssertEqualAsync(try await supervisor.waitForExit(), 0, supervisor.output.suffix(2000).description)
        try await db.eventually("children deregistered") { try await queue.workers().filter(\.alive).isEmpty }
    }

    func testSIGTERMLetsTheRunningJobFinish() async throws {
        let worker = try AtelierProcess.worker(db)
        let id = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 1500}"#)).id
        try await db.eventually("job running") { try await queue.job(id: id).state == .running }
        worker.signal(SIGTERM)
        try await XCTAssertEqualAsync(try await worker.waitForExit(), 0)
        try await XCTAssertEqualAsync(try await queue.job(id: id).state, .succeeded, "drained, not abandoned")
    }

    func testTheCrashKindKillsEveryWorkerThatRunsItUntilItIsFailedAsAPoisonPill() async throws {
        // Each worker process that claims it dies of SIGKILL, as if it had run out of memory.
        // The test rescues between processes (crash limit 2), so no worker's own rescuer races it.
        let id = try await queue.enqueue(NewJob(kind: "crash", payload: #"{"after_ms": 0}"#)).id
        for n in 1...2 {
            let worker = try AtelierProcess.worker(db, arguments: ["--kinds", "crash"])
            try await XCTAssertEqualAsync(try await worker.waitForExit(), 128 + SIGKILL, "the job killed worker \(n)")
            // PostgreSQL frees the dead process's liveness lock when its backend sees the socket
            // close, a moment after the exit: until then the job looks held by a live worker.
            var rescued = 0
            try await db.eventually("worker \(n)'s job rescued") {
                rescued += try await queue.maintenance.rescueLostJobs(restartGrace: .zero, crashLimit: 2)
                return rescued > 0
            }
            XCTAssertEqual(rescued, 1)
        }
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual([job.attempt, job.crashes, job.crashStreak], [2, 2, 2])
        XCTAssertTrue(job.error?.hasPrefix("poison pill: the job stopped its worker 2 times in a row while running alone") == true,
                      job.error ?? "no error")
    }
}
