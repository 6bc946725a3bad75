import AtelierAPI
import AtelierAPITestSupport
import AtelierTestSupport
import Foundation
import XCTest

/// Give an app a token and take it back: `AppTokens.create` (what `atelier tokens create --name N
/// --owner O` runs) returns the secret once — only its SHA-256 is stored — and the app sends it as
/// `X-App-Token` or `Authorization: Bearer`. Tokens with the same owner see the same jobs.
/// `revoke` (`atelier tokens revoke N`) reaches every API process through a notification: the
/// token's next request is `401`.
final class CreateAndRevokeAToken: APITestCase {
    func testATokenWorksUntilItIsRevoked() async throws {
        let tokens = AppTokens(database: queue.database)
        let created = try await tokens.create(name: "alice-phone", owner: "alice")
        XCTAssertTrue(created.secret.hasPrefix("atl_"))

        let viaHeader = try await send(.GET, "\(baseURL)/v1/jobs", headers: ["X-App-Token": created.secret])
        XCTAssertEqual(viaHeader.status, 200, viaHeader.text)
        let viaBearer = try await send(.GET, "\(baseURL)/v1/jobs", headers: ["Authorization": "Bearer \(created.secret)"])
        XCTAssertEqual(viaBearer.status, 200, viaBearer.text)

        // Same owner, same jobs: a job made with alice's other token is visible with this one.
        let made = try await send(.POST, "\(baseURL)/v1/jobs", headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                  body: #"{"kind": "noop"}"#)
        let id = try XCTUnwrap(try made.json()["id"] as? String)
        try await XCTAssertEqualAsync(try await send(.GET, "\(baseURL)/v1/jobs/\(id)", headers: ["X-App-Token": created.secret]).status, 200)

        let listed = try await tokens.list()
        let entry = try XCTUnwrap(listed.first { $0.name == "alice-phone" })
        XCTAssertEqual(entry.prefix, String(created.secret.prefix(10)), "operators see a prefix, never the secret")

        _ = try await tokens.revoke("alice-phone")
        try await db.eventually("the revocation reaches the API") {
            try await send(.GET, "\(baseURL)/v1/jobs", headers: ["X-App-Token": created.secret]).status == 401
        }
        let refused = try await send(.GET, "\(baseURL)/v1/jobs", headers: ["X-App-Token": created.secret])
        XCTAssertEqual(try refused.json()["error"] as? String, "AuthenticationError")
        try await XCTAssertTrueAsync(try await tokens.list().allSatisfy { $0.name != "alice-phone" }, "gone from the live list")
    }
}
