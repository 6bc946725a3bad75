import AtelierAPI
import AtelierAccounts
import Foundation
import Hummingbird

/// The Learn Assistant's sign-in (docs/clients.md §7), exactly as its document prints it:
///
/// - `POST /api/ios/auth/apple {identityToken, user}` → `{user: {id, email, createdAt},
///   accessToken, refreshToken, expiresAt}` (epoch seconds of the access token's expiry); the
///   user is made on the first sign-in. No token → 400; an invalid one → 401.
/// - `POST /api/ios/auth/refresh {refreshToken}` → `{user: {id, email}, accessToken,
///   refreshToken, expiresAt}`; the refresh token presented is spent (rotation), and one spent
///   before ends its family. Missing → 400; invalid, expired or spent → 401.
///
/// Both spend the client address's sign-in budget (`ATELIER_LOGIN_RATE_LIMIT`, shared with the
/// password sign-ins) before any work — a made-up refresh token used to cost two writes, free —
/// and an Apple account's sign-ins also spend its own (`ATELIER_LOGIN_RATE_LIMIT_PER_EMAIL`).
/// Over either → 429 with `Retry-After`.
struct LearnAuthController: Sendable {
    let routes: LearnRoutes
    let limits: LoginLimits

    static let base = "api/ios/auth"

    func register(on router: Router<APIRequestContext>) {
        router.post(RouterPath(Self.base + "/apple")) { request, context in await LearnRoutes.answer(context) { try await apple(request, context) } }
        router.post(RouterPath(Self.base + "/refresh")) { request, context in await LearnRoutes.answer(context) { try await refresh(request, context) } }
    }

    struct AppleRequest: Decodable { var identityToken: String?; var user: String? }
    struct RefreshRequest: Decodable { var refreshToken: String? }
    struct SignedIn: Encodable {
        struct UserPart: Encodable { var id: String; var email: String; var createdAt: String? }
        var user: UserPart
        var accessToken: String
        var refreshToken: String
        var expiresAt: Int
    }

    func apple(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let body = try await decode(AppleRequest.self, request)
        guard let token = body?.identityToken, !token.isEmpty else { throw LearnError.badRequest("Identity token is required") }
        let accounts = try routes.configured()
        try spend(limits.retryAfter(address: context.clientAddress))
        guard let apple = accounts.apple else {
            throw LearnError(status: .serviceUnavailable, message: "Sign in with Apple is not configured on this server")
        }
        let identity: AppleSignIn.Identity
        do {
            identity = try await apple.verify(token)
        } catch {
            throw LearnError.unauthorized("Invalid identity token")
        }
        // The app sends Apple's user identifier beside the token: it must be the token's subject.
        if let user = body?.user, !user.isEmpty, user != identity.subject { throw LearnError.unauthorized("Invalid identity token") }
        try spend(limits.retryAfter(identity: "apple:" + identity.subject))
        // One sign-in per identity token: a replay within its lifetime mints no session.
        guard try await accounts.appleUses.spend(identity) else {
            throw LearnError.unauthorized("Invalid identity token")
        }
        let user: User
        do {
            user = try await accounts.users.signIn(apple: identity)
        } catch let error as AccountError {
            throw LearnError.unauthorized(error.message)
        }
        return try await signedIn(user, accounts: accounts, refresh: try await accounts.refresh.issue(for: user.id).token,
                                  session: nil, withCreatedAt: true)
    }

    func refresh(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let body = try await decode(RefreshRequest.self, request)
        guard let token = body?.refreshToken, !token.isEmpty else { throw LearnError.badRequest("Refresh token is required") }
        let accounts = try routes.configured()
        try spend(limits.retryAfter(address: context.clientAddress))
        let rotated: RefreshTokens.Rotated
        do {
            rotated = try await accounts.refresh.rotate(token)
        } catch is AccountError {
            throw LearnError.unauthorized("Invalid refresh token")
        }
        guard let user = try await accounts.users.find(id: rotated.userID), user.disabledAt == nil else {
            throw LearnError.unauthorized("Invalid refresh token")
        }
        return try await signedIn(user, accounts: accounts, refresh: rotated.token, session: rotated.signedInAt, withCreatedAt: false)
    }

    /// `session`: when the refresh token's family signed in (nil: now, a sign-in).
    private func signedIn(_ user: User, accounts: UserAccounts, refresh: String, session: Date?, withCreatedAt: Bool) async throws -> Response {
        let (access, claims): (String, AccessClaims)
        do {
            (access, claims) = try await accounts.issue(for: user, audience: .learn, continuing: session)
        } catch is AccountError {
            throw LearnError.unauthorized("Invalid refresh token")
        }
        return try JSONResponse.encode(SignedIn(
            user: .init(id: user.id.uuidString.lowercased(), email: user.email ?? "",
                        createdAt: withCreatedAt ? LearnRoutes.timestamp(user.createdAt) : nil),
            accessToken: access, refreshToken: refresh, expiresAt: Int(claims.expiresAt.timeIntervalSince1970)))
    }

    /// 429 when a budget said to wait.
    private func spend(_ retryAfter: Int?) throws {
        guard let retryAfter else { return }
        throw LearnError(status: .tooManyRequests, message: "Too many sign-ins; retry in \(retryAfter) s", retryAfter: retryAfter)
    }

    /// The JSON body, or nil when it is not one (the route then says which field is missing).
    private func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T? {
        guard let buffer = try? await request.body.collect(upTo: 64 * 1024) else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(buffer: buffer))
    }
}
