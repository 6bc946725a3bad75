import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `If-None-Match` exactly as the server gave the ETag. The generated header parameter
/// percent-encodes it (`"…"` becomes `%22…%22`), which no longer matches, so a poll would always
/// get the whole job back; ``Atelier/job(_:ifNoneMatch:)`` sets the header here instead.
struct ConditionalRequestMiddleware: ClientMiddleware {
    @TaskLocal static var ifNoneMatch: String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let etag = Self.ifNoneMatch else { return try await next(request, body, baseURL) }
        var request = request
        request.headerFields[.ifNoneMatch] = etag
        return try await next(request, body, baseURL)
    }
}
