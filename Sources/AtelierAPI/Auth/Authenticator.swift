import AtelierAccounts
import AtelierQueue
import Foundation
import Synchronization

/// Decides who a request is (``identify(_:app:from:)``, the one place every guarded route asks):
/// its credential proven, or — without one — the app's anonymous owner when the app is listed in
/// `ATELIER_ANONYMOUS_APPS` (charged to the client address, `ATELIER_ANONYMOUS_RATE_LIMIT`),
/// `anonymous` under open access, or nobody.
///
/// A presented credential becomes a ``Principal`` without letting unknown credentials cost
/// the database anything a client can multiply:
///
/// - a valid token is cached for `ttl` (a minute): its requests cost no lookup;
/// - every request whose credential is not already known good is charged to its client
///   address (``RateLimiter``, `ATELIER_UNAUTHENTICATED_RATE_LIMIT`) before any lookup, so
///   rotating random tokens is limited like any other unauthenticated traffic;
/// - a credential the database did not know is remembered as a miss for `missTTL`.
///
/// A revocation (the `atelier_tokens` notification) or a listener reconnect empties both caches
/// and moves a generation on: a lookup that was in flight across it does not store its answer,
/// so a token revoked while its lookup runs is never cached as good. Nothing is cached while
/// the listener is down.
package final class Authenticator: Sendable {
    package enum Outcome: Sendable {
        case principal(Principal)
        case invalid
        /// The client address spent its budget of unverified (or anonymous) requests.
        case throttled(RateLimiter.Decision)
        /// No credential, and the route may not be used without one.
        case missing
    }

    private struct State {
        var valid: [String: (principal: Principal, expires: ContinuousClock.Instant)] = [:]
        var misses: [String: ContinuousClock.Instant] = [:]
        var generation: UInt64 = 0
    }

    private let tokens: AppTokens
    /// Users' access tokens (JWTs), when accounts are configured.
    package let accounts: UserAccounts?
    private let notifier: Notifier
    package let openAccess: Bool
    /// `ATELIER_ANONYMOUS_APPS`: apps whose routes serve requests without a credential.
    package let anonymousApps: Set<String>
    private let anonymousLimiter: RateLimiter?
    private let ttl: Duration
    private let missTTL: Duration
    private let addressLimiter: RateLimiter?
    private let state = Mutex(State())
    static let cacheCapacity = 10_000

    package init(tokens: AppTokens, notifier: Notifier, openAccess: Bool, ttl: Duration = .seconds(60),
                missTTL: Duration = .seconds(10), addressLimiter: RateLimiter? = nil, accounts: UserAccounts? = nil,
                anonymousApps: Set<String> = [], anonymousLimiter: RateLimiter? = nil) {
        self.tokens = tokens
        self.anonymousApps = anonymousApps
        self.anonymousLimiter = anonymousLimiter
        self.accounts = accounts
        self.notifier = notifier
        self.openAccess = openAccess
        self.ttl = ttl
        self.missTTL = missTTL
        self.addressLimiter = addressLimiter
        notifier.observe { [weak self] notification in
            // App tokens only: a user's logout or disabling (jti:, user:) caches nothing here.
            if notification == .reconnected
                || (notification.channel == Notifier.Channel.tokens && TokenNotice(payload: notification.payload) == .appTokens) {
                self?.forgetAll()
            }
        }
    }

    /// Who a request from `address` to one of `app`'s routes (nil: a core route) is, given the
    /// credential it presented (``credential(xAppToken:authorization:)``). A credential is always
    /// checked — a wrong one is `.invalid` even on a listed app. Without one: the app's anonymous
    /// owner if the app is listed (past the per-address anonymous limit, `.throttled`), else
    /// `anonymous` under open access, else `.missing`.
    package func identify(_ credential: String?, app: String?, from address: String) async throws -> Outcome {
        if let credential { return try await authenticate(credential, from: address) }
        if let app, anonymousApps.contains(app) {
            if let anonymousLimiter {
                let decision = anonymousLimiter.take("anonymous:" + address)
                guard decision.allowed else { return .throttled(decision) }
            }
            return .principal(.anonymous(app: app))
        }
        return openAccess ? .principal(.anonymous) : .missing
    }

    /// The principal for `secret` presented from `address`.
    package func authenticate(_ secret: String, from address: String) async throws -> Outcome {
        // A user's access token: its signature and expiry are checked here, its revocation in
        // memory (``AccessRevocations``) — no lookup a forged token could multiply.
        if let accounts, AccessTokens.looksLikeJWT(secret) {
            do {
                // The apps' users on the core API; a console session never leaves the console.
                let claims = try await accounts.verify(secret, audiences: AccessAudience.coreAPI)
                return .principal(UserAccounts.principal(claims, tokenHash: AccessTokenKey.make(claims)))
            } catch is AccountError {
                return .invalid
            }
        }
        let hash = AppTokens.hash(secret)
        let now = ContinuousClock.now
        let listening = notifier.isListening
        if listening, let hit = state.withLock({ $0.valid[hash] }), hit.expires > now {
            return .principal(hit.principal)
        }
        if let addressLimiter {
            let decision = addressLimiter.take("unverified:" + address)
            guard decision.allowed else { return .throttled(decision) }
        }
        if listening, let miss = state.withLock({ $0.misses[hash] }), miss > now {
            return .invalid
        }
        let generation = beginLookup()
        let token = try await tokens.authenticate(secret)
        let principal = token.map { Principal(owner: $0.owner, name: $0.name, tokenHash: hash) }
        finishLookup(hash, principal, startedAt: generation, now: now)
        return principal.map(Outcome.principal) ?? .invalid
    }

    /// Call before asking the database; pass the answer to ``finishLookup(_:_:startedAt:now:)``.
    func beginLookup() -> UInt64 {
        state.withLock { $0.generation }
    }

    /// Remembers a lookup's answer — unless a revocation or reconnect happened since it began
    /// (`startedAt`), when the answer may already be stale, or the listener is down.
    func finishLookup(_ hash: String, _ principal: Principal?, startedAt generation: UInt64, now: ContinuousClock.Instant = .now) {
        guard notifier.isListening else { return }
        state.withLock { state in
            // A revocation or reconnect while the lookup ran: the answer may already be stale.
            guard state.generation == generation else { return }
            if let principal {
                if state.valid.count >= Self.cacheCapacity { state.valid = state.valid.filter { $0.value.expires > now } }
                if state.valid.count >= Self.cacheCapacity { state.valid.removeAll() }
                state.valid[hash] = (principal, now + ttl)
            } else {
                if state.misses.count >= Self.cacheCapacity { state.misses = state.misses.filter { $0.value > now } }
                if state.misses.count >= Self.cacheCapacity { state.misses.removeAll() }
                state.misses[hash] = now + missTTL
            }
        }
    }

    /// Entries held now (valid, misses): for tests that check the caches stay bounded.
    var cachedCounts: (valid: Int, misses: Int) {
        state.withLock { ($0.valid.count, $0.misses.count) }
    }

    /// Called on a token notification and on a listener reconnect.
    /// App tokens answered from memory now (tests, metrics).
    package var cachedTokenCount: Int { state.withLock { $0.valid.count } }

    func forgetAll() {
        state.withLock { state in
            state.generation += 1
            state.valid.removeAll()
            state.misses.removeAll()
        }
    }

    /// The credential in `X-App-Token` or `Authorization: Bearer …`, if any: an app token or a
    /// user's access token.
    package static func credential(xAppToken: String?, authorization: String?) -> String? {
        if let header = xAppToken {
            let token = HeaderText.trimmed(header)
            if !token.isEmpty { return token.count == header.count ? header : String(token) }
        }
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = HeaderText.trimmed(parts[1])
        return token.isEmpty ? nil : String(token)
    }
}
