import AtelierQueue
import Logging

/// Removes what sign-ins kept only for a while (`atelier_purge_sign_ins()`, migration 0015):
/// refresh tokens that expired or were revoked a day ago, spent Apple identity tokens that
/// expired. Before, `refresh_tokens` only grew. The function knows the accounts' tables; the
/// worker knows its name.
struct SignInPurger: Sendable {
    let queue: JobQueue

    /// Rows removed.
    func purge() async throws -> Int {
        var removed = 0
        for try await count in try await queue.client.query("SELECT atelier_purge_sign_ins()", logger: queue.logger).decode(Int64.self) {
            removed = Int(count)
        }
        return removed
    }
}
