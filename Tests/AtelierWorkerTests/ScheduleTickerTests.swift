import AtelierTestSupport
import AtelierQueue
@testable import AtelierWorker
import Foundation
import Logging
import XCTest

/// The maintenance leader's schedule chore: only the leader enqueues, each tick once across a
/// change of leader, one missed tick caught up after downtime. The tests choose the time.
final class ScheduleTickerTests: DatabaseTestCase {
    private func maintenance() -> Maintenance {
        var logger = Logger(label: "test-schedules")
        logger.logLevel = .critical
        return Maintenance(queue: queue, configuration: WorkerConfiguration(), blobs: nil, logger: logger)
    }

    private func at(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: "2025-03-01T\(text)Z")!
    }

    private func ticksEnqueued() async throws -> [String] {
        var ticks: [String] = []
        let rows = try await queue.client.query("SELECT request_id FROM jobs ORDER BY request_id", logger: queue.logger)
        for try await tick in rows.decode(String.self) { ticks.append(tick) }
        return ticks
    }

    func testTheLeaderEnqueuesEachTickOnceAcrossALeaderChange() async throws {
        try await queue.schedules.add(NewSchedule(name: "five", cron: "*/5 * * * *", kind: "noop"), actor: "test", now: at("10:03:00"))
        let a = maintenance(), b = maintenance()
        try await XCTAssertEqualAsync(await a.tick(now: at("10:04:59")).scheduled, 0, "not yet")
        let first = await a.tick(now: at("10:05:00"))
        XCTAssertTrue(first.led)
        XCTAssertEqual(first.scheduled, 1)
        let standby = await b.tick(now: at("10:05:00"))
        XCTAssertFalse(standby.led)
        XCTAssertEqual(standby.scheduled, 0, "a standby enqueues nothing")
        try await XCTAssertEqualAsync(await a.tick(now: at("10:05:01")).scheduled, 0, "the next round: the tick is done")

        // The leader goes; the next one, in the same minute, finds the tick done. (The lock is
        // free once the server has ended the old leader's session: wait for that, not a time.)
        await a.resign()
        try await db.eventually("the standby takes the lead") { await b.tick(now: at("10:05:30")).led }
        try await XCTAssertEqualAsync(try await ticksEnqueued(), ["schedule:five@2025-03-01T10:05Z"], "the tick was not doubled")
        try await XCTAssertEqualAsync(await b.tick(now: at("10:10:00")).scheduled, 1)
        try await XCTAssertEqualAsync(try await ticksEnqueued(), ["schedule:five@2025-03-01T10:05Z", "schedule:five@2025-03-01T10:10Z"])
        await b.resign()
    }

    func testAfterDowntimeOneMissedTickRunsAndPausedSchedulesWait() async throws {
        try await queue.schedules.add(NewSchedule(name: "five", cron: "*/5 * * * *", kind: "noop"), actor: "test", now: at("10:03:00"))
        try await queue.schedules.add(NewSchedule(name: "held", cron: "* * * * *", kind: "noop"), actor: "test", now: at("10:03:00"))
        try await queue.schedules.pause(named: "held", actor: "test")
        let leader = maintenance()
        // No leader from 10:03 to 11:02: of the twelve ticks missed, the newest runs.
        try await XCTAssertEqualAsync(await leader.tick(now: at("11:02:10")).scheduled, 1)
        try await XCTAssertEqualAsync(await leader.tick(now: at("11:04:59")).scheduled, 0)
        try await XCTAssertEqualAsync(try await ticksEnqueued(), ["schedule:five@2025-03-01T11:00Z"])
        await leader.resign()
    }
}
