import Foundation
import Logging

/// One log line per event, in one of two formats (``LogFormat``):
/// - `text`, swift-log's `StreamLogHandler` format
///   (`2026-11-24T14:00:00+0000 info atelier.api: key=value [Module] message`);
/// - `json`, one JSON object per line for a log collector (``JSONLogLine``).
///
/// It differs from `StreamLogHandler` in one way that matters on the request path: metadata is
/// rendered when a line is written, not each time a key is set. Every request sets its id on its logger twice (Hummingbird's
/// and ours) and most requests write nothing; `StreamLogHandler` rendered the whole metadata
/// string on each set, a visible share of an authenticated poll's CPU (docs/benchmarks/api.md, "HTTP
/// API", second pass).
struct LineLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    /// The file descriptor lines go to: 2 (standard error) or 1 (standard output).
    let descriptor: Int32
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LogFormat = .text, descriptor: Int32 = 2,
         metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.format = format
        self.descriptor = descriptor
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var effective = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            effective.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            effective.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error {
            effective["error.message"] = "\(error)"
            effective["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        switch format {
        case .text:
            var line = Self.timestamp() + " \(event.level)" + (label.isEmpty ? "" : " ") + label + ":"
            if !effective.isEmpty {
                line += " " + effective.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            }
            line += " [\(event.source)] \(event.message)\n"
            Self.write(line, to: descriptor)
        case .json:
            Self.write(JSONLogLine.render(time: Date(), level: event.level, logger: label, source: event.source,
                                          message: "\(event.message)", metadata: effective), to: descriptor)
        }
    }

    /// One `write(2)` per line (retried on a short write), so lines from several threads never interleave.
    private static func write(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        var buffer = [Int8](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
