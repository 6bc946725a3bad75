import Hummingbird

/// Requires a credential on the routes it guards and puts the caller in `context.principal`.
/// Under open access a request without one is `anonymous`; a wrong credential is still a 401.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let secret = Authenticator.credential(xAppToken: request.headers[.xAppToken],
                                                 authorization: request.headers[.authorization]) {
            guard let principal = try await authenticator.principal(for: secret) else {
                throw APIError.unauthenticated("the token is not valid or has been revoked")
            }
            context.principal = principal
        } else if authenticator.openAccess {
            context.principal = .anonymous
        } else {
            throw APIError.unauthenticated()
        }
        return try await next(request, context)
    }
}
