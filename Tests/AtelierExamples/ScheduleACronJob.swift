import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// A cron schedule makes one job per tick of a five-field expression, in UTC
/// (`atelier schedules add nightly-report --cron "0 3 * * *" --kind report`). The maintenance
/// leader enqueues each tick's job once, whichever worker process leads and however often it
/// looks; a tick missed while nothing ran is made once, not once per missed minute.
final class ScheduleACronJob: DatabaseTestCase {
    func testEachTickMakesOneJob() async throws {
        let start = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-11-29T02:58:00Z"))
        _ = try await queue.schedules.add(NewSchedule(name: "nightly-report", cron: "0 3 * * *", kind: "report"),
                                        actor: "example", now: start)
        try await XCTAssertEqualAsync(try await queue.schedules.dueTicks(now: start).count, 0, "3:00 has not come")

        let afterThree = start.addingTimeInterval(5 * 60)
        let due = try await queue.schedules.dueTicks(now: afterThree)
        XCTAssertEqual(due.map(\.name), ["nightly-report"])
        let job = try await queue.schedules.enqueueTick(due[0])
        XCTAssertNotNil(job)
        let twice = try await queue.schedules.enqueueTick(due[0])
        XCTAssertNil(twice, "a tick's job is made once, whoever enqueues it again")
        let made = try await queue.job(id: try XCTUnwrap(job))
        XCTAssertEqual(made.kind, "report")
    }
}
