import AtelierAPI
import Hummingbird

/// In front of every console route but sign-in and the assets: the request must come from a
/// signed-in operator (the session cookie, ``ConsoleSessions``) with the admin role, and a form
/// that changes something must carry the session's CSRF token. A page asked for without a
/// session leads to the sign-in page (and back); anything else without one is refused.
struct ConsoleAuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let sessions: ConsoleSessions

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        var context = context
        guard sessions.accounts != nil else { return ConsolePage.error(ConsoleError.notConfigured, request: request, context: context) }
        guard let principal = await sessions.signedIn(request) else {
            if request.method == .get || request.method == .head {
                let back = request.uri.description
                return ConsolePage.redirect(to: "/admin/login" + HTML.query([("next", back == "/admin" ? nil : back)]))
            }
            return ConsolePage.error(ConsoleError.notSignedIn, request: request, context: context)
        }
        guard principal.role == ConsoleSessions.role else {
            return ConsolePage.error(ConsoleError.notAdmin, request: request, context: context)
        }
        context.principal = principal
        if request.method == .post {
            do {
                let form = try await FormBody.read(&request)
                try sessions.checkCSRF(form["csrf"], for: principal)
            } catch let error as ConsoleError {
                return ConsolePage.error(error, request: request, context: context)
            }
        }
        return try await next(request, context)
    }
}
