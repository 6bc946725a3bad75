import Hummingbird

/// Lets through only callers whose access token carries `role` (a user's role, e.g. `admin`);
/// runs after ``AuthMiddleware``. An app token has no role: it is an app's credential, not an
/// operator's. Anyone else → 403 `AuthorizationError` naming the role.
struct RoleMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let role: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.principal?.role == role else {
            var error = APIError.forbidden("this route needs a user with the \(role) role (sign in with POST /api/auth/login)")
            error.details = ["required_role": role]
            throw error
        }
        return try await next(request, context)
    }
}
