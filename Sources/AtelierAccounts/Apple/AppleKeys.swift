import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore

/// Apple's public keys for identity tokens (a JWKS), from `ATELIER_APPLE_JWKS`: a URL (Apple's
/// by default) or a file. Fetched on first use and kept; fetched again when a token names a key
/// (`kid`) not among them — Apple rotates its keys — but at most once per ``minimumRefetch``, so
/// tokens with made-up key ids cannot make us hammer the source.
///
/// One fetch at a time: sign-ins that need the keys while a fetch is under way wait for that
/// fetch (before, the actor's reentrancy let each start its own 10-second fetch while Apple was
/// slow or down). A fetch that fails is not tried again for ``failureBackoff``: meanwhile
/// sign-ins are refused at once (or use the keys already held).
package actor AppleKeys {
    package enum Source: Sendable, Equatable {
        case url(String)
        case file(String)

        /// A URL for `http(s)://…`, otherwise a file path.
        package init(_ text: String) {
            self = text.hasPrefix("https://") || text.hasPrefix("http://") ? .url(text) : .file(text)
        }
    }

    package static let appleURL = "https://appleid.apple.com/auth/keys"

    let source: Source
    let minimumRefetch: Duration
    let failureBackoff: Duration
    private var keys: JWTKeyCollection?
    private var kids: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private var failedAt: ContinuousClock.Instant?
    private var inFlight: Task<(JWTKeyCollection, Set<String>), any Error>?
    /// Fetches started, and callers that waited for another's (tests, metrics).
    package private(set) var fetches = 0
    package private(set) var joined = 0

    package init(source: Source = .url(AppleKeys.appleURL), minimumRefetch: Duration = .seconds(60),
                failureBackoff: Duration = .seconds(5)) {
        (self.source, self.minimumRefetch, self.failureBackoff) = (source, minimumRefetch, failureBackoff)
    }

    /// The keys to verify a token whose header names `kid`.
    func collection(for kid: String?) async throws -> JWTKeyCollection {
        if let keys, let kid, kids.contains(kid) { return keys }
        if let keys, let fetchedAt, ContinuousClock.now - fetchedAt < minimumRefetch { return keys }
        if let failedAt, ContinuousClock.now - failedAt < failureBackoff {
            if let keys { return keys }
            throw AccountError.configuration("Apple's keys could not be read a moment ago")
        }
        if let inFlight {
            joined += 1
            return try await inFlight.value.0
        }
        fetchedAt = .now
        fetches += 1
        let source = self.source
        let fetch = Task { try await Self.load(source) }
        inFlight = fetch
        defer { inFlight = nil }
        do {
            let (collection, ids) = try await fetch.value
            (keys, kids, failedAt) = (collection, ids, nil)
            return collection
        } catch {
            failedAt = .now
            if let keys { return keys }
            throw error
        }
    }

    private static func load(_ source: Source) async throws -> (JWTKeyCollection, Set<String>) {
        let json = try await fetch(source)
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json.utf8))
        let collection = try await JWTKeyCollection().add(jwks: jwks)
        return (collection, Set(jwks.keys.compactMap { $0.keyIdentifier?.string }))
    }

    private static func fetch(_ source: Source) async throws -> String {
        switch source {
        case .file(let path):
            return try String(contentsOfFile: path, encoding: .utf8)
        case .url(let url):
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw AccountError.configuration("Apple's keys answered HTTP \(response.status.code)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            return String(buffer: body)
        }
    }
}
