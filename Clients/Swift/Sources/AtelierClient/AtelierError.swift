import Foundation

/// Every failure of a call through ``Atelier``, as one type: the server's answer, with its words
/// and the request id to quote to its operator, or no usable answer at all.
public enum AtelierError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused or failed the request (a 4xx or 5xx). `error` is its error's name
    /// (`ValidationError`, `AuthenticationError`, `NotFoundError`, `RateLimitError` …), `message`
    /// its explanation for a person, `field` the request field it blames, if any.
    case server(status: Int, error: String, message: String, field: String?, requestID: String?, retryAfter: Int?)
    /// An answer this client does not understand for the call (a status or body the API
    /// document does not describe).
    case unexpected(status: Int, requestID: String?)
    /// No answer: the connection failed or the transport gave up. `reason` is the transport's own
    /// text.
    case transport(reason: String)

    public var description: String {
        switch self {
        case let .server(status, error, message, field, requestID, _):
            "\(status) \(error): \(message)" + (field.map { " (field \($0))" } ?? "") + (requestID.map { " [request \($0)]" } ?? "")
        case let .unexpected(status, requestID):
            "unexpected answer \(status)" + (requestID.map { " [request \($0)]" } ?? "")
        case let .transport(reason):
            "no answer: \(reason)"
        }
    }

    /// The server's request id for this failure, when it answered.
    public var requestID: String? {
        switch self {
        case let .server(_, _, _, _, requestID, _), let .unexpected(_, requestID): requestID
        case .transport: nil
        }
    }
}
