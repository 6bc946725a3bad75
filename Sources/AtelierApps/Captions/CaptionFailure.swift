import AtelierAPI
import Foundation
import HTTPTypes

/// The caption API's own error body (docs/clients.md §1): `{success: false, error: {code, message,
/// timestamp}}`, with the app's five codes. Every failure of that route becomes one of these.
struct CaptionFailure: Error {
    enum Code: String {
        case auth = "AUTH_001", validation = "VAL_001", provider = "AI_001", method = "METHOD_001", rateLimit = "RATE_001"

        var status: HTTPResponse.Status {
            switch self {
            case .auth: .unauthorized
            case .validation: .badRequest
            case .provider: .internalServerError
            case .method: .methodNotAllowed
            case .rateLimit: .tooManyRequests
            }
        }
    }

    var code: Code
    var message: String
    var headers: HTTPFields = [:]

    init(_ code: Code, _ message: String, headers: HTTPFields = [:]) {
        (self.code, self.message, self.headers) = (code, message, headers)
    }

    struct Body: Encodable {
        struct Detail: Encodable { var code: String; var message: String; var timestamp: String }
        var success = false
        var error: Detail
    }

    var body: Body { Body(error: .init(code: code.rawValue, message: message, timestamp: CaptionTimestamp.now())) }
}

/// ISO-8601 with milliseconds, UTC: `2024-01-15T10:30:45.123Z`.
enum CaptionTimestamp {
    static func now() -> String { string(Date()) }

    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
