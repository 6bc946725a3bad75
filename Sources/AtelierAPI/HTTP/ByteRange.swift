/// One `Range: bytes=…` request header (RFC 9110 §14.1.2), read strictly and without any
/// arithmetic that can overflow: positions are runs of ASCII digits, saturated at `Int.max`
/// (a last position beyond the file means "to the end"; a first position beyond it is
/// unsatisfiable). Anything else — several ranges, a reversed range, signs, spaces inside
/// numbers, another unit, garbage — is answered with the whole file, as the RFC allows.
/// Self-contained (no imports) so `./ops/fuzz` compiles it on its own.
enum ByteRange: Equatable {
    case whole
    case range(Range<Int>)
    case unsatisfiable

    static func parse(_ header: String, size: Int) -> ByteRange {
        guard size > 0 else { return .whole }
        var text = Substring(header)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        guard text.utf8.count > 6, text.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), !spec.contains(",") else { return .whole }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // bytes=-N: the last N bytes.
            guard let suffix = digits(last) else { return .whole }
            guard suffix > 0 else { return .unsatisfiable }
            return .range((suffix >= size ? 0 : size - suffix)..<size)
        }
        guard let start = digits(first) else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(start..<size) }
        guard let end = digits(last), end >= start else { return .whole }
        // end < size - 1 here keeps end + 1 within Int.
        return .range(start..<(end < size - 1 ? end + 1 : size))
    }

    /// A non-empty run of ASCII digits, saturated at `Int.max`; nil for anything else.
    static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }
}
