import Foundation
import HTTPTypes
import OpenAPIRuntime

/// How a call answered `429 Too Many Requests` or `503 Service Unavailable` is tried again: after
/// the server's `Retry-After` (seconds), at most ``maxRetries`` times and ``maxWait`` in all, and
/// only when the request's body can be sent again. Past that, the answer is the call's error.
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    public var maxWait: Duration
    /// The wait when the answer names none.
    public var defaultWait: Duration

    public init(maxRetries: Int = 3, maxWait: Duration = .seconds(30), defaultWait: Duration = .seconds(1)) {
        self.maxRetries = maxRetries
        self.maxWait = maxWait
        self.defaultWait = defaultWait
    }

    /// Never again: the first answer is the call's.
    public static let never = RetryPolicy(maxRetries: 0)
}

/// Applies a ``RetryPolicy`` beneath the error middleware, so a retried call's last answer is
/// the one reported.
struct RetryAfterMiddleware: ClientMiddleware {
    let policy: RetryPolicy
    /// Waits; a test may pass one that records instead of sleeping.
    let sleep: @Sendable (Duration) async throws -> Void

    init(policy: RetryPolicy, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.policy = policy
        self.sleep = sleep
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var waited = Duration.zero
        var retries = 0
        while true {
            let (response, responseBody) = try await next(request, body, baseURL)
            let code = response.status.code
            guard code == 429 || code == 503, retries < policy.maxRetries,
                  body == nil || body?.iterationBehavior == .multiple else { return (response, responseBody) }
            let wait = Self.retryAfter(response) ?? policy.defaultWait
            guard waited + wait <= policy.maxWait else { return (response, responseBody) }
            try await sleep(wait)
            waited += wait
            retries += 1
        }
    }

    /// `Retry-After` in seconds (the server sends no dates).
    static func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let text = response.headerFields[.retryAfter], let seconds = Int(text.trimmingCharacters(in: .whitespaces)),
              seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
