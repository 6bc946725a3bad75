import Hummingbird

/// Requires a credential on the routes it guards and puts the caller in `context.principal`.
/// Who the caller is, is ``Authenticator/identify(_:app:from:)``'s decision: on the routes of an
/// app (`app`) listed in `ATELIER_ANONYMOUS_APPS`, and everywhere under open access, a request
/// without a credential is served anonymously; a wrong credential is always a 401. Until a
/// credential is proven, the request is charged to its client address (``Authenticator``): past
/// that budget → 429 before any database lookup.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: Authenticator
    /// The app whose routes this guards (``APIApp/anonymousName``); nil for the core API.
    var app: String? = nil

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let credential = Authenticator.credential(xAppToken: request.headers[.xAppToken],
                                                  authorization: request.headers[.authorization])
        switch try await authenticator.identify(credential, app: app, from: context.clientAddress) {
        case .principal(let principal): context.principal = principal
        case .invalid: throw APIError.unauthenticated("the token is not valid or has been revoked")
        case .throttled(let decision):
            throw RateLimitMiddleware.refusal(decision, of: credential == nil ? "anonymous requests from one address"
                                                                            : "unauthenticated requests from one address")
        case .missing: throw APIError.unauthenticated()
        }
        return try await next(request, context)
    }
}
