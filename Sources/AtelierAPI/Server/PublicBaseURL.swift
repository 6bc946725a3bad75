import Foundation
import Hummingbird
import Synchronization

/// The base of every absolute URL the API hands out, decided per request here and nowhere else
/// (``value(for:)``): the request's `Host` when it is listed in `ATELIER_TRUSTED_HOSTS`
/// (``TrustedHosts``: a phone on the LAN gets URLs on the name and port it used), otherwise the
/// configured base — `ATELIER_PUBLIC_URL` when set, else the first listen address, filled in with
/// the real port once the server is bound (`:0` picks a free port, as tests and benchmarks do).
/// A base built on a trusted `Host` takes its scheme and path from `ATELIER_PUBLIC_URL`, `http`
/// and none without it. An unlisted or malformed `Host` is never written into an answer.
package final class PublicBaseURL: Sendable {
    private let storage: Mutex<String>
    private let trusted: TrustedHosts
    /// Scheme and path prefix of a base built on a trusted `Host` (`http`, ``).
    private let scheme: String
    private let path: String

    init(_ configured: String, publicURL: String? = nil, trusted: TrustedHosts = TrustedHosts()) {
        storage = Mutex(configured)
        self.trusted = trusted
        let url = publicURL.flatMap { URLComponents(string: $0) }
        scheme = url?.scheme?.lowercased() ?? "http"
        var path = url?.percentEncodedPath ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    /// The configured base (no request: logs, start-up messages).
    package var configured: String { storage.withLock { $0 } }

    /// The base for the answer to `request`.
    package func value(for request: Request) -> String {
        value(host: request.head.authority)
    }

    /// The base for a request whose `Host` is `host`.
    package func value(host: String?) -> String {
        guard let authority = trusted.match(host) else { return configured }
        return "\(scheme)://\(authority)\(path)"
    }

    func set(_ value: String) {
        storage.withLock { $0 = value }
    }
}
