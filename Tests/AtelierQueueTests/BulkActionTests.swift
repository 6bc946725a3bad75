import AtelierTestSupport
@testable import AtelierQueue
import Foundation
import PostgresNIO
import XCTest

/// Bulk actions (`atelier_bulk_step`): cancel, retry and purge by filter, in batches, exactly once
/// whatever stops them half-way.
final class BulkActionTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func runner(purged: (@Sendable ([UUID]) async -> Void)? = nil) -> BulkActionRunner {
        BulkActionRunner(queue: queue, logger: queue.logger) { ids in await purged?(ids) }
    }

    private func enqueue(_ count: Int, kind: String = "k", queue name: String = "default", owner: String = "o") async throws -> [UUID] {
        try await queue.enqueue((0..<count).map { _ in NewJob(kind: kind, queue: name, owner: owner) }).map(\.id)
    }

    /// Marks jobs failed (as their last attempt would), finished a moment ago.
    private func fail(_ ids: [UUID], error: String = "provider down") async throws {
        try await db.execute("""
            UPDATE jobs SET state = 'failed', error = \(error), attempt = max_attempts, fair_tag = NULL,
                            finished_at = now() - interval '1 second' WHERE id = ANY(\(ids)::uuid[])
            """)
    }

    private func states(_ ids: [UUID]) async throws -> [String] {
        try await queue.jobs(ids: ids).sorted { $0.id.uuidString < $1.id.uuidString }.map(\.state.rawValue)
    }

    private func events(_ type: String, of ids: [UUID]) async throws -> Int {
        try await db.scalar("SELECT count(*)::int FROM job_events WHERE type = \(type) AND job_id = ANY(\(ids)::uuid[])", as: Int.self)
    }

    private func criteria(_ terms: String...) throws -> JobCriteria {
        try JobCriteria(terms: terms)
    }

    func testCancelStopsQueuedJobsAtOnceAndTellsRunningOnesToStop() async throws {
        let mine = try await enqueue(5, kind: "caption")
        let others = try await enqueue(3, kind: "index")
        let running = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["caption"], limit: 2, lease: lease)
        XCTAssertEqual(running.count, 2)
        let action = try await queue.bulkActions.begin(.cancel, try criteria("kind=caption"), actor: "ops", batchSize: 2)
        XCTAssertEqual(action.matched, 5)
        let ended = try await runner().run(action.id)
        XCTAssertEqual(ended.state, .done)
        XCTAssertEqual(ended.acted, 3, "the queued ones are cancelled")
        XCTAssertEqual(ended.stopping, 2, "the running ones are told to stop")
        let jobs = try await queue.jobs(ids: mine)
        XCTAssertEqual(jobs.filter { $0.state == .cancelled }.count, 3)
        XCTAssertEqual(Set(jobs.filter { $0.state == .running && $0.cancelRequested }.map(\.id)), Set(running.map(\.id)))
        try await XCTAssertEqualAsync(try await states(others), ["queued", "queued", "queued"], "other kinds are left alone")
        try await XCTAssertEqualAsync(try await events("cancel_requested", of: mine), 2)
        let audit = try await queue.auditLog(target: "bulk:\(action.id)")
        XCTAssertEqual(audit.map(\.action), ["bulk cancel"])
        XCTAssertEqual(audit.first?.actor, "ops")
        XCTAssertEqual(audit.first?.detail, "kind=caption (5 matching)")
    }

    func testADryRunCountsAndChangesNothing() async throws {
        let ids = try await enqueue(4, kind: "caption")
        try await fail(Array(ids.prefix(3)))
        let preview = try await queue.bulkActions.preview(.retry, try criteria("kind=caption", "error=PROVIDER"))
        XCTAssertEqual(preview.count, 3)
        XCTAssertEqual(Set(preview.sample.map(\.id)), Set(ids.prefix(3)))
        let cancellable = try await queue.bulkActions.preview(.cancel, try criteria("kind=caption")).count
        XCTAssertEqual(cancellable, 1, "only the queued one can be cancelled")
        let purgeable = try await queue.bulkActions.preview(.purge, JobCriteria()).count
        XCTAssertEqual(purgeable, 3)
        try await XCTAssertEqualAsync(try await states(ids).filter { $0 == "failed" }.count, 3)
        try await XCTAssertEqualAsync(try await queue.bulkActions.list().count, 0)
    }

    func testRetryQueuesFailedJobsAgainOnceAndOnlyThoseThatFailedBeforeItBegan() async throws {
        let failed = try await enqueue(6)
        try await fail(failed)
        let action = try await queue.bulkActions.begin(.retry, try criteria("state=failed"), actor: "ops", batchSize: 4)
        let later = try await enqueue(1)
        try await fail(later)   // created after the action began: out of its scope
        let ended = try await runner().run(action.id)
        XCTAssertEqual(ended.acted, 6)
        let jobs = try await queue.jobs(ids: failed)
        XCTAssertTrue(jobs.allSatisfy { $0.state == .queued && $0.attempt == 0 && $0.error == "provider down" })
        try await XCTAssertEqualAsync(try await states(later), ["failed"])
        try await XCTAssertEqualAsync(try await events("retried", of: failed), 6)
        let untagged = try await db.scalar("SELECT count(*)::int FROM jobs WHERE id = ANY(\(failed)::uuid[]) AND fair_tag IS NULL", as: Int.self)
        XCTAssertEqual(untagged, 0, "retried jobs are tagged for fair share by the step, not left to the claims")
        let claimed = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["k"], limit: 10, lease: lease)
        XCTAssertEqual(Set(claimed.map(\.id)), Set(failed), "and are claimed again")
    }

    func testPurgeDeletesFinishedJobsAndNamesThemForTheirFiles() async throws {
        let finished = try await enqueue(3)
        try await fail(finished)
        let queued = try await enqueue(2)
        let removed = Removed()
        let action = try await queue.bulkActions.begin(.purge, JobCriteria(), actor: "ops")
        let ended = try await runner(purged: { await removed.add($0) }).run(action.id)
        XCTAssertEqual(ended.acted, 3)
        try await XCTAssertEqualAsync(try await queue.jobs(ids: finished).count, 0)
        try await XCTAssertEqualAsync(try await queue.jobs(ids: queued).count, 2, "unfinished jobs are not purged")
        let names = await removed.ids
        XCTAssertEqual(Set(names), Set(finished))
    }

    /// A batch that fails (here a trigger refuses its writes, as a crash would end it) rolls back
    /// whole, its cursor with it; running the action again finishes it, each job acted on once.
    func testABatchThatFailsHalfWayIsFinishedExactlyOnceByARerun() async throws {
        let ids = try await enqueue(25)
        try await fail(ids)
        let action = try await queue.bulkActions.begin(.retry, try criteria("state=failed"), actor: "ops", batchSize: 10)
        let first = try await queue.bulkActions.step(action.id)
        XCTAssertEqual(first.acted, 10)
        try await db.execute("""
            CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$
            """)
        try await db.execute("CREATE TRIGGER test_refuse BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION test_refuse()")
        do {
            _ = try await queue.bulkActions.step(action.id)
            XCTFail("the second batch should have failed")
        } catch {}
        let halfway = try await queue.bulkActions.find(id: action.id)
        XCTAssertEqual(halfway.acted, 10, "the failed batch left no count behind")
        try await XCTAssertEqualAsync(try await states(ids).filter { $0 == "queued" }.count, 10)
        try await db.execute("DROP TRIGGER test_refuse ON jobs")
        let ended = try await runner().run(action.id)
        XCTAssertEqual(ended.state, .done)
        XCTAssertEqual(ended.acted, 25)
        let perJob = try await db.scalar("""
            SELECT count(DISTINCT job_id)::int * 1000 + count(*)::int FROM job_events
             WHERE type = 'retried' AND job_id = ANY(\(ids)::uuid[])
            """, as: Int.self)
        XCTAssertEqual(perJob, 25 * 1000 + 25, "every job retried exactly once")
    }

    func testTwoRunnersOfOneActionActOnEachJobOnce() async throws {
        let ids = try await enqueue(40)
        let action = try await queue.bulkActions.begin(.cancel, JobCriteria(), actor: "ops", batchSize: 3)
        let (one, two) = (runner(), runner())
        let id = action.id
        async let a = one.run(id)
        async let b = two.run(id)
        _ = try await (a, b)
        let ended = try await queue.bulkActions.find(id: action.id)
        XCTAssertEqual(ended.acted, 40)
        try await XCTAssertEqualAsync(try await events("cancelled", of: ids), 40)
    }

    func testAStoppedActionTakesNoMoreBatchesUntilResumed() async throws {
        let ids = try await enqueue(20)
        let action = try await queue.bulkActions.begin(.cancel, JobCriteria(), actor: "ops", batchSize: 5)
        _ = try await queue.bulkActions.step(action.id)
        let stopped = try await queue.bulkActions.stop(id: action.id, actor: "ops")
        XCTAssertEqual(stopped.state, .stopped)
        let ended = try await runner().run(action.id)
        XCTAssertEqual(ended.state, .stopped)
        XCTAssertEqual(ended.acted, 5)
        try await XCTAssertEqualAsync(try await states(ids).filter { $0 == "queued" }.count, 15)
        try await queue.bulkActions.resume(id: action.id, actor: "ops")
        let done = try await runner().run(action.id)
        XCTAssertEqual(done.state, .done)
        XCTAssertEqual(done.acted, 20)
        do {
            try await queue.bulkActions.stop(id: action.id, actor: "ops")
            XCTFail("a finished action cannot be stopped")
        } catch QueueError.conflict {}
        let audit = try await queue.auditLog(target: "bulk:\(action.id)").map(\.action)
        XCTAssertEqual(audit, ["bulk resume", "bulk stop", "bulk cancel"])
    }

    /// Pass 1 skips a row another transaction holds (it never waits on the workers); pass 2 waits
    /// for it, so the action still reaches it.
    func testARowHeldByAnotherTransactionIsActedOnInTheSecondPass() async throws {
        let ids = try await enqueue(6)
        let held = ids[2]
        let action = try await queue.bulkActions.begin(.cancel, JobCriteria(), actor: "ops", batchSize: 100)
        let locked = AsyncStream.makeStream(of: Void.self)
        let release = AsyncStream.makeStream(of: Void.self)
        let (client, logger) = (queue.client, queue.logger)
        let holder = Task {
            try await client.withTransaction(logger: logger) { connection in
                _ = try await connection.query("SELECT id FROM jobs WHERE id = \(held) FOR UPDATE", logger: logger)
                locked.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in locked.stream { break }
        let first = try await queue.bulkActions.step(action.id)
        XCTAssertEqual(first.acted, 5, "pass 1 skips the held row")
        try await XCTAssertEqualAsync(try await queue.job(id: held).state, .queued)
        release.continuation.yield()
        try await holder.value
        let ended = try await runner().run(action.id)
        XCTAssertEqual(ended.acted, 6)
        try await XCTAssertEqualAsync(try await queue.job(id: held).state, .cancelled)
    }

    func testTheFilterNarrowsTheAction() async throws {
        let a = try await enqueue(3, kind: "caption", queue: "q1", owner: "alice")
        let b = try await enqueue(3, kind: "caption", queue: "q2", owner: "alice")
        let c = try await enqueue(3, kind: "caption", queue: "q1", owner: "bob")
        let action = try await queue.bulkActions.begin(.cancel, try criteria("queue=q1", "owner=alice"), actor: "ops")
        try await runner().run(action.id)
        try await XCTAssertEqualAsync(try await states(a), ["cancelled", "cancelled", "cancelled"])
        try await XCTAssertEqualAsync(try await states(b), ["queued", "queued", "queued"])
        try await XCTAssertEqualAsync(try await states(c), ["queued", "queued", "queued"])
    }

    /// Each filter field, through the operators' job list (the same SQL the actions use).
    func testEachFilterFieldMatchesWhatItSays() async throws {
        let first = try await enqueue(1, kind: "caption", queue: "q1", owner: "alice")[0]
        let second = try await enqueue(1, kind: "index", queue: "q2", owner: "bob")[0]
        let third = try await enqueue(1, kind: "stylize", queue: "q1", owner: "bob")[0]
        try await fail([second], error: "Timeout talking to the provider")
        try await db.execute("UPDATE jobs SET created_at = now() - interval '2 hours' WHERE id = \(first)")
        try await db.execute("UPDATE jobs SET finished_at = now() - interval '3 hours' WHERE id = \(second)")
        func ids(_ terms: String...) async throws -> Set<UUID> {
            var query = JobBrowseQuery()
            query.criteria = try JobCriteria(terms: terms)
            return Set(try await queue.browse(query).jobs.map(\.id))
        }
        try await XCTAssertEqualAsync(try await ids("kind=caption,stylize"), [first, third])
        try await XCTAssertEqualAsync(try await ids("state=failed"), [second])
        try await XCTAssertEqualAsync(try await ids("state=queued,running"), [first, third])
        try await XCTAssertEqualAsync(try await ids("queue=q1"), [first, third])
        try await XCTAssertEqualAsync(try await ids("owner=bob"), [second, third])
        try await XCTAssertEqualAsync(try await ids("created-before=1h"), [first])
        try await XCTAssertEqualAsync(try await ids("created-after=1h"), [second, third])
        try await XCTAssertEqualAsync(try await ids("finished-before=2h"), [second])
        try await XCTAssertEqualAsync(try await ids("finished-after=2h"), [])
        try await XCTAssertEqualAsync(try await ids("error=timeout"), [second])
        try await XCTAssertEqualAsync(try await ids("owner=bob", "queue=q2"), [second])
        try await XCTAssertEqualAsync(try await ids(), [first, second, third])
        let count = try await queue.count(matching: try JobCriteria(terms: ["owner=bob"]))
        XCTAssertEqual(count, 2)
    }
}

private actor Removed {
    var ids: [UUID] = []
    func add(_ more: [UUID]) { ids += more }
}
