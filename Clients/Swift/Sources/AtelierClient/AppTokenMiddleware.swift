import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the app's token (`atelier tokens create`) as `X-App-Token` on every request.
struct AppTokenMiddleware: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[HTTPField.Name("X-App-Token")!] = token
        return try await next(request, body, baseURL)
    }
}
