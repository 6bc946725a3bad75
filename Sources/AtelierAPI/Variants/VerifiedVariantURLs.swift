import AtelierImaging
import AtelierStorage
import Foundation
import Synchronization

/// Variant URLs this process has already verified, by their exact path and query and the
/// request's `Accept`. A phone scrolling a grid asks for the same URLs again and again, and the
/// same bytes always get the same verdict: a repeat skips the parsing, the HMAC and the hashing
/// and only has its expiry checked again. Only valid URLs are kept; a key longer than 1 KiB (an
/// odd `Accept`) is never kept, and the whole memo is emptied when it holds `capacity` URLs, so
/// it stays under a few MiB whatever clients send.
final class VerifiedVariantURLs: Sendable {
    /// What a verified URL asks for.
    struct Resolved: Sendable {
        var source: BlobKey
        var cached: BlobKey
        var request: VariantRequest
        var expires: Int
        var variesByAccept: Bool
    }

    static let maxKeyBytes = 1024
    private let entries = Mutex([String: Resolved]())
    let capacity: Int

    init(capacity: Int = 8192) {
        self.capacity = max(1, capacity)
    }

    static func key(uri: String, accept: String?) -> String {
        uri + "\n" + (accept ?? "")
    }

    enum Lookup {
        /// Not verified here yet (or forgotten): check the URL in full.
        case unknown
        /// Verified once, and past its expiry now.
        case expired
        case valid(Resolved)
    }

    /// What this process knows of the URL `key` names, its expiry checked against `now`.
    func lookup(_ key: String, now: Date = Date()) -> Lookup {
        guard let resolved = entries.withLock({ $0[key] }) else { return .unknown }
        return Double(resolved.expires) >= now.timeIntervalSince1970 ? .valid(resolved) : .expired
    }

    func store(_ key: String, _ resolved: Resolved) {
        guard key.utf8.count <= Self.maxKeyBytes else { return }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = resolved
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
