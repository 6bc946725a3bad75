import Hummingbird

extension LastEventID {
    /// A stream's resume point from `Last-Event-ID` or `?last_event_id=`; 400 when malformed.
    package static func of(_ request: Request, allowParts: Bool) throws -> LastEventID? {
        // A blank header is no header: the query (what a browser's EventSource can send) counts then.
        let header = request.headers[.lastEventID].flatMap { HeaderText.trimmed($0).isEmpty ? nil : $0 }
            ?? request.uri.queryParameters["last_event_id"].map(String.init)
        do {
            return try parse(header, allowParts: allowParts)
        } catch {
            throw APIError.validation("Last-Event-ID must be an event id from this stream (like 42\(allowParts ? " or 42.2" : ""))",
                                      field: "Last-Event-ID")
        }
    }
}
