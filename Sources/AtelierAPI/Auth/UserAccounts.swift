import AtelierAccounts
import AtelierLanes
import AtelierQueue
import Foundation
import Logging

/// The accounts an API process serves with: users, access tokens (signed with
/// `ATELIER_JWT_SECRET`), refresh tokens, and what is revoked. Absent when the secret is unset:
/// then no access token is accepted and the sign-in routes answer 503.
package struct UserAccounts: Sendable {
    package let users: UserStore
    package let access: AccessTokens
    package let refresh: RefreshTokens
    package let revoked: RevokedAccessTokens
    package let revocations: AccessRevocations
    /// Sign in with Apple (nil without `ATELIER_APPLE_AUDIENCES`), and the identity tokens it spent.
    package let apple: AppleSignIn?
    package let appleUses: AppleIdentityUses

    /// No session outlives this from its sign-in, however often it is refreshed
    /// (`ATELIER_SESSION_MAX_AGE`, 30 days).
    package let sessionMaxAge: Duration

    package init(secret: String, lifetime: Duration, queue: JobQueue, notifier: Notifier,
                 passwords: WorkLane = WorkLane(name: "password checks", concurrency: 2, queueLimit: 32),
                 apple: AppleSignIn? = nil, refreshReuseWindow: Duration = .seconds(30),
                 sessionMaxAge: Duration = .seconds(30 * 24 * 3600)) throws(AccountError) {
        self.apple = apple
        self.sessionMaxAge = sessionMaxAge
        access = try AccessTokens(secret: secret, lifetime: lifetime)
        users = UserStore(database: queue.database, logger: queue.logger, passwords: passwords)
        refresh = RefreshTokens(database: queue.database, secret: secret, reuseWindow: refreshReuseWindow,
                                sessionMaxAge: sessionMaxAge, logger: queue.logger)
        revoked = RevokedAccessTokens(database: queue.database, logger: queue.logger)
        revocations = AccessRevocations(revoked: revoked, users: users, notifier: notifier, lifetime: lifetime)
        appleUses = AppleIdentityUses(database: queue.database, logger: queue.logger)
    }

    /// The claims of an access token that we signed, has not expired, was not revoked (logout)
    /// and whose user is not disabled; otherwise ``AccountError/invalidToken(_:)``.
    package func verify(_ token: String, audiences: Set<AccessAudience>) async throws -> AccessClaims {
        let claims = try await access.verify(token, audiences: audiences)
        guard try await !revocations.isRevoked(claims) else { throw AccountError.invalidToken("Token expired or invalid") }
        return claims
    }

    /// Logout: the token stops working in every API process (the revocation's notification).
    /// True when this call revoked it (false: it was already), so a refresh spends a token once.
    @discardableResult
    package func revoke(_ claims: AccessClaims) async throws -> Bool {
        let spent = try await revoked.revoke(claims)
        revocations.remember(claims)
        return spent
    }

    /// A new access token for `user` of app `audience`: at a sign-in (`session` nil) a new
    /// session begins; at a refresh it continues `session`'s, ending at its maximum age.
    package func issue(for user: User, audience: AccessAudience, continuing session: Date? = nil) async throws
        -> (token: String, claims: AccessClaims) {
        try await access.issue(for: user, audience: audience, signedInAt: session, sessionMaxAge: sessionMaxAge)
    }

    /// The principal of a user's access token: jobs and other owned things belong to the user.
    package static func principal(_ claims: AccessClaims, tokenHash: String) -> Principal {
        let owner = User.ownerPrefix + claims.sub.value
        return Principal(owner: owner, name: owner, tokenHash: tokenHash, userID: claims.userID, role: claims.role)
    }
}
