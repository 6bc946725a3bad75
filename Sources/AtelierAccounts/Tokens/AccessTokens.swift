import Foundation
import JWTKit

/// Access tokens: JWTs signed with HS256 under `ATELIER_JWT_SECRET` (at least 32 bytes), valid
/// for ``lifetime`` (an hour). Verifying checks the signature (only HS256 with our key: the
/// `alg` of the header cannot choose another), the expiry and the claims' shape; whether the
/// token was revoked (logout, a disabled user) is ``AccessRevocations``'s question.
package struct AccessTokens: Sendable {
    package let lifetime: Duration
    private let keys: JWTKeyCollection
    /// The key goes into the collection (an actor) once, before the first sign or verify.
    private let keyAdded: Task<Void, Never>

    package static let minimumSecretBytes = 32

    package init(secret: String, lifetime: Duration = .seconds(3600)) throws(AccountError) {
        guard secret.utf8.count >= Self.minimumSecretBytes else {
            throw .configuration("ATELIER_JWT_SECRET must be at least \(Self.minimumSecretBytes) bytes (it has \(secret.utf8.count))")
        }
        self.lifetime = lifetime
        let keys = JWTKeyCollection()
        self.keys = keys
        keyAdded = Task { await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256) }
    }

    /// A fresh token for `user` of app `audience`, in the session that began at `signedInAt` (a
    /// sign-in: now; a refresh: the session's start). Its claims say when it expires — after
    /// ``lifetime``, or when the session reaches `sessionMaxAge`, whichever is sooner — and what
    /// logout revokes. A session already past its maximum age → ``AccountError/invalidToken(_:)``.
    package func issue(for user: User, audience: AccessAudience, signedInAt: Date? = nil, sessionMaxAge: Duration? = nil,
                      now: Date = Date()) async throws -> (token: String, claims: AccessClaims) {
        let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let start = Date(timeIntervalSince1970: (signedInAt ?? issued).timeIntervalSince1970.rounded(.down))
        var expires = issued.addingTimeInterval(Double(lifetime.components.seconds))
        if let sessionMaxAge {
            let sessionEnd = start.addingTimeInterval(Double(sessionMaxAge.components.seconds))
            guard sessionEnd > issued else { throw AccountError.invalidToken("Session expired; sign in again") }
            expires = min(expires, sessionEnd)
        }
        var claims = AccessClaims(sub: .init(value: user.id.uuidString.lowercased()), role: user.role,
                                  jti: .init(value: UUID().uuidString.lowercased()), iat: .init(value: issued),
                                  exp: .init(value: expires))
        claims.iss = .init(value: AccessClaims.issuer)
        claims.aud = .init(value: [audience.rawValue])
        claims.authTime = Int(start.timeIntervalSince1970)
        await keyAdded.value
        return (try await keys.sign(claims), claims)
    }

    /// The claims of a token we signed (`iss` atelier) that has not expired and was issued for
    /// one of `audiences`, or ``AccountError/invalidToken(_:)``. A token without `aud` (issued
    /// before issue 29) is refused: its user signs in again.
    package func verify(_ token: String, audiences: Set<AccessAudience> = Set(AccessAudience.allCases)) async throws(AccountError) -> AccessClaims {
        guard token.utf8.count <= 4096 else { throw .invalidToken("Token expired or invalid") }
        await keyAdded.value
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw .invalidToken("Token expired or invalid")
        }
        guard claims.userID != nil, claims.tokenID != nil else { throw .invalidToken("Token expired or invalid") }
        guard let audience = claims.audience, audiences.contains(audience) else { throw .invalidToken("Token expired or invalid") }
        return claims
    }

    /// Whether a token's `exp` has passed, read without trusting the token: only to tell a client
    /// "expired" from "invalid" after ``verify(_:)`` refused it.
    package static func hasExpired(_ token: String, now: Date = Date()) -> Bool {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let data = PasswordHasher.data(base64url: String(parts[1])),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let exp = object["exp"] as? Double else { return false }
        return exp < now.timeIntervalSince1970
    }

    /// Whether `credential` has a JWT's shape (three base64url parts): such credentials are
    /// access tokens, anything else an app token.
    package static func looksLikeJWT(_ credential: String) -> Bool {
        credential.hasPrefix("eyJ") && credential.utf8.reduce(0) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 } == 2
    }
}
