import Foundation

/// A minute of the proleptic Gregorian calendar in UTC, for ``CronExpression``'s searches: plain
/// integer arithmetic (Howard Hinnant's days-from-civil), no `Calendar`, no time zone database.
struct CivilMinute: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        (self.year, self.month, self.day, self.hour, self.minute) = (year, month, day, hour, minute)
    }

    init(minuteOfEpoch: Int) {
        let days = Self.floorDiv(minuteOfEpoch, 1440)
        let inDay = minuteOfEpoch - days * 1440
        (year, month, day) = Self.civil(fromDays: days)
        (hour, minute) = (inDay / 60, inDay % 60)
    }

    /// Whole minutes since 1970-01-01 00:00 UTC, rounded down.
    static func minuteOfEpoch(_ date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    var date: Date {
        let minutes = Self.days(year: year, month: month, day: day) * 1440 + hour * 60 + minute
        return Date(timeIntervalSince1970: TimeInterval(minutes) * 60)
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    var weekday: Int {
        let days = Self.days(year: year, month: month, day: day)
        return ((days % 7) + 11) % 7
    }

    var startOfNextDay: CivilMinute {
        if day < Self.daysIn(year: year, month: month) { return CivilMinute(year: year, month: month, day: day + 1, hour: 0, minute: 0) }
        if month < 12 { return CivilMinute(year: year, month: month + 1, day: 1, hour: 0, minute: 0) }
        return CivilMinute(year: year + 1, month: 1, day: 1, hour: 0, minute: 0)
    }

    var endOfPreviousDay: CivilMinute {
        if day > 1 { return CivilMinute(year: year, month: month, day: day - 1, hour: 23, minute: 59) }
        let (y, m) = month > 1 ? (year, month - 1) : (year - 1, 12)
        return CivilMinute(year: y, month: m, day: Self.daysIn(year: y, month: m), hour: 23, minute: 59)
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
