import Foundation
import Logging

/// `ATELIER_LOG_FORMAT`: `text` (the default, for people) or `json` (one object per line, for a
/// log collector such as a container runtime's).
enum LogFormat: String, CaseIterable, Sendable {
    case text, json
}

/// One log event as a JSON object on one line:
/// `{"time":"2026-11-27T00:20:00.123Z","level":"info","logger":"atelier.api","source":"AtelierAPI","message":"…","request_id":"…"}`.
///
/// The five fixed keys come first; the event's metadata follows at the top level, sorted by key,
/// so `jq 'select(.job_id == "…")'` works. A metadata key that names a fixed key is written as
/// `metadata.KEY` rather than hide the fixed one. Nested metadata (arrays, dictionaries) stays
/// nested; everything else is a string.
enum JSONLogLine {
    static let fixedKeys: Set<String> = ["time", "level", "logger", "source", "message"]

    static func render(time: Date, level: Logger.Level, logger: String, source: String, message: String,
                       metadata: Logger.Metadata) -> String {
        var line = "{\"time\":"
        appendString(timestamp(time), to: &line)
        line += ",\"level\":"
        appendString(level.rawValue, to: &line)
        line += ",\"logger\":"
        appendString(logger, to: &line)
        line += ",\"source\":"
        appendString(source, to: &line)
        line += ",\"message\":"
        appendString(message, to: &line)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += ","
            appendString(fixedKeys.contains(key) ? "metadata." + key : key, to: &line)
            line += ":"
            append(value, to: &line)
        }
        line += "}\n"
        return line
    }

    private static func append(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let convertible): appendString(convertible.description, to: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                append(element, to: &line)
            }
            line += "]"
        case .dictionary(let entries):
            line += "{"
            for (index, (key, element)) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                append(element, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    /// UTC, milliseconds, `Z`: what every collector parses.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), min(millis, 999))
    }
}
