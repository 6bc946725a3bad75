import Foundation
import JWTKit

/// Checks an identity token from Sign in with Apple: signed (RS256) by one of Apple's keys
/// (``AppleKeys``), issued by `https://appleid.apple.com`, for one of our apps (`aud` ∈
/// `ATELIER_APPLE_AUDIENCES`, their bundle ids), not expired, with a subject. Every failure is
/// the same ``AccountError/invalidToken(_:)``.
package struct AppleSignIn: Sendable {
    package struct Identity: Sendable, Equatable {
        /// Apple's stable user id for our team (`sub`).
        package var subject: String
        package var email: String?
        package var emailVerified: Bool
        /// When the identity token expires: until then it is remembered as spent.
        package var expiresAt: Date
        /// The token's signature as bytes: what makes it this token, whichever of its spellings
        /// came (base64url leaves a last character's unused bits and padding free, so about 32
        /// texts verify as one token). The replay guard is keyed on it (``AppleIdentityUses``).
        package var signature: Data

        package init(subject: String, email: String?, emailVerified: Bool, expiresAt: Date = .distantFuture, signature: Data = Data()) {
            (self.subject, self.email, self.emailVerified, self.expiresAt, self.signature) = (subject, email, emailVerified, expiresAt, signature)
        }
    }

    package let audiences: Set<String>
    let keys: AppleKeys

    package init(audiences: [String], keys: AppleKeys = AppleKeys()) {
        self.audiences = Set(audiences)
        self.keys = keys
    }

    package func verify(_ token: String) async throws(AccountError) -> Identity {
        let invalid = AccountError.invalidToken("Invalid identity token")
        guard !audiences.isEmpty, token.utf8.count <= 8192, AccessTokens.looksLikeJWT(token) else { throw invalid }
        do {
            let collection = try await keys.collection(for: Self.keyID(token))
            // Signature, issuer, expiry, and every `aud` one of ours.
            let claims = try await collection.verify(token, as: AppleIdentityToken.self, expectedAudiences: audiences)
            guard !claims.subject.value.isEmpty, let signature = Self.signature(token), !signature.isEmpty else { throw invalid }
            return Identity(subject: claims.subject.value, email: claims.email, emailVerified: claims.emailVerified?.value ?? false,
                            expiresAt: claims.expires.value, signature: signature)
        } catch {
            throw invalid
        }
    }

    /// The bytes of a token's third part, its signature (nil when it is not base64url).
    static func signature(_ token: String) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return PasswordHasher.data(base64url: String(parts[2]))
    }

    /// The `kid` of a token's header, read without trusting it (only to pick the key).
    static func keyID(_ token: String) -> String? {
        guard let header = token.split(separator: ".").first,
              let data = PasswordHasher.data(base64url: String(header)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["kid"] as? String
    }
}
