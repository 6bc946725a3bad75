import AtelierDatabase
import AtelierQueue
import Foundation
import Logging

/// Settings from `ATELIER_*` environment variables; command-line flags override them. Every
/// setting, the process that reads it and its default: docs/architecture.md §7 (a new setting
/// goes there and in README's "Configuration").
struct Settings {
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// `ATELIER_DATABASE_URL`, or the `--database-url` flag. Required.
    func databaseURL(flag: String?) throws -> DatabaseURL {
        guard let text = flag ?? environment["ATELIER_DATABASE_URL"], !text.isEmpty else {
            throw ConfigurationError(
                "ATELIER_DATABASE_URL is not set: point it at PostgreSQL, e.g. postgres://postgres@127.0.0.1:54329/atelier "
                + "(./ops/run starts a private PostgreSQL and writes the setting to .atelier/env; `source .atelier/env`)")
        }
        return try DatabaseURL(parsing: text)
    }

    func string(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ConfigurationError("\(name) must be a whole number, got '\(text)'") }
        return value
    }

    func duration(_ name: String) throws -> Duration? {
        guard let text = string(name) else { return nil }
        do {
            return try DurationText.parse(text)
        } catch {
            throw ConfigurationError("\(name): \(error.message)")
        }
    }

    /// `ATELIER_FAIR_SHARE` (default on): the claim interleaves owners within a priority; `off`
    /// keeps strict FIFO. Every process that enqueues or claims reads it (docs/queue.md).
    func fairShare() throws -> Bool {
        try bool("ATELIER_FAIR_SHARE") ?? true
    }

    func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    /// Logging at `ATELIER_LOG_LEVEL` (default `fallback`) in `ATELIER_LOG_FORMAT` (`text`, the
    /// default, or `json`). Text goes to standard error. JSON lines go to standard output for a
    /// `service` (`serve`, `work`, `dev`: what a container runtime collects) and to standard
    /// error for one-shot commands, whose standard output is their answer.
    func bootstrapLogging(fallback: Logger.Level, service: Bool = false) throws {
        let level = string("ATELIER_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? fallback
        let format = try logFormat()
        let descriptor: Int32 = format == .json && service ? 1 : 2
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: format, descriptor: descriptor)
            handler.logLevel = level
            return handler
        }
    }

    func logFormat() throws -> LogFormat {
        guard let text = string("ATELIER_LOG_FORMAT") else { return .text }
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            throw ConfigurationError("ATELIER_LOG_FORMAT is '\(text)'; write text or json")
        }
        return format
    }
}

/// Durations as people write them: `500ms`, `30s`, `15m`, `12h`, `7d`, or plain seconds.
enum DurationText {
    static func parse(_ text: String) throws(QueueError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604800)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            if let number = Double(trimmed.dropLast(suffix.count)), number >= 0, number.isFinite {
                return .milliseconds(Int64(number * scale * 1000))
            }
        }
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite {
            return .milliseconds(Int64(seconds * 1000))
        }
        throw .invalidArgument("'\(text)' is not a duration; write e.g. 500ms, 30s, 15m, 12h or 7d")
    }

    static func format(seconds: Double) -> String {
        switch seconds {
        case ..<1: return "\(Int(seconds * 1000))ms"
        case ..<120: return String(format: "%.1fs", seconds)
        case ..<7200: return String(format: "%.0fm", seconds / 60)
        case ..<172800: return String(format: "%.1fh", seconds / 3600)
        default: return String(format: "%.1fd", seconds / 86400)
        }
    }
}
