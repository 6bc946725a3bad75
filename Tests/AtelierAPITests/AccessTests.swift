import AtelierAPI
import AtelierAPITestSupport
import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// Credentials, ownership and rate limits.
final class AccessTests: APITestCase {
    func testNoCredentialOrAWrongOneIs401() async throws {
        try assertError(try await request(.GET, "/v1/jobs", token: .some(nil)), status: 401, name: "AuthenticationError")
        try assertError(try await request(.GET, "/v1/jobs", token: .some("atl_not-a-real-token")), status: 401, name: "AuthenticationError")
        var bearer = try await request(.GET, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(bearer.status, 200, "Authorization: Bearer works like X-App-Token")
        bearer = try await request(.GET, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Basic \(token)")])
        XCTAssertEqual(bearer.status, 401)
    }

    func testRevokedTokenIsRefusedAtOnce() async throws {
        let temporary = try await AtelierAPITestTokens.make(db.queue, name: "temporary")
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs", token: .some(temporary)).status, 200, "now cached")
        _ = try await AppTokens(database: db.queue.database).revoke("temporary")
        try await db.eventually("the revocation reaches the API", timeout: .seconds(5)) {
            try await request(.GET, "/v1/jobs", token: .some(temporary)).status == 401
        }
    }

    func testAnotherOwnersJobIsNotFound() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 60_000])
        let bob = try await AtelierAPITestTokens.make(db.queue, name: "bob")
        try assertError(try await request(.GET, "/v1/jobs/\(id)", token: .some(bob)), status: 404, name: "NotFoundError")
        try assertError(try await request(.DELETE, "/v1/jobs/\(id)", token: .some(bob)), status: 404, name: "NotFoundError")
        let list = try await request(.GET, "/v1/jobs", token: .some(bob)).json()
        XCTAssertEqual((list["data"] as? [Any])?.count, 0)
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs/\(id)").status, 200, "the owner still sees it")
        let state = try await db.scalar("SELECT state FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: String.self)
        XCTAssertNotEqual(state, "cancelled", "bob's cancel changed nothing")
        // A second token with the same owner shares the jobs.
        let aliceLaptop = try await AtelierAPITestTokens.make(db.queue, name: "alice-laptop", owner: "alice")
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs/\(id)", token: .some(aliceLaptop)).status, 200)
        _ = try await request(.DELETE, "/v1/jobs/\(id)")
    }

    func testMalformedAndUnknownIdsAre404() async throws {
        try assertError(try await request(.GET, "/v1/jobs/not-a-uuid"), status: 404, name: "NotFoundError")
        try assertError(try await request(.GET, "/v1/jobs/\(UUID().uuidString)"), status: 404, name: "NotFoundError")
        try assertError(try await request(.GET, "/v1/nothing-here"), status: 404, name: "NotFoundError")
    }
}

final class RateLimitTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.rateLimitPerMinute = 3
    }

    func testFourthRequestInAMinuteIs429WithRetryAfter() async throws {
        var remaining: [String] = []
        for _ in 0..<3 {
            let reply = try await request(.GET, "/v1/jobs")
            XCTAssertEqual(reply.status, 200)
            XCTAssertEqual(reply.header("X-RateLimit-Limit"), "3")
            remaining.append(reply.header("X-RateLimit-Remaining") ?? "")
            XCTAssertNotNil(reply.header("X-RateLimit-Reset"))
        }
        XCTAssertEqual(remaining, ["2", "1", "0"])
        let refused = try await request(.GET, "/v1/jobs")
        try assertError(refused, status: 429, name: "RateLimitError")
        let retryAfter = try XCTUnwrap(refused.header("Retry-After").flatMap(Int.init))
        XCTAssertTrue((1...20).contains(retryAfter), "one request comes back every 20 s: \(retryAfter)")
        XCTAssertEqual(try refused.json()["retryAfter"] as? Int, retryAfter, "the body repeats Retry-After as retryAfter")
        XCTAssertEqual(refused.header("X-RateLimit-Remaining"), "0")
        let other = try await AtelierAPITestTokens.make(db.queue, name: "other")
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs", token: .some(other)).status, 200, "limits are per client")
        try await XCTAssertEqualAsync(try await request(.GET, "/health", token: .some(nil)).status, 200, "health is not rate limited")
    }
}

final class OpenAccessTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.openAccess = true
    }

    func testAnonymousCallersWorkButWrongTokensDoNot() async throws {
        let id = try await createJob(kind: "noop", token: .some(nil))
        let job = try await request(.GET, "/v1/jobs/\(id)", token: .some(nil))
        XCTAssertEqual(job.status, 200)
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs/\(id)").status, 404, "alice is not anonymous")
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs", token: .some("atl_wrong")).status, 401)
        // Every caller without a token is `anonymous`: none may list or cancel the others' jobs.
        try assertError(try await request(.GET, "/v1/jobs", token: .some(nil)), status: 401, name: "AuthenticationError")
        try assertError(try await request(.POST, "/v1/jobs/\(id)/cancel", token: .some(nil)), status: 401, name: "AuthenticationError")
    }
}
