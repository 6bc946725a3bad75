import AtelierJobs
import AtelierLanes
import HTTPTypes
import Hummingbird
import Foundation

/// Every error the API answers with: a status, an error name of docs/clients.md §4.2, a message for people,
/// optional details (which field, what limit) and extra headers (Retry-After …).
/// Rendered as `{"error", "message", "details"?, "retryAfter"?, "requestId"?}` by ``response()``: the
/// outermost ``RequestLogMiddleware`` catches every error, ``ErrorMapping`` turns it into an
/// `APIError`, and that is the one place errors become responses. A 429 repeats its `Retry-After`
/// as `retryAfter` (whole seconds), a 500 names its request in `requestId` — the fleet app's
/// conventions, for every client.
package struct APIError: Error, Sendable, Equatable {
    package var status: HTTPResponse.Status
    package var name: String
    package var message: String
    package var details: [String: String]?
    package var headers: HTTPFields
    /// The request a 500 happened in (the body's `requestId`).
    package var requestID: String?

    package init(_ status: HTTPResponse.Status, _ name: String, _ message: String,
                details: [String: String]? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.name = name
        self.message = message
        self.details = details
        self.headers = headers
    }

    package static func validation(_ message: String, field: String? = nil) -> APIError {
        APIError(.badRequest, "ValidationError", message, details: field.map { ["field": $0] })
    }

    /// A job's options its kind's contract refused: a 400 naming the field.
    package static func validation(_ error: JobOptionsError) -> APIError {
        validation(error.message, field: error.field)
    }

    package static func unauthenticated(_ message: String = "a credential is required: send X-App-Token or Authorization: Bearer") -> APIError {
        APIError(.unauthorized, "AuthenticationError", message, headers: [.wwwAuthenticate: "Bearer realm=\"atelier\""])
    }

    package static func forbidden(_ message: String) -> APIError {
        APIError(.forbidden, "AuthorizationError", message)
    }

    package static func notFound(_ message: String) -> APIError {
        APIError(.notFound, "NotFoundError", message)
    }

    package static func conflict(_ message: String) -> APIError {
        APIError(.conflict, "ConflictError", message)
    }

    package static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, "PayloadTooLargeError", "the request body is larger than the limit of \(limit) bytes",
                 details: ["limit_bytes": String(limit)])
    }

    package static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(.unsupportedMediaType, "UnsupportedMediaTypeError", message)
    }

    package static func rangeNotSatisfiable(size: Int) -> APIError {
        APIError(.rangeNotSatisfiable, "RangeNotSatisfiableError", "the requested range is outside the \(size)-byte file",
                 headers: [.contentRange: "bytes */\(size)"])
    }

    package static func unavailable(_ message: String) -> APIError {
        APIError(.serviceUnavailable, "ServiceUnavailableError", message, headers: [.retryAfter: "5"])
    }

    /// A lane would make the request wait too long (``LaneFullError``): 503 with `Retry-After`.
    /// `closing`: the request's body was not read, so the answer closes the connection
    /// (``ClosingAnswerHandler``) instead of reading the body only to throw it away.
    package static func busy(_ error: LaneFullError, closing: Bool = false) -> APIError {
        var headers: HTTPFields = [.retryAfter: String(error.retryAfterSeconds)]
        if closing { headers[.connection] = "close" }
        return APIError(.serviceUnavailable, "BusyError", error.message, details: ["lane": error.lane], headers: headers)
    }

    package static func `internal`(_ requestID: String = "") -> APIError {
        var error = APIError(.internalServerError, "InternalServerError",
                             "something went wrong on our side" + (requestID.isEmpty ? "" : "; quote request id \(requestID)"))
        error.requestID = requestID.isEmpty ? nil : requestID
        return error
    }

    /// Adds headers (e.g. rate-limit headers) to the error's response.
    package func adding(_ fields: HTTPFields) -> APIError {
        var copy = self
        for field in fields where copy.headers[field.name] == nil { copy.headers.append(field) }
        return copy
    }

    struct Body: Encodable {
        var error: String
        var message: String
        var details: [String: String]?
        var retryAfter: Int?
        var requestId: String?
    }

    func response() -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let retryAfter = status == .tooManyRequests ? headers[.retryAfter].flatMap { Int($0) } : nil
        let body = Body(error: name, message: message, details: details, retryAfter: retryAfter, requestId: requestID)
        let data = (try? encoder.encode(body)) ?? Data()
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(data.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
