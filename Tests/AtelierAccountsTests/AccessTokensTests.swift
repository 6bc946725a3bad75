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
        let (token, issued) = try await tokens.issue(for: user, audience: .fleet, now: now)
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
        XCTAssertEqual(Set(object.keys), ["sub", "role", "jti", "iat", "exp", "iss", "aud", "auth_time"])
        XCTAssertEqual(object["iss"] as? String, "atelier")
        XCTAssertEqual(object["aud"] as? String, "atelier-fleet")
        XCTAssertEqual(object["auth_time"] as? Int, Int(issued.iat.value.timeIntervalSince1970), "a sign-in begins its session")
    }

    /// Each app's routes take its own tokens: a Learn or console token is no fleet token, and a
    /// token without an audience (issued before issue 29) is none of ours.
    func testATokenWorksOnlyForTheAudiencesAsked() async throws {
        let tokens = try AccessTokens(secret: secret)
        let learn = try await tokens.issue(for: user, audience: .learn).token
        let console = try await tokens.issue(for: user, audience: .console).token
        _ = try await tokens.verify(learn, audiences: [.learn])
        _ = try await tokens.verify(learn, audiences: AccessAudience.coreAPI)
        for (token, audiences) in [(learn, Set<AccessAudience>([.fleet])), (console, AccessAudience.coreAPI)] {
            do {
                _ = try await tokens.verify(token, audiences: audiences)
                XCTFail("a token for another app was accepted")
            } catch {
                XCTAssertEqual(error, .invalidToken("Token expired or invalid"))
            }
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        var legacy = try await tokens.verify(learn)
        (legacy.iss, legacy.aud, legacy.authTime) = (nil, nil, nil)
        let unaddressed = try await keys.sign(legacy)
        do {
            _ = try await tokens.verify(unaddressed)
            XCTFail("a token without an audience was accepted")
        } catch {
            XCTAssertEqual(error, .invalidToken("Token expired or invalid"))
        }
    }

    /// A token continuing a session expires when the session reaches its maximum age, if that is
    /// sooner than its own lifetime; a session past it gets no token at all.
    func testASessionEndsAtItsMaximumAgeFromTheSignIn() async throws {
        let tokens = try AccessTokens(secret: secret)
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let maxAge = Duration.seconds(30 * 24 * 3600)
        let young = try await tokens.issue(for: user, audience: .fleet, signedInAt: now.addingTimeInterval(-86400),
                                           sessionMaxAge: maxAge, now: now).claims
        XCTAssertEqual(young.expiresAt, now.addingTimeInterval(3600))
        XCTAssertEqual(young.signedInAt, now.addingTimeInterval(-86400), "a refresh keeps auth_time")
        let old = try await tokens.issue(for: user, audience: .fleet, signedInAt: now.addingTimeInterval(-30 * 86400 + 600),
                                         sessionMaxAge: maxAge, now: now).claims
        XCTAssertEqual(old.expiresAt, now.addingTimeInterval(600), "capped at the session's end")
        do {
            _ = try await tokens.issue(for: user, audience: .fleet, signedInAt: now.addingTimeInterval(-31 * 86400),
                                       sessionMaxAge: maxAge, now: now)
            XCTFail("a session past its maximum age was renewed")
        } catch let error as AccountError {
            XCTAssertEqual(error, .invalidToken("Session expired; sign in again"))
        }
    }

    func testExpiredForgedAndForeignTokensAreRefused() async throws {
        let tokens = try AccessTokens(secret: secret)
        let (expired, _) = try await tokens.issue(for: user, audience: .fleet, now: Date().addingTimeInterval(-7200))
        let (good, _) = try await tokens.issue(for: user, audience: .fleet)
        let other = try AccessTokens(secret: String(repeating: "z", count: 40))
        let (foreign, _) = try await other.issue(for: user, audience: .fleet)
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
