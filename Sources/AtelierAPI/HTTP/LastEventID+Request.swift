import Hummingbird

extension LastEventID {
    /// A stream's resume point from `Last-Event-ID` or `?last_event_id=`; 400 when malformed.
    package static func of(_ request: Request, allowParts: Bool) throws -> LastEventID? {
        // The query is checked even when the header wins: a malformed value is refused wherever it is.
        let query = request.uri.queryParameters["last_event_id"].map(String.init)
        do {
            _ = try parse(query, allowParts: allowParts)
        } catch {
            throw APIError.validation("last_event_id must be an event id from this stream (like 42\(allowParts ? " or 42.2" : ""))",
                                      field: "last_event_id")
        }
        // A blank header is no header: the query (what a browser's EventSource can send) counts then.
        let header = request.headers[.lastEventID].flatMap { HeaderText.trimmed($0).isEmpty ? nil : $0 } ?? query
        do {
            return try parse(header, allowParts: allowParts)
        } catch {
            throw APIError.validation("Last-Event-ID must be an event id from this stream (like 42\(allowParts ? " or 42.2" : ""))",
                                      field: "Last-Event-ID")
        }
    }
}
