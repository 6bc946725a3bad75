import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import AtelierTestSupport
import Foundation
import NIOHTTP1
import XCTest

/// Limits per identity (issue 29): a user has one request budget whichever of their tokens comes
/// — signing in again or refreshing used to mint a fresh bucket — and every sign-in route spends
/// the client address's sign-in budget.
final class AccountLimitsAPITests: LearnAPITestCase {
    override var requiresModel: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        super.configure(&configuration)
        configuration.api.rateLimitPerMinute = 3
        configuration.api.loginRateLimitPerAddress = 4
    }

    struct Login: Codable { let email: String; let password: String }
    struct Session: Codable { let token: String }

    func login(_ email: String) async throws -> String {
        let reply = try await request(.POST, "/api/auth/login", token: .some(nil),
                                      body: try JSONEncoder().encode(Login(email: email, password: "password123")),
                                      contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        return try JSONDecoder().decode(Session.self, from: reply.body).token
    }

    /// Token A spends the budget; token B of the same user — the core API, the fleet app's own
    /// routes and the Learn app's — finds it spent. Another user's is untouched.
    func testAUsersBudgetIsOneWhicheverOfTheirTokensComes() async throws {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
        _ = try await users.create(email: "kim@example.com", password: "password123")
        _ = try await users.create(email: "lee@example.com", password: "password123")
        let first = try await login("kim@example.com")
        let second = try await login("kim@example.com")
        let other = try await login("lee@example.com")
        let found = try await users.find(email: "kim@example.com")
        let kim = try XCTUnwrap(found)
        let learn = try await XCTUnwrap(server.accounts).issue(for: kim, audience: .learn).token
        for _ in 0..<3 {
            try await XCTAssertEqualAsync(try await call(.GET, "/v1/jobs", as: first).status, 200)
        }
        try await XCTAssertEqualAsync(try await call(.GET, "/v1/jobs", as: first).status, 429)
        try await XCTAssertEqualAsync(try await call(.GET, "/v1/jobs", as: second).status, 429, "a second token, a fresh budget")
        try await XCTAssertEqualAsync(try await call(.GET, "/api/auth/me", as: second).status, 429)
        try await XCTAssertEqualAsync(try await call(.POST, "/api/auth/refresh", as: second).status, 429, "refresh mints no budget")
        try await XCTAssertEqualAsync(try await call(.GET, "/api/ios/knowledge", as: learn).status, 429, "the Learn app's token too")
        try await XCTAssertEqualAsync(try await call(.GET, "/v1/jobs", as: other).status, 200, "another user's budget")
    }

    /// Made-up refresh tokens cost the address's sign-in budget: then 429 before any lookup.
    func testMadeUpRefreshTokensSpendTheAddressBudget() async throws {
        struct Refresh: Codable { let refreshToken: String }
        var statuses: [Int] = []
        for n in 0..<5 {
            let reply = try await request(.POST, "/api/ios/auth/refresh", token: .some(nil),
                                          body: try JSONEncoder().encode(Refresh(refreshToken: "made-up-\(n)")),
                                          contentType: "application/json")
            statuses.append(reply.status)
        }
        XCTAssertEqual(statuses, [401, 401, 401, 401, 429])
    }

    /// A bad bearer on the fleet app's `me` spends the address's sign-in budget too.
    func testBadAccessTokensSpendTheAddressBudget() async throws {
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await call(.GET, "/api/auth/me", as: "not-a-token").status) }
        XCTAssertEqual(statuses, [401, 401, 401, 401, 429])
    }
}
