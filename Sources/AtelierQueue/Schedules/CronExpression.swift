import Foundation

/// Why a cron expression was refused, in words for the person who typed it.
package struct CronError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// A standard five-field cron expression, read in UTC: `minute hour day-of-month month
/// day-of-week`. Each field is `*`, a number, a range `a-b`, any of those with a step (`*/5`,
/// `10-40/10`), or a comma-separated list of them; months and weekdays may be named (`jan`,
/// `mon`), Sunday is 0 or 7, and `@hourly`, `@daily` (`@midnight`), `@weekly`, `@monthly`,
/// `@yearly` (`@annually`) stand for their usual expressions.
///
/// Day of month and day of week combine as in Vixie cron: when both are restricted (neither
/// starts with `*`) a day matches if *either* matches (`0 0 1 * mon`: the 1st and every Monday);
/// otherwise both must.
///
/// Parsing is linear in the text, which may be at most ``maxLength`` bytes. ``next(after:)`` and
/// ``previous(atOrBefore:)`` step by field (to the next matching month, day, hour, minute), never
/// minute by minute, and look at most ``searchYears`` years ahead or back: an expression that
/// cannot fire in that span (`0 0 30 2 *`) is refused when parsed.
package struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    package static let maxLength = 200
    /// How far the searches look: more than the longest gap between two ticks of any expression
    /// that fires at all (29 February on a given weekday recurs within 28 years).
    static let searchYears = 29

    /// The text as given (trimmed).
    package let text: String
    let minutes: CronField
    let hours: CronField
    let daysOfMonth: CronField
    let months: CronField
    let daysOfWeek: CronField
    /// Vixie cron's rule: the day fields are OR-ed only when both are restricted.
    let eitherDay: Bool

    package var description: String { text }

    package init(_ text: String) throws(CronError) {
        guard text.utf8.count <= Self.maxLength else {
            throw CronError("a cron expression is at most \(Self.maxLength) characters")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw CronError("a cron expression holds only printable ASCII: digits, letters, * , - / @ and spaces")
        }
        let expanded = try Self.expand(trimmed)
        let fields = expanded.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 5 else {
            throw CronError("a cron expression has 5 fields (minute hour day-of-month month day-of-week), got \(fields.count) in '\(trimmed)'")
        }
        self.text = trimmed
        minutes = try CronField.parse(fields[0], kind: .minute)
        hours = try CronField.parse(fields[1], kind: .hour)
        daysOfMonth = try CronField.parse(fields[2], kind: .dayOfMonth)
        months = try CronField.parse(fields[3], kind: .month)
        daysOfWeek = try CronField.parse(fields[4], kind: .dayOfWeek)
        eitherDay = !fields[2].hasPrefix("*") && !fields[4].hasPrefix("*")
        // 2000-01-01: a leap year, so 29 February is reachable within the search.
        guard next(after: Date(timeIntervalSince1970: 946_684_800)) != nil else {
            throw CronError("'\(trimmed)' never fires (no such day in the months it names)")
        }
    }

    private static func expand(_ text: String) throws(CronError) -> String {
        guard text.hasPrefix("@") else { return text }
        switch text.lowercased() {
        case "@yearly", "@annually": return "0 0 1 1 *"
        case "@monthly": return "0 0 1 * *"
        case "@weekly": return "0 0 * * 0"
        case "@daily", "@midnight": return "0 0 * * *"
        case "@hourly": return "0 * * * *"
        default: throw CronError("unknown shorthand '\(text.prefix(20))'; one of @yearly, @monthly, @weekly, @daily, @hourly")
        }
    }

    /// The first tick strictly after `date` (seconds ignored), or nil if there is none within
    /// ``searchYears`` (not for an expression that parsed).
    package func next(after date: Date) -> Date? {
        var t = CivilMinute(minuteOfEpoch: CivilMinute.minuteOfEpoch(date) + 1)
        let limit = t.year + Self.searchYears
        while t.year <= limit {
            if !months.contains(t.month) {
                if let month = months.first(atOrAfter: t.month + 1) {
                    t = CivilMinute(year: t.year, month: month, day: 1, hour: 0, minute: 0)
                } else {
                    t = CivilMinute(year: t.year + 1, month: months.first(atOrAfter: 1)!, day: 1, hour: 0, minute: 0)
                }
            } else if !dayMatches(t) {
                t = t.startOfNextDay
            } else if !hours.contains(t.hour) {
                if let hour = hours.first(atOrAfter: t.hour + 1) {
                    t.hour = hour
                    t.minute = 0
                } else {
                    t = t.startOfNextDay
                }
            } else if !minutes.contains(t.minute) {
                if let minute = minutes.first(atOrAfter: t.minute + 1) {
                    t.minute = minute
                } else if let hour = hours.first(atOrAfter: t.hour + 1) {
                    t.hour = hour
                    t.minute = 0
                } else {
                    t = t.startOfNextDay
                }
            } else {
                return t.date
            }
        }
        return nil
    }

    /// The last tick at or before `date` (seconds ignored), or nil if there is none within
    /// ``searchYears``.
    package func previous(atOrBefore date: Date) -> Date? {
        var t = CivilMinute(minuteOfEpoch: CivilMinute.minuteOfEpoch(date))
        let limit = t.year - Self.searchYears
        while t.year >= limit {
            if !months.contains(t.month) {
                let month = months.last(atOrBefore: t.month - 1)
                let year = month == nil ? t.year - 1 : t.year
                let m = month ?? months.last(atOrBefore: 12)!
                t = CivilMinute(year: year, month: m, day: CivilMinute.daysIn(year: year, month: m), hour: 23, minute: 59)
            } else if !dayMatches(t) {
                t = t.endOfPreviousDay
            } else if !hours.contains(t.hour) {
                if let hour = hours.last(atOrBefore: t.hour - 1) {
                    t.hour = hour
                    t.minute = 59
                } else {
                    t = t.endOfPreviousDay
                }
            } else if !minutes.contains(t.minute) {
                if let minute = minutes.last(atOrBefore: t.minute - 1) {
                    t.minute = minute
                } else if let hour = hours.last(atOrBefore: t.hour - 1) {
                    t.hour = hour
                    t.minute = 59
                } else {
                    t = t.endOfPreviousDay
                }
            } else {
                return t.date
            }
        }
        return nil
    }

    private func dayMatches(_ t: CivilMinute) -> Bool {
        let dom = daysOfMonth.contains(t.day)
        let dow = daysOfWeek.contains(t.weekday)
        return eitherDay ? (dom || dow) : (dom && dow)
    }
}

/// The values one field allows, as a bit set (bit n: value n).
struct CronField: Sendable, Equatable {
    enum Kind {
        case minute, hour, dayOfMonth, month, dayOfWeek

        var name: String {
            switch self {
            case .minute: "minute"
            case .hour: "hour"
            case .dayOfMonth: "day of month"
            case .month: "month"
            case .dayOfWeek: "day of week"
            }
        }

        /// The values a person may write (7 is Sunday too).
        var range: ClosedRange<Int> {
            switch self {
            case .minute: 0...59
            case .hour: 0...23
            case .dayOfMonth: 1...31
            case .month: 1...12
            case .dayOfWeek: 0...7
            }
        }

        var names: [String] {
            switch self {
            case .month: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
            case .dayOfWeek: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
            default: []
            }
        }
    }

    private(set) var bits: UInt64 = 0

    func contains(_ value: Int) -> Bool {
        value >= 0 && value < 64 && bits & (1 << UInt64(value)) != 0
    }

    func first(atOrAfter value: Int) -> Int? {
        var v = max(value, 0)
        while v < 64 {
            if contains(v) { return v }
            v += 1
        }
        return nil
    }

    func last(atOrBefore value: Int) -> Int? {
        var v = min(value, 63)
        while v >= 0 {
            if contains(v) { return v }
            v -= 1
        }
        return nil
    }

    static func parse(_ text: Substring, kind: Kind) throws(CronError) -> CronField {
        var field = CronField()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw CronError("'\(item)' in the \(kind.name) field has more than one '/'") }
            var range: ClosedRange<Int>
            if parts[0] == "*" {
                range = kind == .dayOfWeek ? 0...6 : kind.range
            } else {
                let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count <= 2 else { throw CronError("'\(item)' in the \(kind.name) field is not a range a-b") }
                let low = try value(bounds[0], kind: kind)
                let high = try bounds.count == 2 ? value(bounds[1], kind: kind) : (parts.count == 2 ? kind.range.upperBound : low)
                guard low <= high else {
                    throw CronError("the range '\(parts[0])' in the \(kind.name) field runs backwards")
                }
                range = low...high
            }
            var step = 1
            if parts.count == 2 {
                guard let n = number(parts[1]), n >= 1, n <= kind.range.upperBound else {
                    throw CronError("the step '\(parts[1].prefix(10))' in the \(kind.name) field must be 1–\(kind.range.upperBound)")
                }
                step = n
            }
            for v in stride(from: range.lowerBound, through: range.upperBound, by: step) {
                // Sunday is 0 and 7.
                field.bits |= 1 << UInt64(kind == .dayOfWeek && v == 7 ? 0 : v)
            }
        }
        return field
    }

    private static func value(_ text: Substring, kind: Kind) throws(CronError) -> Int {
        if let n = number(text) {
            guard kind.range.contains(n) else {
                throw CronError("\(n) is out of range for the \(kind.name) field (\(kind.range.lowerBound)–\(kind.range.upperBound))")
            }
            return n
        }
        if let index = kind.names.firstIndex(of: text.lowercased()) {
            return kind == .month ? index + 1 : index
        }
        if text.isEmpty { throw CronError("an empty value in the \(kind.name) field") }
        throw CronError("'\(text.prefix(10))' is not a value of the \(kind.name) field")
    }

    /// A decimal number of at most 2 digits (no field goes higher), else nil.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 2, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
