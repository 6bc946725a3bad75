import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

/// Access tokens revoked before they expire (`revoked_access_tokens`): logout
/// writes the token's `jti` here, kept until the token would have expired anyway. The insert
/// notifies `atelier_tokens` with `jti:<id>`, so every API process refuses it at once.
package struct RevokedAccessTokens: Sendable {
    package let client: PostgresClient
    let logger: Logger

    package init(database: Database, logger: Logger) {
        (self.client, self.logger) = (database.client, logger)
    }

    /// Revokes the token; true when this call did (false: it was revoked already). One
    /// statement, so of concurrent refreshes of one token exactly one spends it.
    @discardableResult
    package func revoke(_ claims: AccessClaims) async throws -> Bool {
        guard let jti = claims.tokenID else { return false }
        // Tokens that have expired need no revocation any more: each revocation clears them (by
        // the expiry index), so the table holds at most an access token's
        // lifetime of logouts.
        let rows = try await client.query("""
            WITH expired AS (DELETE FROM revoked_access_tokens WHERE expires_at < now() - interval '1 minute')
            INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (\(jti), \(claims.expiresAt))
            ON CONFLICT (jti) DO NOTHING
            RETURNING 1
            """, logger: logger)
        var spent = false
        for try await _ in rows { spent = true }
        return spent
    }

    /// Revoked tokens that have not expired: what an API process loads when it starts or its
    /// listener reconnects.
    package func live() async throws -> [UUID: Date] {
        var revoked: [UUID: Date] = [:]
        let rows = try await client.query("SELECT jti, expires_at FROM revoked_access_tokens WHERE expires_at > now()", logger: logger)
        for try await (jti, expiresAt) in rows.decode((UUID, Date).self) { revoked[jti] = expiresAt }
        return revoked
    }

    package func isRevoked(_ jti: UUID) async throws -> Bool {
        for try await _ in try await client.query("SELECT 1 FROM revoked_access_tokens WHERE jti = \(jti)", logger: logger) {
            return true
        }
        return false
    }
}
