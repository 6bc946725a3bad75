import AtelierQueue
import Foundation
import XCTest

/// The cron parser and its tick arithmetic, in UTC: fields, ranges, steps, lists, names; month
/// ends, leap years, Vixie cron's day-of-month OR day-of-week; refusals with their messages.
final class CronExpressionTests: XCTestCase {
    private func at(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text.replacingOccurrences(of: " ", with: "T") + ":00Z")!
    }

    private func cron(_ text: String) throws -> CronExpression {
        try CronExpression(text)
    }

    /// The `count` ticks after `start`.
    private func ticks(_ text: String, after start: String, count: Int) throws -> [Date] {
        let expression = try cron(text)
        var result: [Date] = []
        var t = at(start)
        for _ in 0..<count {
            t = try XCTUnwrap(expression.next(after: t))
            result.append(t)
        }
        return result
    }

    func testStepsRangesAndLists() throws {
        XCTAssertEqual(try ticks("*/5 * * * *", after: "2025-03-01 10:03", count: 3),
                       [at("2025-03-01 10:05"), at("2025-03-01 10:10"), at("2025-03-01 10:15")])
        XCTAssertEqual(try ticks("*/5 * * * *", after: "2025-03-01 10:05", count: 1), [at("2025-03-01 10:10")], "strictly after")
        XCTAssertEqual(try ticks("0,30 9-10 * * *", after: "2025-03-01 09:15", count: 4),
                       [at("2025-03-01 09:30"), at("2025-03-01 10:00"), at("2025-03-01 10:30"), at("2025-03-02 09:00")])
        XCTAssertEqual(try ticks("10-40/15 * * * *", after: "2025-03-01 10:41", count: 3),
                       [at("2025-03-01 11:10"), at("2025-03-01 11:25"), at("2025-03-01 11:40")])
        XCTAssertEqual(try ticks("0 0 * jan,jul mon-fri", after: "2025-06-30 12:00", count: 1), [at("2025-07-01 00:00")])
        XCTAssertEqual(try ticks("0 12 * * 7", after: "2025-03-01 00:00", count: 1), [at("2025-03-02 12:00")], "7 is Sunday")
        XCTAssertEqual(try ticks("@hourly", after: "2025-12-31 23:30", count: 1), [at("2026-01-01 00:00")], "over the year's end")
        XCTAssertEqual(try ticks("@weekly", after: "2025-03-01 00:00", count: 1), [at("2025-03-02 00:00")])
    }

    func testMonthEndsAndLeapYears() throws {
        XCTAssertEqual(try ticks("0 0 31 * *", after: "2025-01-31 00:00", count: 3),
                       [at("2025-03-31 00:00"), at("2025-05-31 00:00"), at("2025-07-31 00:00")], "months without a 31st are skipped")
        XCTAssertEqual(try ticks("0 0 29 2 *", after: "2024-03-01 00:00", count: 2),
                       [at("2028-02-29 00:00"), at("2032-02-29 00:00")])
        // 2100 is not a leap year: eight years between two 29 Februaries.
        XCTAssertEqual(try ticks("0 0 29 2 *", after: "2096-03-01 00:00", count: 1), [at("2104-02-29 00:00")])
        XCTAssertEqual(try ticks("59 23 28-29 2 *", after: "2025-02-28 23:59", count: 1), [at("2026-02-28 23:59")])
        XCTAssertEqual(try cron("0 0 29 2 *").previous(atOrBefore: at("2104-02-28 00:00")), at("2096-02-29 00:00"))
    }

    func testDayOfMonthOrDayOfWeekAsVixieCron() throws {
        // Both restricted: either matches. 2025-03-01 is a Saturday.
        XCTAssertEqual(try ticks("0 0 15 * mon", after: "2025-03-01 00:00", count: 4),
                       [at("2025-03-03 00:00"), at("2025-03-10 00:00"), at("2025-03-15 00:00"), at("2025-03-17 00:00")])
        // A field starting with `*` is not a restriction: both must match.
        XCTAssertEqual(try ticks("0 0 */10 * mon", after: "2025-03-01 00:00", count: 1), [at("2025-03-31 00:00")],
                       "the 1st, 11th, 21st and 31st that are Mondays")
        XCTAssertEqual(try ticks("0 0 * * mon", after: "2025-03-01 00:00", count: 1), [at("2025-03-03 00:00")])
    }

    func testPreviousIsTheNewestTickAtOrBefore() throws {
        let every5 = try cron("*/5 * * * *")
        XCTAssertEqual(every5.previous(atOrBefore: at("2025-03-01 10:05")), at("2025-03-01 10:05"), "at counts")
        XCTAssertEqual(every5.previous(atOrBefore: at("2025-03-01 10:04").addingTimeInterval(59)), at("2025-03-01 10:00"))
        XCTAssertEqual(try cron("30 23 31 * *").previous(atOrBefore: at("2025-03-01 00:00")), at("2025-01-31 23:30"))
        XCTAssertEqual(try cron("0 6 * * *").previous(atOrBefore: at("2025-01-01 05:59")), at("2024-12-31 06:00"))
    }

    func testNextAndPreviousAgreeOverAYear() throws {
        for text in ["*/7 */5 * * *", "3 4 1,15 * *", "0 0 13 * fri", "15 10 * 2 sun"] {
            let expression = try cron(text)
            var t = at("2023-12-31 23:59")
            for _ in 0..<200 {
                guard let next = expression.next(after: t) else { return XCTFail(text) }
                XCTAssertEqual(expression.previous(atOrBefore: next), next, text)
                XCTAssertEqual(expression.previous(atOrBefore: next.addingTimeInterval(-60)).map { $0 < next }, true, text)
                t = next
            }
        }
    }

    func testRefusalsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("* * * *", "has 5 fields"),
            ("60 * * * *", "out of range for the minute field"),
            ("* 24 * * *", "out of range for the hour field"),
            ("* * 0 * *", "out of range for the day of month field"),
            ("* * * 13 *", "out of range for the month field"),
            ("* * * * 8", "out of range for the day of week field"),
            ("*/0 * * * *", "step '0'"),
            ("5-1 * * * *", "runs backwards"),
            ("1,,2 * * * *", "empty value"),
            ("x * * * *", "'x' is not a value"),
            ("0 0 30 2 *", "never fires"),
            ("0 0 31 4,6,9,11 *", "never fires"),
            ("@often", "unknown shorthand"),
            ("* * * * *\u{0}", "printable ASCII"),
            ("123456 * * * *", "not a value"),
            (String(repeating: "1,", count: 150) + "1 * * * *", "at most 200 characters"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try CronExpression(text), text) { error in
                let message = (error as? CronError)?.message ?? ""
                XCTAssertTrue(message.contains(expected), "\(text): \(message)")
            }
        }
    }

    /// Parsing and searching are bounded: the longest input and the sparsest expressions answer
    /// at once (counted in ticks found, not timed).
    func testSparseExpressionsAreFoundWithoutWalkingMinutes() throws {
        let long = String(repeating: "0,", count: 95) + "0 * * * *"
        XCTAssertLessThanOrEqual(long.utf8.count, CronExpression.maxLength)
        XCTAssertNoThrow(try CronExpression(long))
        let leap = try cron("59 23 29 2 *")
        var t = at("2000-01-01 00:00")
        var found = 0
        while let next = leap.next(after: t), found < 30 {
            XCTAssertEqual(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: next).day, 29)
            t = next
            found += 1
        }
        XCTAssertEqual(found, 30, "every 29 February from 2000 on: 120 years")
    }
}
