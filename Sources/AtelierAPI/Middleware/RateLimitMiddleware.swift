import HTTPTypes
import Hummingbird

/// Applies the ``RateLimiter`` per proven identity — a user, whichever of their access tokens
/// came (``Principal/limitKey``), or an app token — so it runs after ``AuthMiddleware`` on
/// authenticated routes; per client address where there is none (package routes, open access).
/// It reports in `X-RateLimit-Limit/Remaining/Reset`; over the limit → 429 with `Retry-After`.
/// A credential that was only presented, not proven, is never a key: rotating made-up tokens
/// would otherwise give every request a fresh bucket — and so would a user's fresh token.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let key = context.principal?.limitKey ?? "ip:" + context.clientAddress
        let decision = limiter.take(key)
        let fields = Self.headers(decision)
        guard decision.allowed else { throw Self.refusal(decision, of: "requests") }
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

    static func headers(_ decision: RateLimiter.Decision) -> HTTPFields {
        var fields: HTTPFields = [
            .xRateLimitLimit: String(decision.limit),
            .xRateLimitRemaining: String(decision.remaining),
            .xRateLimitReset: String(decision.resetAt),
        ]
        if !decision.allowed { fields[.retryAfter] = String(decision.retryAfter) }
        return fields
    }

    /// The 429 for a refused `decision`; `what` names what is limited.
    static func refusal(_ decision: RateLimiter.Decision, of what: String) -> APIError {
        APIError(.tooManyRequests, "RateLimitError",
                 "too many \(what): the limit is \(decision.limit) per minute; retry in \(decision.retryAfter) s",
                 details: ["limit_per_minute": String(decision.limit), "retry_after_seconds": String(decision.retryAfter)],
                 headers: headers(decision))
    }
}
