import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The two date spellings S3 uses, read without Foundation's formatters: ISO 8601 in listings
/// (`2026-11-23T10:15:00.000Z`) and HTTP dates in headers (`Mon, 23 Nov 2026 10:15:00 GMT`).
enum S3Dates {
    static func iso8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int32? { Int32(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var fraction = 0.0
        if bytes[19] == UInt8(ascii: "."), bytes.count > 21 {
            fraction = Double("0" + String(decoding: bytes[19..<(bytes.count - 1)], as: UTF8.self)) ?? 0
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: Double(timegm(&parts)) + fraction)
    }

    /// IMF-fixdate, the only form S3 stores send.
    static func http(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int32(parts[1]), let month = months.firstIndex(of: String(parts[2])),
              let year = Int32(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = Int32(month)
        fields.tm_mday = day
        fields.tm_hour = clock[0]
        fields.tm_min = clock[1]
        fields.tm_sec = clock[2]
        return Date(timeIntervalSince1970: Double(timegm(&fields)))
    }
}
