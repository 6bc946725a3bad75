import AtelierAPI
import Foundation
import HTTPTypes
import Hummingbird

/// The Learn Assistant's error body: `{"error": "message"}` with the status its document gives.
struct LearnError: Error {
    var status: HTTPResponse.Status
    var message: String
    /// Seconds, sent as `Retry-After` (429, 503).
    var retryAfter: Int?

    init(status: HTTPResponse.Status, message: String, retryAfter: Int? = nil) {
        (self.status, self.message, self.retryAfter) = (status, message, retryAfter)
    }

    struct Body: Encodable { var error: String }

    static func badRequest(_ message: String) -> LearnError { LearnError(status: .badRequest, message: message) }
    static func unauthorized(_ message: String) -> LearnError { LearnError(status: .unauthorized, message: message) }

    var response: Response {
        var response = (try? JSONResponse.encode(Body(error: message), status: status)) ?? Response(status: status)
        if let retryAfter {
            response.headers[.retryAfter] = String(retryAfter)
        } else if status == .serviceUnavailable {
            response.headers[.retryAfter] = "5"
        }
        return response
    }
}
