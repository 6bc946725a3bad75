import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore

/// Apple's public keys for identity tokens (a JWKS), from `ATELIER_APPLE_JWKS`: a URL (Apple's
/// by default) or a file. Fetched on first use and kept; fetched again when a token names a key
/// (`kid`) not among them — Apple rotates its keys — but at most once per ``minimumRefetch``, so
/// tokens with made-up key ids cannot make us hammer the source.
public actor AppleKeys {
    public enum Source: Sendable, Equatable {
        case url(String)
        case file(String)

        /// A URL for `http(s)://…`, otherwise a file path.
        public init(_ text: String) {
            self = text.hasPrefix("https://") || text.hasPrefix("http://") ? .url(text) : .file(text)
        }
    }

    public static let appleURL = "https://appleid.apple.com/auth/keys"

    let source: Source
    let minimumRefetch: Duration
    private var keys: JWTKeyCollection?
    private var kids: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?

    public init(source: Source = .url(AppleKeys.appleURL), minimumRefetch: Duration = .seconds(60)) {
        (self.source, self.minimumRefetch) = (source, minimumRefetch)
    }

    /// The keys to verify a token whose header names `kid`.
    func collection(for kid: String?) async throws -> JWTKeyCollection {
        if let keys, let kid, kids.contains(kid) { return keys }
        if let keys, let fetchedAt, ContinuousClock.now - fetchedAt < minimumRefetch { return keys }
        fetchedAt = .now
        let json = try await fetch()
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json.utf8))
        let collection = try await JWTKeyCollection().add(jwks: jwks)
        keys = collection
        kids = Set(jwks.keys.compactMap { $0.keyIdentifier?.string })
        return collection
    }

    private func fetch() async throws -> String {
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
