import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import AtelierTestSupport
import Foundation
import NIOHTTP1
import XCTest

/// The Learn Assistant's sign-in (docs/clients.md §7) against a real server, decoded with
/// structs written from the app's API document: Sign in with Apple (a token the test signs as
/// Apple would), refresh with rotation, a retry within the reuse window, a replayed refresh token
/// ending its family, and the
/// access token working on the core API.
final class LearnAuthAPITests: LearnAPITestCase {
    struct AppleSignInRequest: Codable { let identityToken: String; let user: String }
    struct AuthResponse: Codable {
        struct UserModel: Codable { let id: String; let email: String; let createdAt: String }
        let user: UserModel; let accessToken: String; let refreshToken: String; let expiresAt: Int
    }
    struct RefreshRequest: Codable { let refreshToken: String }
    struct RefreshResponse: Codable {
        struct UserModel: Codable { let id: String; let email: String }
        let user: UserModel; let accessToken: String; let refreshToken: String; let expiresAt: Int
    }
    override var requiresModel: Bool { false }

    func post(_ path: String, _ body: some Encodable) async throws -> Reply {
        try await request(.POST, path, token: .some(nil), body: try JSONEncoder().encode(body), contentType: "application/json")
    }

    func testSignInWithAppleThenRefreshAndUseTheToken() async throws {
        let identity = try await apple.identityToken(subject: "000123.abc456def789.1234")
        let reply = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: identity, user: "000123.abc456def789.1234"))
        XCTAssertEqual(reply.status, 200, reply.text)
        let session = try JSONDecoder().decode(AuthResponse.self, from: reply.body)
        XCTAssertEqual(session.user.email, "user@privaterelay.appleid.com")
        XCTAssertNotNil(ISO8601DateFormatter().date(from: session.user.createdAt), session.user.createdAt)
        XCTAssertEqual(Double(session.expiresAt), Date().timeIntervalSince1970 + 3600, accuracy: 5)

        // The same Apple account signs in again: the same user.
        let again = try JSONDecoder().decode(AuthResponse.self, from: try await post(
            "/api/ios/auth/apple", AppleSignInRequest(identityToken: try await apple.identityToken(subject: "000123.abc456def789.1234"),
                                                     user: "000123.abc456def789.1234")).body)
        XCTAssertEqual(again.user.id, session.user.id)

        let refreshed = try await post("/api/ios/auth/refresh", RefreshRequest(refreshToken: session.refreshToken))
        XCTAssertEqual(refreshed.status, 200, refreshed.text)
        let next = try JSONDecoder().decode(RefreshResponse.self, from: refreshed.body)
        XCTAssertEqual(next.user.id, session.user.id)
        XCTAssertNotEqual(next.refreshToken, session.refreshToken)

        // The access token is a credential for the core API.
        let jobs = try await request(.GET, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer " + next.accessToken)])
        XCTAssertEqual(jobs.status, 200, jobs.text)

        // A retry with the spent token (its answer lost) gets the same next token: no logout.
        let retried = try await post("/api/ios/auth/refresh", RefreshRequest(refreshToken: session.refreshToken))
        XCTAssertEqual(retried.status, 200, retried.text)
        XCTAssertEqual(try JSONDecoder().decode(RefreshResponse.self, from: retried.body).refreshToken, next.refreshToken)

        // Once the next token is used, the spent one presented again is a replay: the family
        // ends, the newest token with it.
        let third = try JSONDecoder().decode(RefreshResponse.self, from: try await post(
            "/api/ios/auth/refresh", RefreshRequest(refreshToken: next.refreshToken)).body)
        let replay = try await post("/api/ios/auth/refresh", RefreshRequest(refreshToken: session.refreshToken))
        XCTAssertEqual(replay.status, 401)
        XCTAssertEqual(try JSONDecoder().decode(ErrorResponse.self, from: replay.body).error, "Invalid refresh token")
        let afterReplay = try await post("/api/ios/auth/refresh", RefreshRequest(refreshToken: third.refreshToken))
        XCTAssertEqual(afterReplay.status, 401)
    }

    /// An identity token is good for one sign-in: replayed within its lifetime it used to mint a
    /// new session each time.
    func testAnIdentityTokenSignsInOnce() async throws {
        let identity = try await apple.identityToken(subject: "000777.replay.1234")
        let first = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: identity, user: "000777.replay.1234"))
        XCTAssertEqual(first.status, 200, first.text)
        let replay = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: identity, user: "000777.replay.1234"))
        XCTAssertEqual(replay.status, 401, replay.text)
        XCTAssertEqual(try JSONDecoder().decode(ErrorResponse.self, from: replay.body).error, "Invalid identity token")
    }

    /// The replay guard knows a token by its signature's bytes: base64url leaves the last
    /// character's unused bits and padding free, and every spelling verifies. Each used to be a
    /// fresh token, so one identity token signed in about 32 times.
    func testAnIdentityTokenSignsInOnceInAnySpelling() async throws {
        let identity = try await apple.identityToken(subject: "000778.respell.1234")
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var respelled = Array(identity)
        let last = try XCTUnwrap(alphabet.firstIndex(of: respelled[respelled.count - 1]))
        respelled[respelled.count - 1] = alphabet[last ^ 1]   // an unused bit: RS256's 256 bytes leave 4
        let spellings = [String(respelled), identity, identity + "==", String(respelled) + "=="]
        XCTAssertNotEqual(spellings[0], spellings[1])
        let first = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: spellings[0], user: "000778.respell.1234"))
        XCTAssertEqual(first.status, 200, "another spelling of a token verifies: \(first.text)")
        for spelling in spellings.dropFirst() {
            let replay = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: spelling, user: "000778.respell.1234"))
            XCTAssertEqual(replay.status, 401, "a respelled replay: \(replay.text)")
        }
    }

    func testMissingAndInvalidTokensAre400And401() async throws {
        let missing = try await request(.POST, "/api/ios/auth/apple", token: .some(nil), body: Data("{}".utf8), contentType: "application/json")
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(try JSONDecoder().decode(ErrorResponse.self, from: missing.body).error, "Identity token is required")
        for token in [try await apple.identityToken(audience: "com.other.app"), try await apple.identityToken(expires: Date().addingTimeInterval(-1)),
                      try await apple.identityToken(issuer: "https://example.com"), "garbage"] {
            let reply = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: token, user: "000123.abc456def789.1234"))
            XCTAssertEqual(reply.status, 401, reply.text)
            XCTAssertEqual(try JSONDecoder().decode(ErrorResponse.self, from: reply.body).error, "Invalid identity token")
        }
        let mismatch = try await post("/api/ios/auth/apple", AppleSignInRequest(identityToken: try await apple.identityToken(subject: "a"), user: "b"))
        XCTAssertEqual(mismatch.status, 401, "the user field must be the token's subject")
        let noRefresh = try await request(.POST, "/api/ios/auth/refresh", token: .some(nil), body: Data("{}".utf8), contentType: "application/json")
        XCTAssertEqual(noRefresh.status, 400)
        XCTAssertEqual(try JSONDecoder().decode(ErrorResponse.self, from: noRefresh.body).error, "Refresh token is required")
        let badRefresh = try await post("/api/ios/auth/refresh", RefreshRequest(refreshToken: "atr_nothing"))
        XCTAssertEqual(badRefresh.status, 401)
    }
}
