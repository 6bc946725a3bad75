import Crypto
import Foundation
import Logging
import PostgresNIO

/// Refresh tokens: 256 random bits shown once, stored as SHA-256 hashes (`refresh_tokens`,
/// migration 0010), valid for ``lifetime`` (30 days), and rotated on every use. Each belongs to
/// a family — the chain of tokens from one sign-in. Presenting a token that was already used
/// means two parties hold it (a stolen copy, or a replay): the whole family is revoked, and both
/// must sign in again.
public struct RefreshTokens: Sendable {
    public let client: PostgresClient
    public let lifetime: Duration
    let logger: Logger

    public static let prefix = "atr_"

    public init(client: PostgresClient, lifetime: Duration = .seconds(30 * 24 * 3600), logger: Logger) {
        (self.client, self.lifetime, self.logger) = (client, lifetime, logger)
    }

    /// A new token for `userID`, in a new family (a sign-in).
    public func issue(for userID: UUID) async throws -> (token: String, expiresAt: Date) {
        let token = Self.make()
        let rows = try await client.query("""
            INSERT INTO refresh_tokens (token_hash, user_id, family, expires_at)
            VALUES (\(Self.hash(token)), \(userID), \(UUID()), now() + \(lifetime.components.seconds) * interval '1 second')
            RETURNING expires_at
            """, logger: logger)
        for try await expiresAt in rows.decode(Date.self) { return (token, expiresAt) }
        throw AccountError.invalidToken("the refresh token was not stored")
    }

    /// Spends `token` and returns its user and the next token of its family. A token that is
    /// unknown, expired, revoked, or whose user is disabled → ``AccountError/invalidToken(_:)``;
    /// one already spent also revokes its family.
    public func rotate(_ token: String) async throws -> (userID: UUID, token: String, expiresAt: Date) {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 128 else { throw AccountError.invalidToken("Invalid refresh token") }
        let hash = Self.hash(token)
        let next = Self.make()
        // One statement: the spend and the insert happen together or not at all, and of two
        // concurrent uses only one finds the token unspent.
        let rows = try await client.query("""
            WITH spent AS (
                UPDATE refresh_tokens r SET used_at = now()
                  FROM users u
                 WHERE r.token_hash = \(hash) AND r.used_at IS NULL AND r.revoked_at IS NULL
                   AND r.expires_at > now() AND u.id = r.user_id AND u.disabled_at IS NULL
                RETURNING r.user_id, r.family
            ), fresh AS (
                INSERT INTO refresh_tokens (token_hash, user_id, family, expires_at)
                SELECT \(Self.hash(next)), user_id, family, now() + \(lifetime.components.seconds) * interval '1 second' FROM spent
                RETURNING user_id, expires_at
            )
            SELECT user_id, expires_at FROM fresh
            """, logger: logger)
        for try await (userID, expiresAt) in rows.decode((UUID, Date).self) { return (userID, next, expiresAt) }
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
    public func revokeAll(of userID: UUID) async throws {
        _ = try await client.query("UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = \(userID) AND revoked_at IS NULL",
                                   logger: logger)
    }

    static func make() -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
        return prefix + PasswordHasher.base64url(bytes)
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
