import AtelierDatabase
import Crypto
import Foundation
import Logging
import PostgresNIO

/// Refresh tokens: 256 random bits shown once, stored as SHA-256 hashes (`refresh_tokens`,
/// of the apps' migration line), valid for ``lifetime`` (30 days), and rotated on every use. Each belongs to
/// a family — the chain of tokens from one sign-in. Presenting a token that was already used
/// means two parties hold it (a stolen copy, or a replay): the whole family is revoked, and both
/// must sign in again.
///
/// Except within ``reuseWindow`` (30 s) of its use: a client whose answer was lost retries with
/// the token it still holds, and gets the same next token again — a token's successor is an
/// HMAC of it under a server key (``successor(of:)``), so it can be answered again without
/// being stored in the clear — as long as that successor is unspent. Before, the retry ended the
/// family and logged the user out.
package struct RefreshTokens: Sendable {
    package let client: PostgresClient
    package let lifetime: Duration
    package let reuseWindow: Duration
    /// No family outlives this from its sign-in (`signed_in_at`), however often
    /// it is rotated: its tokens expire then, and the access tokens issued with them too.
    package let sessionMaxAge: Duration
    let logger: Logger
    private let successorKey: SymmetricKey

    package static let prefix = "atr_"

    /// `secret`: the server's (`ATELIER_JWT_SECRET`); successors are derived from it.
    package init(database: Database, secret: String, lifetime: Duration = .seconds(30 * 24 * 3600),
                reuseWindow: Duration = .seconds(30), sessionMaxAge: Duration = .seconds(30 * 24 * 3600), logger: Logger) {
        (self.client, self.lifetime, self.reuseWindow, self.logger) = (database.client, lifetime, reuseWindow, logger)
        self.sessionMaxAge = sessionMaxAge
        successorKey = SymmetricKey(data: SHA256.hash(data: Data(("atelier refresh successor\u{0}" + secret).utf8)))
    }

    /// The token that follows `token` in its family: the same every time it is asked.
    func successor(of token: String) -> String {
        Self.prefix + PasswordHasher.base64url(Data(HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: successorKey)))
    }

    /// What a rotation gives: the user, the next token, when it expires, and when its family
    /// signed in (the session's start, for the access token issued with it).
    package struct Rotated: Sendable {
        package var userID: UUID
        package var token: String
        package var expiresAt: Date
        package var signedInAt: Date
    }

    /// A new token for `userID`, in a new family (a sign-in).
    package func issue(for userID: UUID) async throws -> (token: String, expiresAt: Date) {
        let token = Self.make()
        let rows = try await client.query("""
            INSERT INTO refresh_tokens (token_hash, user_id, family, signed_in_at, expires_at)
            VALUES (\(SecretDigest.hex(token)), \(userID), \(UUID()), now(),
                    now() + least(\(lifetime.components.seconds), \(sessionMaxAge.components.seconds)) * interval '1 second')
            RETURNING expires_at
            """, logger: logger)
        for try await expiresAt in rows.decode(Date.self) { return (token, expiresAt) }
        throw AccountError.invalidToken("the refresh token was not stored")
    }

    /// Spends `token` and returns its user and the next token of its family. A token that is
    /// unknown, expired, revoked, or whose user is disabled → ``AccountError/invalidToken(_:)``;
    /// one already spent also revokes its family.
    package func rotate(_ token: String) async throws -> Rotated {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 128 else { throw AccountError.invalidToken("Invalid refresh token") }
        let hash = SecretDigest.hex(token)
        let next = successor(of: token)
        // One statement: the spend and the insert happen together or not at all, and of two
        // concurrent uses only one finds the token unspent.
        let rows = try await client.query("""
            WITH spent AS (
                UPDATE refresh_tokens r SET used_at = now()
                  FROM users u
                 WHERE r.token_hash = \(hash) AND r.used_at IS NULL AND r.revoked_at IS NULL
                   AND r.expires_at > now() AND u.id = r.user_id AND u.disabled_at IS NULL
                   AND r.signed_in_at + \(sessionMaxAge.components.seconds) * interval '1 second' > now()
                RETURNING r.user_id, r.family, r.signed_in_at
            ), fresh AS (
                INSERT INTO refresh_tokens (token_hash, user_id, family, signed_in_at, expires_at)
                SELECT \(SecretDigest.hex(next)), user_id, family, signed_in_at,
                       least(now() + \(lifetime.components.seconds) * interval '1 second',
                             signed_in_at + \(sessionMaxAge.components.seconds) * interval '1 second')
                  FROM spent
                RETURNING user_id, expires_at, signed_in_at
            )
            SELECT user_id, expires_at, signed_in_at FROM fresh
            """, logger: logger)
        for try await (userID, expiresAt, signedInAt) in rows.decode((UUID, Date, Date).self) {
            return Rotated(userID: userID, token: next, expiresAt: expiresAt, signedInAt: signedInAt)
        }
        // Spent moments ago, and what it was spent for is unspent: a retry of a lost answer.
        if reuseWindow > .zero {
            let retried = try await client.query("""
                SELECT r.user_id, n.expires_at, n.signed_in_at
                  FROM refresh_tokens r
                  JOIN refresh_tokens n ON n.token_hash = \(SecretDigest.hex(next)) AND n.family = r.family
                  JOIN users u ON u.id = r.user_id
                 WHERE r.token_hash = \(hash) AND r.used_at > now() - \(reuseWindow.components.seconds) * interval '1 second'
                   AND r.revoked_at IS NULL AND n.used_at IS NULL AND n.revoked_at IS NULL AND n.expires_at > now()
                   AND u.disabled_at IS NULL
                """, logger: logger)
            for try await (userID, expiresAt, signedInAt) in retried.decode((UUID, Date, Date).self) {
                return Rotated(userID: userID, token: next, expiresAt: expiresAt, signedInAt: signedInAt)
            }
        }
        // Not spendable. Spent before: someone else has it too — end the family.
        let revoked = try await client.query("""
            UPDATE refresh_tokens SET revoked_at = now()
             WHERE family = (SELECT family FROM refresh_tokens WHERE token_hash = \(hash) AND used_at IS NOT NULL)
               AND revoked_at IS NULL
            RETURNING 1
            """, logger: logger)
        var count = 0
        for try await _ in revoked { count += 1 }
        if count > 0 {
            logger.warning("a spent refresh token was presented again: its family is revoked", metadata: ["tokens": "\(count)"])
        }
        throw AccountError.invalidToken("Invalid refresh token")
    }

    /// Revokes every refresh token of a user (logout everywhere, a disabled user).
    package static func revokeAll(of userID: UUID, database: Database, logger: Logger) async throws {
        _ = try await database.client.query("UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = \(userID) AND revoked_at IS NULL",
                                   logger: logger)
    }

    static func make() -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
        return prefix + PasswordHasher.base64url(bytes)
    }
}
