import Foundation

/// At most `count` job starts per `period`, for one kind across all workers: a token bucket of
/// `count` tokens refilled at `count`/`period` (bursts of at most `count`). Written `50/s`,
/// `600/m`, `5/10s`, `1000/1h`.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var count: Int
    public var period: Duration

    public init(count: Int, period: Duration) throws(QueueError) {
        guard (1...1_000_000).contains(count) else {
            throw QueueError.invalidArgument("a rate's count must be within 1…1000000, got \(count)")
        }
        guard period >= .milliseconds(1), period <= .seconds(86_400) else {
            throw QueueError.invalidArgument("a rate's period must be within 1ms…24h")
        }
        self.count = count
        self.period = period
    }

    /// Parses `N/PERIOD`: N a whole number, PERIOD a unit (`ms`, `s`, `m`, `h`, `d`) with an
    /// optional whole multiple before it (`10s`).
    public init(parsing text: String) throws(QueueError) {
        let invalid = QueueError.invalidArgument(
            "a rate is written N/PERIOD, such as 50/s, 600/m or 5/10s (units ms, s, m, h, d)")
        let parts = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 8, parts[1].count <= 12, let count = Int(parts[0]) else { throw invalid }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        let periodText = parts[1]
        guard let (unit, scale) = units.first(where: { periodText.hasSuffix($0.0) }) else { throw invalid }
        let multipleText = periodText.dropLast(unit.count)
        guard let multiple = multipleText.isEmpty ? 1 : Int64(multipleText), multiple >= 1, multiple <= 86_400_000 else {
            throw invalid
        }
        try self.init(count: count, period: .milliseconds(multiple * scale))
    }

    public var periodMilliseconds: Int64 { period.milliseconds }

    /// The text ``init(parsing:)`` reads back: `50/s`, `5/10s`, `1500/250ms`.
    public var description: String {
        let ms = periodMilliseconds
        for (unit, scale) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where ms % scale == 0 {
            let multiple = ms / scale
            return "\(count)/\(multiple == 1 ? "" : String(multiple))\(unit)"
        }
        return "\(count)/\(ms)ms"
    }
}
