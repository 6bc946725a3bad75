import Hummingbird

/// Requires a credential on the routes it guards and puts the caller in `context.principal`.
/// Under open access a request without one is `anonymous`; a wrong credential is still a 401.
/// Until a credential is proven, the request is charged to its client address
/// (``Authenticator``): past that budget → 429 before any database lookup.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let secret = Authenticator.credential(xAppToken: request.headers[.xAppToken],
                                                 authorization: request.headers[.authorization]) {
            switch try await authenticator.authenticate(secret, from: context.clientAddress) {
            case .principal(let principal): context.principal = principal
            case .invalid: throw APIError.unauthenticated("the token is not valid or has been revoked")
            case .throttled(let decision): throw RateLimitMiddleware.refusal(decision, of: "unauthenticated requests from one address")
            }
        } else if authenticator.openAccess {
            context.principal = .anonymous
        } else {
            throw APIError.unauthenticated()
        }
        return try await next(request, context)
    }
}
