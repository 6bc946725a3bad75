import AtelierAccounts
import AtelierQueue
import Foundation
import Synchronization

/// What this API process knows of access tokens revoked before they expire (logout) and of
/// disabled users, so a JWT check costs no database round trip. Filled from the database on
/// first use and after every listener reconnect; kept current by the `atelier_tokens`
/// notifications the revocation and the disabling raise (`jti:<id>`, `user:<id>`, migration
/// 0010). While the listener is down nothing in memory can be trusted, so each check asks the
/// database.
package final class AccessRevocations: Sendable {
    private struct State {
        var loaded = false
        var tokens: [UUID: Date] = [:]
        var disabledUsers = Set<UUID>()
    }

    private let revoked: RevokedAccessTokens
    private let users: UserStore
    private let notifier: Notifier
    /// How long an access token lives: a revocation heard of by notification is kept this long.
    private let lifetime: Duration
    private let state = Mutex(State())

    package init(revoked: RevokedAccessTokens, users: UserStore, notifier: Notifier, lifetime: Duration) {
        (self.revoked, self.users, self.notifier, self.lifetime) = (revoked, users, notifier, lifetime)
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected { self.state.withLock { $0.loaded = false } }
            guard notification.channel == Notifier.Channel.tokens else { return }
            let payload = notification.payload
            if payload.hasPrefix("jti:"), let jti = UUID(uuidString: String(payload.dropFirst(4))) {
                // Its expiry is not in the payload: keep it a token's whole lifetime.
                let until = Date().addingTimeInterval(Double(self.lifetime.components.seconds))
                self.state.withLock { $0.tokens[jti] = until }
            } else if payload.hasPrefix("user:") {
                self.state.withLock { $0.loaded = false }
            }
        }
    }

    /// Whether the token with these claims may no longer be used.
    package func isRevoked(_ claims: AccessClaims) async throws -> Bool {
        guard let jti = claims.tokenID, let user = claims.userID else { return true }
        guard notifier.isListening else {
            if try await revoked.isRevoked(jti) { return true }
            return try await users.find(id: user)?.disabledAt != nil
        }
        if !state.withLock({ $0.loaded }) { try await reload() }
        return state.withLock { $0.tokens[jti] != nil || $0.disabledUsers.contains(user) }
    }

    /// Whether token `tokenID` of user `userID` is revoked, from memory only (nil when memory
    /// cannot be trusted: not loaded yet, or the listener is down).
    package func isRevokedInMemory(tokenID: UUID, userID: UUID) -> Bool? {
        guard notifier.isListening else { return nil }
        return state.withLock { state in
            state.loaded ? state.tokens[tokenID] != nil || state.disabledUsers.contains(userID) : nil
        }
    }

    /// Remembers a revocation made by this process before its notification comes back.
    package func remember(_ claims: AccessClaims) {
        guard let jti = claims.tokenID else { return }
        state.withLock { $0.tokens[jti] = claims.expiresAt }
    }

    private func reload() async throws {
        let tokens = try await revoked.live()
        let disabled = try await users.disabledIDs()
        state.withLock { state in
            let now = Date()
            // Keep what arrived while loading; drop what has expired.
            state.tokens = state.tokens.merging(tokens) { $1 }.filter { $0.value > now }
            state.disabledUsers = disabled
            state.loaded = true
        }
    }
}
