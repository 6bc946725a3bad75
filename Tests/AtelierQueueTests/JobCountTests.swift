import AtelierQueue
import AtelierTestSupport
import Foundation
import PostgresNIO
import XCTest

/// The job counts kept with the jobs (`atelier_count_jobs`, `job_counts_live`): after every kind of change, a rolled-back
/// or killed transaction, a fold killed half-way, a TRUNCATE and concurrent claims, completions
/// and folds, they equal `count(*)` over the jobs — checked in one statement (one snapshot), so
/// the check holds even while other sessions write.
final class JobCountTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    /// Groups where the kept counts and `count(*)` disagree, read in one statement.
    static let mismatches: PostgresQuery = """
        WITH kept AS (SELECT queue, kind, state, n FROM job_counts_live WHERE n <> 0),
             counted AS (SELECT queue, kind, state, count(*)::bigint AS n FROM jobs GROUP BY queue, kind, state)
        SELECT count(*)::int FROM ((TABLE kept EXCEPT TABLE counted) UNION ALL (TABLE counted EXCEPT TABLE kept)) d
        """

    /// The counts equal `count(*)` before a fold and after it, and `stats()` reports them.
    private func assertExact(_ message: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await XCTAssertEqualAsync(try await db.scalar(Self.mismatches, as: Int.self), 0, "before the fold: \(message)", file: file, line: line)
        try await queue.maintenance.foldJobCounts()
        try await XCTAssertEqualAsync(try await db.scalar(Self.mismatches, as: Int.self), 0, "after the fold: \(message)", file: file, line: line)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 0,
                                      "the fold took every committed delta: \(message)", file: file, line: line)
        var counted: [String: Int] = [:]
        for try await (kind, state, n) in try await queue.client.query(
            "SELECT kind, state, count(*)::int FROM jobs GROUP BY kind, state").decode((String, String, Int).self) {
            counted["\(kind)/\(state)"] = n
        }
        let stats = try await queue.stats()
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: stats.counts.map { ("\($0.kind)/\($0.state.rawValue)", $0.count) }), counted,
                       message, file: file, line: line)
        try await XCTAssertEqualAsync(try await queue.countJobs(in: []), counted.values.reduce(0, +), message, file: file, line: line)
    }

    private func claim(_ worker: String = "w1", limit: Int = 10, kinds: [String] = ["k"]) async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: ["default", "images"], kinds: kinds, limit: limit, lease: lease)
    }

    func testEveryChangeOfAJobKeepsTheCountsExact() async throws {
        try await assertExact("an empty table")
        let ids = try await queue.enqueue((0..<12).map { _ in NewJob(kind: "k") }).map(\.id)
        try await queue.enqueue([NewJob(kind: "k", queue: "images", followUps: [FollowUp(kind: "after")]),
                                 NewJob(kind: "other", delay: .seconds(600))])
        try await assertExact("enqueued, two queues, one scheduled")

        let claimed = try await claim(limit: 8)
        XCTAssertEqual(claimed.count, 8)
        try await assertExact("claimed")
        _ = try await queue.complete([
            Completion(job: claimed[0], outcome: .succeeded(result: nil)),
            Completion(job: claimed[1], outcome: .retry(error: "flaky", delay: .seconds(600))),
            Completion(job: claimed[2], outcome: .failed(error: "boom")),
            Completion(job: claimed[3], outcome: .cancelled(reason: "asked")),
            Completion(job: claimed[4], outcome: .released),
            Completion(job: claimed[5], outcome: .snoozed(reason: "store down", delay: .seconds(600))),
        ], worker: "w1")
        try await assertExact("completed: succeeded, retry, failed, cancelled, released, snoozed in one statement")

        let queued = try XCTUnwrap(ids.last)
        try await XCTAssertEqualAsync(try await queue.cancel(id: queued), .cancelled)
        try await XCTAssertEqualAsync(try await queue.cancel(id: claimed[6].id), .running)
        try await assertExact("cancelled a queued job, flagged a running one")

        try await queue.retry(id: claimed[2].id)
        try await assertExact("an operator's retry of a failed job")

        try await queue.delete(finishedJob: claimed[0].id)
        try await db.execute("UPDATE jobs SET finished_at = now() - interval '8 days' WHERE id = \(claimed[3].id)")
        try await XCTAssertEqualAsync(try await queue.maintenance.purgeFinished(olderThan: .seconds(7 * 86400)), [claimed[3].id])
        try await assertExact("deleted one finished job, purged another")

        // A worker that holds no liveness lock is dead: its running jobs go back to the queue.
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .zero), 2)
        try await assertExact("rescued a dead worker's jobs")

        let parents = try await queue.claim(worker: "w1", queues: ["images"], kinds: ["k"], limit: 1, lease: lease)
        let parent = try XCTUnwrap(parents.first)
        _ = try await queue.complete([Completion(job: parent, outcome: .succeeded(result: nil))], worker: "w1")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs WHERE kind = 'after'", as: Int.self), 1)
        try await assertExact("a success that enqueued its follow-up in the same statement")

        let stats = try await queue.stats()
        let depth = try XCTUnwrap(stats.queues.first { $0.queue == "default" })
        let ready = try await db.scalar("SELECT count(*)::int FROM jobs WHERE queue = 'default' AND state = 'queued' AND run_at <= now()", as: Int.self)
        let scheduled = try await db.scalar("SELECT count(*)::int FROM jobs WHERE queue = 'default' AND state = 'queued' AND run_at > now()", as: Int.self)
        XCTAssertEqual(depth.ready, ready)
        XCTAssertEqual(depth.scheduled, scheduled)
        XCTAssertEqual(scheduled, 3, "the delayed job, the retry and the snooze wait for their time")
        XCTAssertEqual(depth.running, 0)
        XCTAssertGreaterThan(depth.oldestReadyAgeSeconds, 0)
    }

    func testAnUpdateThatChangesNoStateAppendsNothing() async throws {
        try await queue.enqueue((0..<3).map { _ in NewJob(kind: "k") })
        try await queue.maintenance.foldJobCounts()
        let claimed = try await claim(limit: 3)
        try await queue.maintenance.foldJobCounts()
        try await db.execute("UPDATE jobs SET progress = 50, updated_at = now()")
        let leases = claimed.map { HeldLease(jobID: $0.id, attempt: $0.attempt) }
        try await XCTAssertEqualAsync(try await queue.extendLeases(leases, worker: "w1", lease: lease).held.count, 3)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 0)
        try await assertExact("progress and lease renewals")
    }

    func testAStatementAppendsOneDeltaPerGroupNotPerRow() async throws {
        try await queue.enqueue((0..<500).map { _ in NewJob(kind: "k") })
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 1)
        try await queue.maintenance.foldJobCounts()
        let claimed = try await claim(limit: 500)
        XCTAssertEqual(claimed.count, 500)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 2,
                                      "queued −500 and running +500")
        _ = try await queue.complete(claimed.map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w1")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 4)
        try await assertExact("500 jobs through one enqueue, one claim, one completion")
    }

    /// A transaction whose connection is killed before it commits — a process gone mid-claim,
    /// mid-completion, mid-enqueue — leaves no delta: the counts stay those of the rows.
    func testAKilledTransactionLeavesTheCountsExact() async throws {
        try await queue.enqueue((0..<10).map { _ in NewJob(kind: "k") })
        _ = try await claim(limit: 4)
        try await assertExact("before")
        try await killMidTransaction([
            "INSERT INTO jobs (id, kind) SELECT gen_random_uuid(), 'k' FROM generate_series(1, 5)",
            "UPDATE jobs SET state = 'running', lease_owner = 'ghost' WHERE state = 'queued'",
            "UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE state = 'running'",
            "DELETE FROM jobs WHERE state = 'succeeded'",
        ])
        try await assertExact("a transaction killed after inserting, claiming, completing and deleting")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self), 10)
    }

    func testAFoldKilledBeforeItsCommitLosesNoDelta() async throws {
        try await queue.enqueue((0..<10).map { _ in NewJob(kind: "k") })
        _ = try await claim(limit: 4)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 3)
        try await killMidTransaction(["SELECT atelier_fold_job_counts()"])
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 3,
                                      "the killed fold's DELETE is undone with its upsert")
        try await assertExact("after a killed fold")
    }

    func testARolledBackTransactionLeavesTheCountsExact() async throws {
        try await queue.enqueue((0..<6).map { _ in NewJob(kind: "k") })
        let logger = queue.logger
        try await queue.client.withConnection { connection in
            for sql: PostgresQuery in ["BEGIN", "UPDATE jobs SET state = 'cancelled', finished_at = now()", "ROLLBACK"] {
                for try await _ in try await connection.query(sql, logger: logger) {}
            }
        }
        try await assertExact("after a rollback")
    }

    func testTruncateEmptiesTheCounts() async throws {
        try await queue.enqueue((0..<6).map { _ in NewJob(kind: "k") })
        try await queue.maintenance.foldJobCounts()
        try await queue.enqueue(NewJob(kind: "other"))
        try await db.execute("TRUNCATE jobs CASCADE")
        try await XCTAssertEqualAsync(try await queue.countJobs(in: []), 0)
        try await queue.enqueue(NewJob(kind: "k"))
        try await assertExact("truncated, then one job")
    }

    /// Workers claiming and completing at once while two folders fold (a leader and one that has
    /// not yet noticed it lost the lead): the counts equal count(*) in every snapshot read during
    /// the run, and at the end.
    func testConcurrentClaimsCompletionsAndFoldsKeepTheCountsExact() async throws {
        let jobs = 600
        try await queue.enqueue((0..<jobs).map { i in NewJob(kind: i % 3 == 0 ? "k" : "j", queue: i % 2 == 0 ? "default" : "images") })
        let queue = self.queue
        let lease = self.lease
        let workers = (0..<4).map { w in
            Task {
                var outcomes = 0
                while true {
                    let claimed = try await queue.claim(worker: "w\(w)", queues: ["default", "images"], kinds: ["k", "j"],
                                                        limit: 7, lease: lease)
                    if claimed.isEmpty { return outcomes }
                    let completions = claimed.enumerated().map { i, job in
                        Completion(job: job, outcome: i % 5 == 0 && job.attempt < 3
                            ? .retry(error: "again", delay: .zero) : (i % 7 == 0 ? .failed(error: "no") : .succeeded(result: nil)))
                    }
                    outcomes += try await queue.complete(completions, worker: "w\(w)").count
                }
            }
        }
        let db = self.db!
        // Each folder returns the mismatches it saw; cancelled once the workers are done (a
        // query cut short by the cancellation ends the loop too).
        let folders = (0..<2).map { _ in
            Task { () -> Int in
                var mismatches = 0
                while !Task.isCancelled {
                    do {
                        try await queue.maintenance.foldJobCounts()
                        mismatches += try await db.scalar(Self.mismatches, as: Int.self)
                    } catch {
                        if Task.isCancelled { break }
                        throw error
                    }
                }
                return mismatches
            }
        }
        for worker in workers { _ = try await worker.value }
        for folder in folders { folder.cancel() }
        var mismatches = 0
        for folder in folders { mismatches += try await folder.value }
        XCTAssertEqual(mismatches, 0, "every snapshot read during the run was exact")
        try await XCTAssertEqualAsync(try await queue.countJobs(in: [.succeeded, .failed]), jobs)
        try await assertExact("after the run")
    }

    /// Runs `statements` in a transaction on a connection of its own, then terminates that
    /// backend before it commits (and sends nothing more on the dead connection).
    private func killMidTransaction(_ statements: [String]) async throws {
        let logger = queue.logger
        let db = self.db!
        let killed = try await queue.client.withConnection { connection in
            for try await _ in try await connection.query("BEGIN", logger: logger) {}
            for sql in statements {
                for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {}
            }
            var backend: Int32 = 0
            for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) { backend = pid }
            return try await db.scalar("SELECT pg_terminate_backend(\(backend), 60000)", as: Bool.self)
        }
        XCTAssertTrue(killed, "the backend was terminated with its transaction open")
    }
}
