import Foundation

/// How the console writes times, ages and durations: UTC, to the second, as operators read them.
enum Format {
    static func time(_ date: Date?) -> String {
        guard let date else { return "—" }
        return date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash)
            .time(includingFractionalSeconds: false).timeSeparator(.colon)).replacingOccurrences(of: "T", with: " ")
            .replacingOccurrences(of: "Z", with: "")
    }

    /// `<time>` with the machine value and the readable one.
    static func timeTag(_ date: Date?) -> String {
        guard let date else { return "—" }
        return "<time datetime=\"\(date.formatted(.iso8601))\">\(time(date))</time>"
    }

    /// 0.4 s, 12 s, 3 min 5 s, 2 h 10 min, 3 d 4 h.
    static func duration(seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 1 { return String(format: "%.0f ms", s * 1000) }
        if s < 10 { return String(format: "%.1f s", s) }
        let total = Int(s.rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min \(total % 60) s" }
        if total < 86_400 { return "\(total / 3600) h \(total % 3600 / 60) min" }
        return "\(total / 86_400) d \(total % 86_400 / 3600) h"
    }

    static func age(since date: Date, now: Date = Date()) -> String {
        duration(seconds: now.timeIntervalSince(date)) + " ago"
    }

    static func percent(_ value: Double) -> String {
        value == 0 ? "0 %" : value < 0.001 ? "<0.1 %" : String(format: "%.1f %%", value * 100)
    }

    /// A job id as the lists show it: its last 8 characters — job ids are UUIDv7, whose first
    /// ones are the time and alike for jobs made together (the full id is the link's target).
    static func shortID(_ id: UUID) -> String {
        String(id.uuidString.lowercased().suffix(8))
    }
}
