import AtelierAPI
import AtelierAccounts
import Foundation
import HTTPTypes
import Hummingbird

/// The fleet app's sign-in routes (docs/clients.md §6), exactly as its document prints them:
///
/// - `POST /api/auth/login {email, password}` → `{token, user: {id, email, role}, expiresIn}`;
///   a wrong email or password → 401 `{error: "Invalid credentials", message}` — the same answer,
///   after the same work, whichever it was; limited per client address and per email (429).
/// - `GET /api/auth/me` (Bearer) → `{id, email, name, role, permissions}`.
/// - `POST /api/auth/refresh` (Bearer, still valid) → `{token, expiresIn}`; the old token stops working.
/// - `POST /api/auth/logout` (Bearer) → 204; the token stops working in every API process.
struct FleetAuthController: Sendable {
    let accounts: UserAccounts?
    let limits: LoginLimits
    /// The per-user budget of every authenticated route (`ATELIER_RATE_LIMIT`): `me`, `refresh`
    /// and `logout` spend the user's, whichever of their tokens came.
    let limiter: RateLimiter?

    static let base = "api/auth"

    func register(on router: Router<APIRequestContext>) {
        router.post(RouterPath(Self.base + "/login")) { request, context in await answer(context) { try await login(request, context) } }
        router.get(RouterPath(Self.base + "/me")) { request, context in await answer(context) { try await me(request, context) } }
        router.post(RouterPath(Self.base + "/refresh")) { request, context in await answer(context) { try await refresh(request, context) } }
        router.post(RouterPath(Self.base + "/logout")) { request, context in await answer(context) { try await logout(request, context) } }
    }

    struct LoginRequest: Decodable { var email: String?; var password: String? }
    struct LoginAnswer: Encodable {
        struct UserPart: Encodable { var id: String; var email: String; var role: String }
        var token: String
        var user: UserPart
        var expiresIn: Int
    }
    struct MeAnswer: Encodable { var id: String; var email: String; var name: String; var role: String; var permissions: [String] }
    struct RefreshAnswer: Encodable { var token: String; var expiresIn: Int }

    func login(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let accounts = try configured()
        let body = try? await request.body.collect(upTo: 16 * 1024)
        guard let body, let credentials = try? JSONDecoder().decode(LoginRequest.self, from: Data(buffer: body)) else {
            throw FleetError.validation(["body": "a JSON object {email, password} is required"])
        }
        var missing: [String: String] = [:]
        if (credentials.email ?? "").isEmpty { missing["email"] = "Email required" }
        if (credentials.password ?? "").isEmpty { missing["password"] = "Password required" }
        guard missing.isEmpty, let email = credentials.email, let password = credentials.password else { throw FleetError.validation(missing) }
        if let retryAfter = limits.retryAfter(address: context.clientAddress, email: email) {
            throw FleetError.rateLimited(retryAfter: retryAfter)
        }
        let user: User
        do {
            user = try await accounts.users.authenticate(email: email, password: password)
        } catch AccountError.invalidCredentials {
            throw FleetError.invalidCredentials
        }
        let (token, claims) = try await accounts.issue(for: user, audience: .fleet)
        return try JSONResponse.encode(LoginAnswer(
            token: token, user: .init(id: user.id.uuidString.lowercased(), email: user.email ?? "", role: user.role),
            expiresIn: Self.seconds(until: claims.expiresAt)))
    }

    func me(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (accounts, claims) = try await bearer(request, context)
        guard let id = claims.userID, let user = try await accounts.users.find(id: id), user.disabledAt == nil else {
            throw FleetError.unauthorized()
        }
        return try JSONResponse.encode(MeAnswer(id: user.id.uuidString.lowercased(), email: user.email ?? "", name: user.name,
                                                role: user.role, permissions: user.permissions))
    }

    func refresh(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (accounts, claims) = try await bearer(request, context)
        guard let id = claims.userID, let user = try await accounts.users.find(id: id), user.disabledAt == nil else {
            throw FleetError.unauthorized()
        }
        // One live token per renewal chain: the one renewed is spent first, in one statement, so
        // of concurrent refreshes of a token exactly one gets a new one (before, all did: the
        // chain forked). The new token continues the session: it ends at the session's maximum
        // age from the sign-in, and past it the refresh is refused (sign in again).
        guard try await accounts.revoke(claims) else { throw FleetError.unauthorized() }
        let fresh: (token: String, claims: AccessClaims)
        do {
            fresh = try await accounts.issue(for: user, audience: .fleet, continuing: claims.signedInAt)
        } catch is AccountError {
            throw FleetError.unauthorized(expired: true)
        }
        return try JSONResponse.encode(RefreshAnswer(token: fresh.token, expiresIn: Self.seconds(until: fresh.claims.expiresAt)))
    }

    func logout(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (accounts, claims) = try await bearer(request, context)
        try await accounts.revoke(claims)
        return Response(status: .noContent)
    }

    // MARK: Helpers

    private func configured() throws -> UserAccounts {
        guard let accounts else { throw FleetError.notConfigured }
        return accounts
    }

    /// The verified, unrevoked access token of `Authorization: Bearer …`, its user's budget
    /// spent; a missing or bad one spends the client address's sign-in budget (so guessing costs
    /// tries), then 401.
    private func bearer(_ request: Request, _ context: APIRequestContext) async throws -> (UserAccounts, AccessClaims) {
        let accounts = try configured()
        let token = Authenticator.credential(xAppToken: nil, authorization: request.headers[.authorization])
        var claims: AccessClaims?
        if let token {
            // The fleet app's own tokens only: a Learn or console token renews nothing here.
            do { claims = try await accounts.verify(token, audiences: [.fleet]) } catch is AccountError { claims = nil }
        }
        guard let claims else {
            if let retryAfter = limits.retryAfter(address: context.clientAddress) { throw FleetError.rateLimited(retryAfter: retryAfter) }
            throw FleetError.unauthorized(expired: token.map { AccessTokens.hasExpired($0) } ?? false)
        }
        if let limiter, let user = claims.userID {
            let decision = limiter.take(Principal.userLimitKey(user))
            guard decision.allowed else { throw FleetError.rateLimited(retryAfter: decision.retryAfter) }
        }
        return (accounts, claims)
    }

    static func seconds(until date: Date) -> Int {
        max(0, Int(date.timeIntervalSinceNow.rounded()))
    }

    /// Every failure as the fleet app's error body; anything unexpected is a 500 naming the request id.
    private func answer(_ context: APIRequestContext, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as FleetError {
            return error.response
        } catch {
            // What the core API would answer (it logs the details): a database outage stays a 503.
            let mapped = ErrorMapping.apiError(for: error, requestID: context.requestID, logger: context.logger)
            return mapped.status == .serviceUnavailable
                ? FleetError.unavailable().response : FleetError.internalError(requestID: context.requestID).response
        }
    }
}
