import CryptoExtras
import Foundation
import JWTKit

/// Sign in with Apple, played by the tests: an RSA key pair of their own, published as a JWKS
/// file (what `ATELIER_APPLE_JWKS` names), and identity tokens signed with it as Apple signs
/// them (RS256, `iss` https://appleid.apple.com).
public final class TestAppleKeys: Sendable {
    public let kid: String
    public let jwksFile: URL
    private let keys: JWTKeyCollection
    private let jwks: String

    public init(kid: String = "test-\(UUID().uuidString.prefix(8))") async throws {
        self.kid = kid
        let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        jwks = #"{"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "\#(kid)", "n": "\#(Self.base64url(modulus))", "e": "\#(Self.base64url(exponent))"}]}"#
        jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("apple-jwks-\(UUID().uuidString).json")
        try Data(jwks.utf8).write(to: jwksFile)
        keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
    }

    /// An identity token as Apple would sign it; each claim can be made wrong.
    public func identityToken(subject: String = "001234.abcdef0123456789.1234", audience: String = "com.example.learn",
                              email: String? = "user@privaterelay.appleid.com", emailVerified: Bool = true,
                              issuer: String = "https://appleid.apple.com", expires: Date = Date().addingTimeInterval(600)) async throws -> String {
        let token = AppleIdentityToken(issuer: .init(value: issuer), audience: .init(value: [audience]), expires: .init(value: expires),
                                       issuedAt: .init(value: Date().addingTimeInterval(-5)), subject: .init(value: subject),
                                       email: email, emailVerified: .init(value: emailVerified))
        return try await keys.sign(token, kid: JWKIdentifier(string: kid))
    }

    public func remove() { try? FileManager.default.removeItem(at: jwksFile) }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
