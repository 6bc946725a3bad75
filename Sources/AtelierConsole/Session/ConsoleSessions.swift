import AtelierAPI
import AtelierAccounts
import Crypto
import Foundation
import Hummingbird

/// Operators' sign-in for the console. Signing in with email and password issues an ordinary
/// access token (the accounts' JWT: an hour by default, revoked by sign-out like any other) and
/// keeps it in a cookie the page's scripts cannot read (`HttpOnly`), that no other site's page
/// or link sends (`SameSite=Strict`), limited to `/admin`, `Secure` when the public URL is https
/// or the request came through a trusted proxy that the client reached over https
/// (`ATELIER_TRUSTED_PROXIES` and its `X-Forwarded-Proto`; anyone else's header is not believed).
///
/// Every form that changes something carries a CSRF token: an HMAC of the session's token id
/// under a key derived from `ATELIER_JWT_SECRET`. It is the same for every page of one session
/// and worthless for any other session; a form without it, or with another, changes nothing.
struct ConsoleSessions: Sendable {
    static let cookieName = "atelier_console"
    static let cookiePath = "/admin"

    let accounts: UserAccounts?
    private let csrfKey: SymmetricKey
    let secureCookies: Bool
    let proxies: TrustedProxies

    init(accounts: UserAccounts?, secret: String?, secureCookies: Bool, proxies: TrustedProxies = TrustedProxies()) {
        self.accounts = accounts
        self.csrfKey = SymmetricKey(data: SHA256.hash(data: Data(("atelier console csrf:" + (secret ?? "")).utf8)))
        self.secureCookies = secureCookies
        self.proxies = proxies
    }

    /// Whether this request's cookies are `Secure`.
    func secure(_ request: Request, _ context: APIRequestContext) -> Bool {
        secureCookies || proxies.saysHTTPS(peer: context.peerAddress, forwardedProto: request.headers[.xForwardedProto])
    }

    /// The operator whose cookie this request carries: a valid, unrevoked access token of an
    /// enabled user. nil when there is none (the role is the caller's question).
    func signedIn(_ request: Request) async -> Principal? {
        guard let accounts, let token = request.cookies[Self.cookieName]?.value, !token.isEmpty,
              let claims = try? await accounts.verify(token, audiences: [.console]) else { return nil }
        return UserAccounts.principal(claims, tokenHash: AccessTokenKey.make(claims))
    }

    /// Checks an email and password; only a user with the admin role gets a session.
    func signIn(email: String, password: String) async throws -> (token: String, claims: AccessClaims) {
        guard let accounts else { throw ConsoleError.notConfigured }
        let user: User
        do {
            user = try await accounts.users.authenticate(email: email, password: password)
        } catch AccountError.invalidCredentials {
            throw ConsoleError.invalidCredentials
        }
        guard user.role == Self.role else { throw ConsoleError.notAdmin }
        return try await accounts.issue(for: user, audience: .console)
    }

    /// Sign-out: the token stops working everywhere (the accounts' revocation).
    func signOut(_ principal: Principal, request: Request) async throws {
        guard let accounts, let token = request.cookies[Self.cookieName]?.value,
              let claims = try? await accounts.verify(token, audiences: [.console]), AccessTokenKey.make(claims) == principal.tokenHash else { return }
        try await accounts.revoke(claims)
    }

    /// The CSRF token of `principal`'s session.
    func csrfToken(for principal: Principal) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((principal.tokenHash ?? "").utf8), using: csrfKey)
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Throws ``ConsoleError/forgedForm`` unless `presented` is this session's token.
    func checkCSRF(_ presented: String?, for principal: Principal) throws {
        let expected = Data(csrfToken(for: principal).utf8)
        guard let presented, principal.tokenHash != nil,
              Self.constantTimeEqual(Data(presented.utf8), expected) else { throw ConsoleError.forgedForm }
    }

    func cookie(token: String, lifetime: Int, secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: token, maxAge: lifetime, path: Self.cookiePath,
               secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clearedCookie(secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: Self.cookiePath, secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The role the console needs.
    static let role = "admin"

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
