import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Turns every 4xx and 5xx answer into an ``AtelierError/server(status:error:message:field:requestID:retryAfter:)``
/// thrown from the call, read from the server's error body (`{"error", "message", "details",
/// "retryAfter", "requestId"}`, read up to 64 KiB) and its `X-Request-ID`, so an app handles
/// one error type whatever the operation.
struct ErrorMiddleware: ClientMiddleware {
    static let maxErrorBody = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        let requestID = response.headerFields[HTTPField.Name("X-Request-ID")!]
        var bytes = Data()
        if let responseBody {
            bytes = (try? await Data(collecting: responseBody, upTo: Self.maxErrorBody)) ?? Data()
        }
        struct Body: Decodable {
            var error: String
            var message: String
            var details: [String: String]?
            var retryAfter: Int?
            var requestId: String?
        }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: bytes) else {
            throw AtelierError.unexpected(status: response.status.code, requestID: requestID)
        }
        throw AtelierError.server(status: response.status.code, error: decoded.error, message: decoded.message,
                                  field: decoded.details?["field"], requestID: requestID ?? decoded.requestId,
                                  retryAfter: decoded.retryAfter ?? response.headerFields[.retryAfter].flatMap { Int($0) })
    }
}
