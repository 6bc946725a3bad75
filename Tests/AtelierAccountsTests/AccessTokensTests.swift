import AtelierAccounts
import Foundation
import JWTKit
import XCTest

final class AccessTokensTests: XCTestCase {
    let secret = String(repeating: "k", count: 40)
    let user = User(id: UUID(), email: "ana@example.com", name: "Ana", role: "driver", permissions: ["vehicle.read"],
                    appleSubject: nil, hasPassword: true, disabledAt: nil, createdAt: Date())

    func testATokenCarriesItsUserRoleIdAndTimes() async throws {
        let tokens = try AccessTokens(secret: secret)
        let now = Date()
        let (token, issued) = try await tokens.issue(for: user, now: now)
        XCTAssertTrue(AccessTokens.looksLikeJWT(token), token)
        let claims = try await tokens.verify(token)
        XCTAssertEqual(claims, issued)
        XCTAssertEqual(claims.userID, user.id)
        XCTAssertEqual(claims.role, "driver")
        XCTAssertNotNil(claims.tokenID)
        XCTAssertEqual(claims.expiresAt.timeIntervalSince(claims.iat.value), 3600)
        // The payload is plain JSON with the documented claims.
        let payload = try XCTUnwrap(Data(base64Encoded: Self.padded(String(token.split(separator: ".")[1]))))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: payload) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["sub", "role", "jti", "iat", "exp"])
    }

    func testExpiredForgedAndForeignTokensAreRefused() async throws {
        let tokens = try AccessTokens(secret: secret)
        let (expired, _) = try await tokens.issue(for: user, now: Date().addingTimeInterval(-7200))
        let (good, _) = try await tokens.issue(for: user)
        let other = try AccessTokens(secret: String(repeating: "z", count: 40))
        let (foreign, _) = try await other.issue(for: user)
        var parts = good.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let forged = parts.joined(separator: ".")
        // alg "none" with the same claims: must not pass.
        let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let unsigned = header + "." + good.split(separator: ".")[1] + "."
        for token in [expired, foreign, forged, unsigned, "eyJ.eyJ.x", "", String(repeating: "a", count: 5000)] {
            do {
                _ = try await tokens.verify(token)
                XCTFail("accepted \(token.prefix(40))")
            } catch {
                XCTAssertEqual(error, .invalidToken("Token expired or invalid"))
            }
        }
    }

    func testASecretShorterThan32BytesIsRefused() {
        do {
            _ = try AccessTokens(secret: "short")
            XCTFail("accepted a short secret")
        } catch {
            XCTAssertEqual(error.message, "ATELIER_JWT_SECRET must be at least 32 bytes (it has 5)")
        }
    }

    static func padded(_ base64url: String) -> String {
        var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }
}
