import AtelierAPI
import Hummingbird

/// `GET /admin/login`: the sign-in form; `POST /admin/login {email, password, next}`: an admin
/// gets the session cookie and goes on to `next` (a console path only) or the overview; a wrong
/// email or password is 401, a user without the admin role 403, too many attempts 429 (the same
/// per-address and per-email budget as every sign-in route). `POST /admin/logout` ends the session.
struct SignInPage: Sendable {
    let sessions: ConsoleSessions
    let limits: LoginLimits
    let lifetime: Int

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard sessions.accounts != nil else { throw ConsoleError.notConfigured }
        if let principal = await sessions.signedIn(request), principal.role == ConsoleSessions.role {
            return ConsolePage.redirect(to: Self.safeNext(request.uri.queryParameters["next"].map(String.init)))
        }
        return form(next: request.uri.queryParameters["next"].map(String.init), email: "", error: nil)
    }

    func signIn(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        var request = request
        let form = try await FormBody.read(&request)
        let email = form["email"] ?? "", password = form["password"] ?? ""
        let next = form["next"]
        guard !email.isEmpty, !password.isEmpty else {
            return self.form(next: next, email: email, error: ConsoleError.badRequest("Enter your email and your password."))
        }
        if let retryAfter = limits.retryAfter(address: context.clientAddress, email: email) {
            throw ConsoleError.rateLimited(retryAfter: retryAfter)
        }
        do {
            let (token, _) = try await sessions.signIn(email: email, password: password)
            var response = ConsolePage.redirect(to: Self.safeNext(next))
            response.setCookie(sessions.cookie(token: token, lifetime: lifetime, secure: sessions.secure(request, context)))
            return response
        } catch let error as ConsoleError where error.status == .unauthorized {
            return self.form(next: next, email: email, error: error)
        }
    }

    func signOut(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        try await sessions.signOut(try context.requirePrincipal(), request: request)
        var response = ConsolePage.redirect(to: "/admin/login")
        response.setCookie(sessions.clearedCookie(secure: sessions.secure(request, context)))
        return response
    }

    private func form(next: String?, email: String, error: ConsoleError?) -> Response {
        var body = ""
        if let error { body += "<p class=\"error\" role=\"alert\" id=\"signin-error\">\(h(error.message))</p>" }
        body += """
            <form method="post" action="/admin/login" class="signin">
            <input type="hidden" name="next" value="\(h(Self.safeNext(next)))">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="\(h(email))">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit" id="signin">Sign in</button>
            </form>
            <p class="muted">For users with the admin role. An operator makes one with <code>atelier users create --email … --role admin</code>.</p>
            """
        return ConsolePage.render(title: "Sign in", section: nil, csrf: nil, body: body, status: error?.status ?? .ok)
    }

    /// Only a path inside the console: never another site (`//host`, `https://…`, `/\\host`).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/admin"), !next.contains("\\"), !next.contains("//"),
              next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return "/admin" }
        return next
    }
}
