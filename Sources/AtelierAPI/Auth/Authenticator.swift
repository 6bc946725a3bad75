import AtelierQueue
import Foundation
import Synchronization

/// Turns a presented credential into a ``Principal``. Valid tokens are cached for a minute;
/// a revocation empties the cache at once (the `atelier_tokens` notification), and so does a
/// reconnect of the listener, when notifications may have been missed.
public final class Authenticator: Sendable {
    private let tokens: AppTokens
    private let notifier: Notifier
    public let openAccess: Bool
    private let ttl: Duration
    private let cache = Mutex<[String: (principal: Principal, expires: ContinuousClock.Instant)]>([:])

    public init(tokens: AppTokens, notifier: Notifier, openAccess: Bool, ttl: Duration = .seconds(60)) {
        self.tokens = tokens
        self.notifier = notifier
        self.openAccess = openAccess
        self.ttl = ttl
        notifier.observe { [weak self] notification in
            if notification.channel == Notifier.Channel.tokens || notification == .reconnected {
                self?.cache.withLock { $0.removeAll() }
            }
        }
    }

    /// The principal for `secret`, or nil when it is not a live token.
    public func principal(for secret: String) async throws -> Principal? {
        let hash = AppTokens.hash(secret)
        let now = ContinuousClock.now
        if notifier.isListening, let hit = cache.withLock({ $0[hash] }), hit.expires > now {
            return hit.principal
        }
        guard let token = try await tokens.authenticate(secret) else { return nil }
        let principal = Principal(owner: token.owner, name: token.name)
        if notifier.isListening {
            cache.withLock { entries in
                if entries.count > 10_000 { entries.removeAll() }
                entries[hash] = (principal, now + ttl)
            }
        }
        return principal
    }

    /// The credential in `X-App-Token` or `Authorization: Bearer …`, if any.
    static func credential(xAppToken: String?, authorization: String?) -> String? {
        if let token = xAppToken?.trimmingCharacters(in: .whitespaces), !token.isEmpty { return token }
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
