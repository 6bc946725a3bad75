import AtelierTestSupport
import AtelierQueue
import Foundation
import PostgresNIO
import XCTest

/// Cron schedules in the database: what operators do to them, and the leader's ticks — each
/// enqueued exactly once whoever races for it and whoever dies holding it, at most one missed
/// tick caught up. Every time is chosen by the test (the tick functions take `now`).
final class ScheduleTests: DatabaseTestCase {
    private func at(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: "2025-03-01T\(text):00Z")!
    }

    @discardableResult
    private func addEveryFiveMinutes(name: String = "five") async throws -> Schedule {
        try await queue.schedules.add(NewSchedule(name: name, cron: "*/5 * * * *", kind: "noop", payload: #"{"n": 1}"#),
                                    actor: "cli:tester@host", now: at("10:03"))
    }

    private func jobCount() async throws -> Int {
        try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
    }

    func testAddListPauseResumeRemoveAreAudited() async throws {
        let added = try await addEveryFiveMinutes()
        XCTAssertEqual(added.nextTick, at("10:05"))
        XCTAssertNil(added.lastTick)
        XCTAssertEqual(added.kind, "noop")
        try await XCTAssertEqualAsync(try await queue.schedules.list().map(\.name), ["five"])

        do {
            try await addEveryFiveMinutes()
            XCTFail("a name is taken once")
        } catch let error as QueueError {
            guard case .conflict = error else { return XCTFail("\(error)") }
        }

        try await queue.schedules.pause(named: "five", actor: "cli:tester@host")
        try await XCTAssertEqualAsync(try await queue.schedules.find(named: "five").paused, true)
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: at("10:20")), [], "a paused schedule has no tick due")
        // Resumed at 10:21: the ticks it missed while paused are skipped, the next is 10:25.
        try await queue.schedules.resume(named: "five", actor: "cli:tester@host", now: at("10:21"))
        let resumed = try await queue.schedules.find(named: "five")
        XCTAssertEqual(resumed.paused, false)
        XCTAssertEqual(resumed.nextTick, at("10:25"))

        try await queue.schedules.remove(named: "five", actor: "cli:tester@host")
        try await XCTAssertEqualAsync(try await queue.schedules.list(), [])
        do {
            try await queue.schedules.remove(named: "five", actor: "cli:tester@host")
            XCTFail("gone")
        } catch let error as QueueError {
            guard case .scheduleNotFound = error else { return XCTFail("\(error)") }
        }
        let log = try await queue.auditLog(target: "schedule:five")
        XCTAssertEqual(log.map(\.action), ["remove", "resume", "pause", "add"])
    }

    func testBadSchedulesAreRefusedWithTheReason() async throws {
        let cases: [(NewSchedule, String)] = [
            (NewSchedule(name: "a", cron: "*/5 * * *", kind: "noop"), "5 fields"),
            (NewSchedule(name: "a", cron: "0 0 30 2 *", kind: "noop"), "never fires"),
            (NewSchedule(name: "a b", cron: "* * * * *", kind: "noop"), "schedule name"),
            (NewSchedule(name: "a", cron: "* * * * *", kind: "noop", payload: "[1]"), "JSON object"),
            (NewSchedule(name: "a", cron: "* * * * *", kind: ""), "job kind"),
            (NewSchedule(name: "a", cron: "* * * * *", kind: "noop", queue: String(repeating: "q", count: 65)), "queue name"),
        ]
        for (schedule, expected) in cases {
            do {
                try await queue.schedules.add(schedule, actor: "test")
                XCTFail("\(schedule) was accepted")
            } catch let error as QueueError {
                guard case .invalidArgument(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains(expected), message)
            }
        }
        try await XCTAssertEqualAsync(try await queue.schedules.list(), [])
    }

    func testATickIsEnqueuedOnceWithTheSchedulesJob() async throws {
        try await addEveryFiveMinutes()
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: at("10:04")), [], "not yet")
        let due = try await queue.schedules.dueTicks(now: at("10:05"))
        XCTAssertEqual(due, [ScheduleTick(name: "five", tick: at("10:05"), next: at("10:10"))])
        let enqueued = try await queue.schedules.enqueueTick(due[0])
        let id = try XCTUnwrap(enqueued)
        try await XCTAssertEqualAsync(try await queue.schedules.enqueueTick(due[0]), nil, "the same tick again enqueues nothing")
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: at("10:09")), [])

        let job = try await queue.job(id: id)
        XCTAssertEqual(job.kind, "noop")
        XCTAssertEqual(job.state, .queued)
        XCTAssertEqual(job.requestID, "schedule:five@2025-03-01T10:05Z")
        XCTAssertTrue(job.payload.contains("\"n\": 1"), job.payload)
        let schedule = try await queue.schedules.find(named: "five")
        XCTAssertEqual(schedule.lastTick, at("10:05"))
        XCTAssertEqual(schedule.nextTick, at("10:10"))
        XCTAssertEqual(schedule.lastJobID, id)
    }

    func testAfterDowntimeOnlyTheNewestMissedTickRuns() async throws {
        try await addEveryFiveMinutes()
        // Down from 10:04 to 11:02: twelve ticks missed; the 11:00 one runs, the others do not.
        let due = try await queue.schedules.dueTicks(now: at("11:02"))
        XCTAssertEqual(due, [ScheduleTick(name: "five", tick: at("11:00"), next: at("11:05"))])
        try await XCTAssertNotEqualAsync(try await queue.schedules.enqueueTick(due[0]), nil)
        // An older tick (a leader whose clock is behind) finds the schedule past it.
        try await XCTAssertEqualAsync(try await queue.schedules.enqueueTick(ScheduleTick(name: "five", tick: at("10:55"), next: at("11:00"))), nil)
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: at("11:04")), [])
        try await XCTAssertEqualAsync(try await jobCount(), 1)
    }

    func testManyLeadersRacingOnATickEnqueueItOnce() async throws {
        try await addEveryFiveMinutes()
        let tick = ScheduleTick(name: "five", tick: at("10:05"), next: at("10:10"))
        let enqueued = try await withThrowingTaskGroup(of: UUID?.self) { group in
            let queue = self.queue
            for _ in 0..<8 { group.addTask { try await queue.schedules.enqueueTick(tick) } }
            return try await group.reduce(into: [UUID]()) { if let id = $1 { $0.append(id) } }
        }
        XCTAssertEqual(enqueued.count, 1)
        try await XCTAssertEqualAsync(try await jobCount(), 1)
    }

    /// A leader sends the tick statement in a transaction and is killed before it commits (its
    /// connection terminated: what a SIGKILL or a lost host does to it), while a second leader's
    /// tick waits on the row. The tick is enqueued once, by the second; the first's job never existed.
    func testALeaderKilledBeforeItsCommitNeitherLosesNorDoublesTheTick() async throws {
        let (first, second) = try await raceTwoLeaders(killingTheFirst: true)
        let survivor = try XCTUnwrap(second, "the second leader enqueued the tick the first did not commit")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs WHERE id = \(first)", as: Int.self), 0)
        try await XCTAssertEqualAsync(try await queue.schedules.find(named: "five").lastJobID, survivor)
        try await XCTAssertEqualAsync(try await jobCount(), 1)
        // The next leader, on the same tick, adds nothing.
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: at("10:05")), [])
        try await XCTAssertEqualAsync(try await queue.schedules.enqueueTick(ScheduleTick(name: "five", tick: at("10:05"), next: at("10:10"))), nil)
        try await XCTAssertEqualAsync(try await jobCount(), 1)
    }

    /// The first leader commits while the second waits: the second then finds the tick taken.
    func testALeaderThatCommitsFirstWinsTheTick() async throws {
        let (first, second) = try await raceTwoLeaders(killingTheFirst: false)
        XCTAssertNil(second)
        try await XCTAssertEqualAsync(try await queue.schedules.find(named: "five").lastJobID, first)
        try await XCTAssertEqualAsync(try await jobCount(), 1)
    }

    /// The first leader runs the 10:05 tick in an open transaction on a connection of its own; the
    /// second's tick starts and waits for its row lock; then the first's backend is terminated
    /// (`killingTheFirst`) or the first commits. Returns the first's job id and what the second
    /// enqueued.
    private func raceTwoLeaders(killingTheFirst: Bool) async throws -> (UUID, UUID?) {
        try await addEveryFiveMinutes()
        let due = try await queue.schedules.dueTicks(now: at("10:05"))
        let tick = try XCTUnwrap(due.first)
        let firstJob = JobID.make()
        let (queue, logger, db) = (self.queue, self.queue.logger, self.db!)
        let racer: Task<UUID?, any Error> = try await queue.client.withConnection { connection in
            for try await _ in try await connection.query("BEGIN", logger: logger) {}
            for try await id in try await connection.query(Schedules.tickQuery(tick, jobID: firstJob), logger: logger).decode(UUID.self) {
                XCTAssertEqual(id, firstJob, "the first leader's statement enqueued the tick (not committed yet)")
            }
            var backend: Int32 = 0
            for try await value in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) { backend = value }
            let pid = backend
            let racer = Task { try await queue.schedules.enqueueTick(tick) }
            try await db.eventually("the second leader's tick waits for the first's row lock") {
                try await db.scalar("SELECT count(*)::int FROM pg_stat_activity WHERE \(pid) = ANY(pg_blocking_pids(pid))",
                                         as: Int.self) > 0
            }
            if killingTheFirst {
                _ = try await db.scalar("SELECT pg_terminate_backend(\(pid))", as: Bool.self)
            } else {
                for try await _ in try await connection.query("COMMIT", logger: logger) {}
            }
            return racer
        }
        return (firstJob, try await racer.value)
    }
}
