/// Small text helpers for header values, on the request path of every call: no Foundation
/// (its `trimmingCharacters` bridges through NSString and was the largest single cost of an
/// authenticated 304 in a profile).
enum HeaderText {
    /// `text` without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.utf8.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.utf8.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        return text
    }

    static func trimmed(_ text: String) -> Substring { trimmed(Substring(text)) }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
