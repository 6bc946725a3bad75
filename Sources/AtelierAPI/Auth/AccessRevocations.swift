import AtelierAccounts
import AtelierQueue
import Foundation
import Synchronization

/// What this API process knows of access tokens revoked before they expire (logout) and of
/// disabled users, so a JWT check costs no database round trip. Filled from the database on
/// first use and after every listener reconnect; kept current by the `atelier_tokens`
/// notifications the revocation and the disabling raise (`jti:<id>`, `user:<id>`, triggers of
/// the apps' migration line). While the listener is down nothing in memory can be trusted, so each check asks the
/// database.
///
/// A `user:` notification (or a reconnect) that arrives while a reload is reading makes that
/// reload's answer stale: the disabling may have committed after its read. A generation count
/// tells: the reload marks memory loaded only if no such notification came meanwhile; otherwise
/// the next check reads again. (Before, the older list won and a disabled user stayed signed in.)
/// Revoked token ids are kept until their token would have expired, and pruned as they pass, so
/// the set holds at most one token lifetime of logouts.
///
/// A reload is single-flight: the checks that find memory stale while one runs wait for it
/// instead of each reading every revoked token id again (after a listener reconnect, every
/// concurrent request did, each a full read of the table).
package final class AccessRevocations: Sendable {
    private struct State {
        var loaded = false
        /// Bumped by every notification that makes memory stale.
        var generation: UInt64 = 0
        var tokens: [UUID: Date] = [:]
        var disabledUsers = Set<UUID>()
        var nextPrune = Date.distantPast
        /// The reload under way, which checks that find memory stale wait for.
        var reloading: Task<Void, any Error>?
        /// Reloads started, and checks that waited for one another started (tests).
        var reloads = 0
        var joined = 0
    }

    private let revoked: RevokedAccessTokens
    private let users: UserStore
    private let notifier: Notifier
    /// How long an access token lives: a revocation heard of by notification is kept this long.
    private let lifetime: Duration
    private let state = Mutex(State())
    /// Runs between a reload's reads and its update of memory (tests hold a reload there).
    private let afterReading: (@Sendable () async -> Void)?

    package init(revoked: RevokedAccessTokens, users: UserStore, notifier: Notifier, lifetime: Duration,
                 afterReading: (@Sendable () async -> Void)? = nil) {
        (self.revoked, self.users, self.notifier, self.lifetime) = (revoked, users, notifier, lifetime)
        self.afterReading = afterReading
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected { self.state.withLock { Self.stale(&$0) } }
            guard notification.channel == Notifier.Channel.tokens else { return }
            let payload = notification.payload
            if payload.hasPrefix("jti:"), let jti = UUID(uuidString: String(payload.dropFirst(4))) {
                // Its expiry is not in the payload: keep it a token's whole lifetime.
                let until = Date().addingTimeInterval(Double(self.lifetime.components.seconds))
                self.state.withLock { state in
                    state.tokens[jti] = until
                    Self.prune(&state)
                }
            } else if payload.hasPrefix("user:") {
                self.state.withLock { Self.stale(&$0) }
            }
        }
    }

    private static func stale(_ state: inout State) {
        state.loaded = false
        state.generation &+= 1
    }

    /// Drops revocations of tokens that have expired anyway, at most once a minute.
    private static func prune(_ state: inout State, now: Date = Date()) {
        guard now >= state.nextPrune else { return }
        state.tokens = state.tokens.filter { $0.value > now }
        state.nextPrune = now.addingTimeInterval(60)
    }

    /// Revoked token ids held in memory now (tests).
    package var revokedTokenCount: Int { state.withLock { $0.tokens.count } }

    /// Reloads started so far, and checks that waited for one already under way (tests).
    package var reloadCounts: (started: Int, joined: Int) { state.withLock { ($0.reloads, $0.joined) } }

    /// Whether the token with these claims may no longer be used.
    package func isRevoked(_ claims: AccessClaims) async throws -> Bool {
        guard let jti = claims.tokenID, let user = claims.userID else { return true }
        guard notifier.isListening else { return try await isRevokedInDatabase(jti: jti, user: user) }
        if !state.withLock({ $0.loaded }) {
            try await reloadOnce()
            // Made stale while it read: this check asks the database; the next reloads.
            if !state.withLock({ $0.loaded }) { return try await isRevokedInDatabase(jti: jti, user: user) }
        }
        return state.withLock { $0.tokens[jti] != nil || $0.disabledUsers.contains(user) }
    }

    private func isRevokedInDatabase(jti: UUID, user: UUID) async throws -> Bool {
        if try await revoked.isRevoked(jti) { return true }
        return try await users.find(id: user)?.disabledAt != nil
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
        state.withLock { state in
            state.tokens[jti] = claims.expiresAt
            Self.prune(&state)
        }
    }

    /// The reload under way, or a new one; either way, awaited.
    private func reloadOnce() async throws {
        let reload = state.withLock { state -> Task<Void, any Error> in
            if let running = state.reloading {
                state.joined += 1
                return running
            }
            state.reloads += 1
            let task = Task {
                defer { self.state.withLock { $0.reloading = nil } }
                try await self.reload()
            }
            state.reloading = task
            return task
        }
        try await reload.value
    }

    private func reload() async throws {
        let generation = state.withLock { $0.generation }
        let tokens = try await revoked.live()
        let disabled = try await users.disabledIDs()
        await afterReading?()
        state.withLock { state in
            let now = Date()
            // Keep what arrived while loading; drop what has expired.
            state.tokens = state.tokens.merging(tokens) { $1 }.filter { $0.value > now }
            state.nextPrune = now.addingTimeInterval(60)
            state.disabledUsers = disabled
            // A user was disabled (or enabled) while this read: its list may predate that.
            state.loaded = state.generation == generation
        }
    }
}
