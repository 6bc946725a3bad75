/// The resume point of an event stream: `Last-Event-ID` (or the `last_event_id` query a
/// browser's EventSource cannot send as a header). `N` resumes after event N; `N.k` after part
/// k of event N's end group (Mondrian's stream names its last three frames that way).
/// Read strictly: ASCII digits only, no sign, within `Int64` (checked without overflowing).
/// Self-contained (no imports) so `./ops/fuzz` compiles it on its own — which is also why it is
/// `public` rather than `package` (a lone file has no package name); AtelierApps reads it.
package struct LastEventID: Equatable, Sendable {
    package var eventID: Int64
    /// 1…3 for `N.k`; nil for a plain `N`.
    package var part: Int?

    enum Failure: Error, Equatable { case malformed }

    /// nil when the header is absent or blank; throws when it is present but not an id.
    static func parse(_ header: String?, allowParts: Bool) throws(Failure) -> LastEventID? {
        guard let header else { return nil }
        var text = Substring(header)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        guard !text.isEmpty else { return nil }
        let pieces = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard let id = number(pieces[0]) else { throw .malformed }
        guard pieces.count > 1 else { return LastEventID(eventID: id, part: nil) }
        guard allowParts, pieces.count == 2, id >= 1, let part = number(pieces[1]), (1...3).contains(part) else {
            throw .malformed
        }
        return LastEventID(eventID: id, part: Int(part))
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19 else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
