import Hummingbird

/// Lets through only callers whose access token carries `role` (a user's role, e.g. `admin`);
/// runs after ``AuthMiddleware``. A caller without a user's access token (an app token has no
/// role: it is an app's credential, not an operator's) → 401 `AuthenticationError`, as the
/// document's security (`accessToken`, a bearer JWT) says the credential is missing; a signed-in
/// user without the role → 403 `AuthorizationError` naming it.
struct RoleMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let role: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.principal?.userID != nil else {
            throw APIError.unauthenticated("this route needs a user's access token (Authorization: Bearer, from POST /api/auth/login) "
                                           + "with the \(role) role; an app token has no role")
        }
        guard context.principal?.role == role else {
            var error = APIError.forbidden("this route needs a user with the \(role) role (sign in with POST /api/auth/login)")
            error.details = ["required_role": role]
            throw error
        }
        return try await next(request, context)
    }
}
