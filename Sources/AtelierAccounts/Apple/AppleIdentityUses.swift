import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

/// The Apple identity tokens already spent on a sign-in (`apple_identity_uses`), each
/// kept until it expires. An identity token is good for minutes and carries no nonce of ours,
/// so a replayed one would mint a new session each time; kept here, it is good for one sign-in. A token
/// is known by the SHA-256 of its signature's bytes (``AppleSignIn/Identity/signature``), not of
/// its text, which a client can spell about 32 ways that all verify.
package struct AppleIdentityUses: Sendable {
    let client: PostgresClient
    let logger: Logger

    package init(database: Database, logger: Logger) {
        (self.client, self.logger) = (database.client, logger)
    }

    /// True when the token `identity` came from had not been used before (it is now); false for
    /// a replay, in any spelling.
    package func spend(_ identity: AppleSignIn.Identity) async throws -> Bool {
        let rows = try await client.query("""
            INSERT INTO apple_identity_uses (token_hash, expires_at)
            VALUES (\(SecretDigest.hex(identity.signature)), \(identity.expiresAt))
            ON CONFLICT (token_hash) DO NOTHING
            RETURNING 1
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
