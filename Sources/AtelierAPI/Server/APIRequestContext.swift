import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// Who is calling: the owner every job they create or read belongs to.
package struct Principal: Sendable, Equatable {
    package var owner: String
    /// The token's name, or `anonymous` under open access.
    package var name: String
    /// The SHA-256 of the credential that proved it (nil under open access): the key of its
    /// rate limit, and how its open streams are found when it is revoked.
    package var tokenHash: String?
    /// Set when the credential is a user's access token: who, and in which role.
    package var userID: UUID?
    package var role: String?
    /// No credential: open access, or an app listed in `ATELIER_ANONYMOUS_APPS`. Everyone without
    /// one shares the owner, so such a caller may create jobs and read one by its id (the id is
    /// the secret: 74 random bits), but not list, cancel or delete the owner's jobs.
    package var isAnonymous = false

    package init(owner: String, name: String, tokenHash: String? = nil, userID: UUID? = nil, role: String? = nil) {
        self.owner = owner
        self.name = name
        self.tokenHash = tokenHash
        self.userID = userID
        self.role = role
    }

    /// The key of this caller's rate-limit budget: the user for a user's access token (however
    /// many tokens they hold: signing in again or refreshing mints a new one, never a new budget),
    /// else the credential (an app token); nil without one.
    package var limitKey: String? {
        if let userID { return Self.userLimitKey(userID) }
        return tokenHash.map { "token:" + $0 }
    }

    /// The budget of a user, wherever their requests come in (the core API, the apps' routes).
    package static func userLimitKey(_ user: UUID) -> String { "user:" + user.uuidString.lowercased() }

    package static let anonymous: Principal = {
        var principal = Principal(owner: "anonymous", name: "anonymous")
        principal.isAnonymous = true
        return principal
    }()

    /// A request without a credential to an app listed in `ATELIER_ANONYMOUS_APPS`: an owner of
    /// its own per app (`anonymous:mondrian`), so one app's anonymous callers share neither jobs,
    /// search results, quotas nor stream limits with another app's, nor with open access's
    /// `anonymous`.
    package static func anonymous(app: String) -> Principal {
        var principal = Principal(owner: "anonymous:" + app, name: "anonymous")
        principal.isAnonymous = true
        return principal
    }
}

/// Per-request state shared by the middleware and the routes.
package struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?
    /// Echoed from `X-Request-ID` or generated; set by ``RequestLogMiddleware``.
    package var requestID: String = ""
    /// Set by ``AuthMiddleware``; nil on package routes.
    package var principal: Principal? {
        didSet { shared.owner.withLock { $0 = principal?.owner } }
    }
    /// What inner middleware learns that outer middleware logs (contexts are values: an inner
    /// copy's changes do not flow back out).
    let shared = SharedRequestState()

    /// The address a trusted proxy forwarded for (``TrustedProxies``), set by
    /// ``RequestLogMiddleware`` before anything reads ``clientAddress``; nil: none.
    package var forwardedClient: String?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The address the connection comes from: a proxy's, behind one. Worked out when asked
    /// (most requests never ask: an authenticated poll is limited by its credential).
    package var peerAddress: String {
        remoteAddress?.ipAddress ?? "unknown"
    }

    /// The client's IP address, for per-address limits and access logs: the peer, or behind a
    /// proxy in `ATELIER_TRUSTED_PROXIES` the address it forwarded for.
    package var clientAddress: String {
        forwardedClient ?? peerAddress
    }

    /// Bodies are collected explicitly with the configured limit (see ``JobSubmission``).
    package var maxUploadSize: Int { 64 * 1024 }

    /// The authenticated caller; routes behind ``AuthMiddleware`` always have one.
    package func requirePrincipal() throws -> Principal {
        guard let principal else { throw APIError.unauthenticated() }
        return principal
    }

    /// The caller, who must have proven a credential: what the owner's jobs are as a whole
    /// (listing them, cancelling or deleting one) is not for anonymous callers, who all share
    /// their owner. 401 naming `what` otherwise.
    package func requireCredential(for what: String) throws -> Principal {
        let principal = try requirePrincipal()
        guard !principal.isAnonymous else {
            throw APIError.unauthenticated("\(what) needs a credential (X-App-Token or Authorization: Bearer): "
                                           + "without one a job can be created and read by its id only")
        }
        return principal
    }
}

/// Per-request state shared by every copy of the context.
final class SharedRequestState: Sendable {
    let owner = Mutex<String?>(nil)
}
