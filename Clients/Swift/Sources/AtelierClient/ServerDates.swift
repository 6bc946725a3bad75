import Foundation
import OpenAPIRuntime

/// The server's dates: ISO 8601 with fractional seconds in job and document bodies
/// (`2026-11-29T05:47:10.123Z`), whole seconds in a few (`/health`'s timestamp). Read either;
/// written with fractional seconds.
struct ServerDates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func decode(_ text: String) throws -> Date {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an ISO 8601 date: \(text.prefix(64))"))
    }
}
