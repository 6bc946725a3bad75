import Foundation

/// How the API writes JSON: keys sorted (stable bodies, stable ETags), `/` unescaped, dates as
/// ISO-8601 with milliseconds.
package enum APIJSON {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        }
        return encoder
    }

    package static func encode(_ value: some Encodable) throws -> Data {
        try encoder().encode(value)
    }
}
