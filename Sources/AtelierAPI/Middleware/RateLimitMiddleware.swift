import HTTPTypes
import Hummingbird

/// Applies the ``RateLimiter`` per credential (or per IP address without one) and reports it in
/// `X-RateLimit-Limit/Remaining/Reset`; over the limit → 429 with `Retry-After`.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let key = Authenticator.credential(xAppToken: request.headers[.xAppToken],
                                           authorization: request.headers[.authorization])
            .map { "token:" + $0 } ?? "ip:" + context.clientAddress
        let decision = limiter.take(key)
        var fields: HTTPFields = [
            .xRateLimitLimit: String(decision.limit),
            .xRateLimitRemaining: String(decision.remaining),
            .xRateLimitReset: String(decision.resetAt),
        ]
        guard decision.allowed else {
            fields[.retryAfter] = String(decision.retryAfter)
            throw APIError(.tooManyRequests, "RateLimitError",
                           "too many requests: the limit is \(decision.limit) per minute; retry in \(decision.retryAfter) s",
                           details: ["limit_per_minute": String(decision.limit), "retry_after_seconds": String(decision.retryAfter)],
                           headers: fields)
        }
        do {
            var response = try await next(request, context)
            for field in fields { response.headers[field.name] = field.value }
            return response
        } catch let error as APIError {
            throw error.adding(fields)
        } catch {
            throw ErrorMapping.apiError(for: error, requestID: context.requestID, logger: context.logger).adding(fields)
        }
    }
}
