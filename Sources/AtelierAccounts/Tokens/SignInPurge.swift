import AtelierDatabase
import Logging
import PostgresNIO

/// Removes what sign-ins keep only for a while: refresh tokens that expired or were revoked a day
/// ago, and spent Apple identity tokens that expired (`atelier_purge_sign_ins()`), so
/// `refresh_tokens` does not only grow. `atelier work` registers it as a maintenance chore, run
/// by the maintenance leader every 30 s.
package struct SignInPurge: Sendable {
    let client: PostgresClient
    let logger: Logger

    package init(database: Database, logger: Logger) {
        self.client = database.client
        self.logger = logger
    }

    /// Rows removed.
    package func run() async throws -> Int {
        var removed = 0
        for try await count in try await client.query("SELECT atelier_purge_sign_ins()", logger: logger).decode(Int64.self) {
            removed = Int(count)
        }
        return removed
    }
}
