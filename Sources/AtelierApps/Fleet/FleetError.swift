import AtelierAPI
import Foundation
import HTTPTypes
import Hummingbird

/// The fleet app's error bodies (docs/clients.md §6): `{error, message}` plus the field each kind
/// of error carries — `details` (400), `code` (401), `retryAfter` (429, also as the header),
/// `requestId` (500). Every failure of the fleet routes becomes one of these.
struct FleetError: Error {
    var status: HTTPResponse.Status
    var body: Body
    var headers: HTTPFields = [:]

    struct Body: Encodable {
        var error: String
        var message: String
        var code: String?
        var details: [String: String]?
        var retryAfter: Int?
        var requestId: String?
    }

    /// Login with a wrong email or password (the document's own 401 for `/auth/login`).
    static let invalidCredentials = FleetError(status: .unauthorized,
                                               body: Body(error: "Invalid credentials", message: "Email or password incorrect"))

    /// A missing, malformed, expired or revoked access token.
    static func unauthorized(expired: Bool = false) -> FleetError {
        FleetError(status: .unauthorized, body: Body(error: "Unauthorized", message: "Token expired or invalid",
                                                     code: expired ? "TOKEN_EXPIRED" : "TOKEN_INVALID"))
    }

    static func validation(_ details: [String: String]) -> FleetError {
        FleetError(status: .badRequest, body: Body(error: "ValidationError", message: "Invalid request parameters", details: details))
    }

    static func rateLimited(retryAfter: Int) -> FleetError {
        FleetError(status: .tooManyRequests, body: Body(error: "RateLimitError", message: "Too many requests", retryAfter: retryAfter),
                   headers: [.retryAfter: String(retryAfter)])
    }

    static let notConfigured = FleetError(status: .serviceUnavailable, body: Body(
        error: "ServiceUnavailable", message: "Accounts are not configured on this server"), headers: [.retryAfter: "60"])

    static func unavailable() -> FleetError {
        FleetError(status: .serviceUnavailable, body: Body(error: "ServiceUnavailable", message: "The database is unavailable; retry shortly"),
                   headers: [.retryAfter: "5"])
    }

    static func internalError(requestID: String) -> FleetError {
        FleetError(status: .internalServerError, body: Body(error: "InternalServerError",
                                                            message: "An error occurred processing your request", requestId: requestID))
    }

    var response: Response {
        var response = (try? JSONResponse.encode(body, status: status)) ?? Response(status: status)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }
}
