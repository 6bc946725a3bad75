import Foundation
import PostgresNIO

/// Which jobs an operator means: the one filter language of `atelier jobs list --where`, the
/// console's Jobs page, `GET /v1/admin/jobs` and the bulk actions.
///
/// Written as `name=value` terms, each name at most once:
///
/// | name | value |
/// |---|---|
/// | `kind`, `state`, `queue` | one value or several, comma-separated (any of them) |
/// | `owner` | one owner |
/// | `created-after`, `created-before`, `finished-after`, `finished-before` | an ISO 8601 time, or a duration ago (`90m`, `12h`, `7d`) |
/// | `error` | text the job's last error contains (any case) |
///
/// In SQL the filter is `atelier_job_matches` (`Sources/AtelierQueue/SQL/`), one expression the planner inlines.
public struct JobCriteria: Sendable, Equatable {
    public var kinds: [String] = []
    public var states: [JobState] = []
    public var queues: [String] = []
    public var owner: String?
    public var createdAfter: Date?
    public var createdBefore: Date?
    public var finishedAfter: Date?
    public var finishedBefore: Date?
    public var errorContains: String?

    /// The names a term may have, in the order `description` writes them.
    public static let names = ["kind", "state", "queue", "owner", "created-after", "created-before",
                               "finished-after", "finished-before", "error"]
    /// The longest value a term takes, in Unicode scalars (JSON Schema's `maxLength`): a kind,
    /// queue or owner is at most 200 bytes anyway, and a list of them fits.
    public static let maxValueLength = 200

    public init() {}

    /// Reads `name=value` terms; `now` resolves the durations ago.
    public init(terms: [String], now: Date = Date()) throws(QueueError) {
        var pairs: [(String, String)] = []
        for term in terms {
            guard let equals = term.firstIndex(of: "=") else {
                throw .invalidArgument("'\(Self.shown(term))' is not a filter term; write name=value, e.g. state=failed (names: \(Self.names.joined(separator: ", ")))")
            }
            pairs.append((String(term[..<equals]), String(term[term.index(after: equals)...])))
        }
        try self.init(pairs: pairs, now: now)
    }

    /// Reads (name, value) pairs, as a query string or a JSON object gives them; an empty value
    /// is no condition (a form's empty field).
    public init(pairs: [(String, String)], now: Date = Date()) throws(QueueError) {
        var seen = Set<String>()
        for (rawName, rawValue) in pairs {
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            let value = rawValue.trimmingCharacters(in: .whitespaces)
            guard Self.names.contains(name) else {
                throw .invalidArgument("unknown filter '\(Self.shown(name))'; filters are \(Self.names.joined(separator: ", "))")
            }
            guard seen.insert(name).inserted else { throw .invalidArgument("filter '\(name)' is given twice; give it once (a list is comma-separated)") }
            guard !value.isEmpty else { continue }
            guard value.unicodeScalars.count <= Self.maxValueLength, !value.contains("\u{0}") else {
                throw .invalidArgument("filter '\(name)' is longer than \(Self.maxValueLength) characters or holds a NUL character")
            }
            switch name {
            case "kind": kinds = Self.list(value)
            case "queue": queues = Self.list(value)
            case "state": states = try Self.list(value).map { text throws(QueueError) in try JobState.parse(text) }
            case "owner": owner = value
            case "created-after": createdAfter = try Self.time(value, name, now: now)
            case "created-before": createdBefore = try Self.time(value, name, now: now)
            case "finished-after": finishedAfter = try Self.time(value, name, now: now)
            case "finished-before": finishedBefore = try Self.time(value, name, now: now)
            default: errorContains = value
            }
        }
    }

    /// True when no term narrows the filter (every job matches).
    public var isEmpty: Bool { self == JobCriteria() }

    /// The filter as terms, times in ISO 8601 (UTC, milliseconds).
    public var terms: [String] {
        var terms: [String] = []
        if !kinds.isEmpty { terms.append("kind=" + kinds.joined(separator: ",")) }
        if !states.isEmpty { terms.append("state=" + states.map(\.rawValue).joined(separator: ",")) }
        if !queues.isEmpty { terms.append("queue=" + queues.joined(separator: ",")) }
        if let owner { terms.append("owner=" + owner) }
        for (name, date) in [("created-after", createdAfter), ("created-before", createdBefore),
                             ("finished-after", finishedAfter), ("finished-before", finishedBefore)] {
            if let date { terms.append(name + "=" + Self.iso8601(date)) }
        }
        if let errorContains { terms.append("error=" + errorContains) }
        return terms
    }

    /// The filter as one line (`(every job)` when empty).
    public var text: String { isEmpty ? "(every job)" : terms.joined(separator: " ") }

    /// The SQL condition on the table aliased `alias`: its values appended to `binds`, the text
    /// naming them by number (`$n`), for a query built with `PostgresQuery(unsafeSQL:binds:)`.
    func condition(alias j: String, binds: inout PostgresBindings) -> String {
        var placeholders: [String] = []
        func bind(_ type: String, _ append: (inout PostgresBindings) -> Void) {
            append(&binds)
            placeholders.append("$\(binds.count)::\(type)")
        }
        bind("text[]") { $0.append(kinds) }
        bind("text[]") { $0.append(states.map(\.rawValue)) }
        bind("text[]") { $0.append(queues) }
        bind("text") { $0.append(owner) }
        for date in [createdAfter, createdBefore, finishedAfter, finishedBefore] {
            bind("timestamptz") { $0.append(date) }
        }
        bind("text") { $0.append(errorContains) }
        return "atelier_job_matches(\(j).kind, \(j).state, \(j).queue, \(j).owner, \(j).created_at, \(j).finished_at, \(j).error, "
            + placeholders.joined(separator: ", ") + ")"
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// An ISO 8601 time (a date alone is midnight UTC; no zone is UTC), or a duration ago.
    private static func time(_ value: String, _ name: String, now: Date) throws(QueueError) -> Date {
        if let date = try? Date(value, strategy: .iso8601) { return date }
        for suffix in ["Z", ":00Z", "T00:00:00Z"] {
            if let date = try? Date(value + suffix, strategy: .iso8601) { return date }
        }
        let lower = value.lowercased()
        for (unit, seconds) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0), ("d", 86400.0), ("w", 604800.0)]
        where lower.hasSuffix(unit) {
            if let number = Double(lower.dropLast(unit.count)), number >= 0, number.isFinite, number * seconds < 3.2e9 {
                return now.addingTimeInterval(-number * seconds)
            }
        }
        throw .invalidArgument("filter '\(name)' must be an ISO 8601 time (2026-11-25T10:00:00Z) or a duration ago (90m, 12h, 7d)")
    }

    /// A user's text, cut for an error message.
    private static func shown(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
