import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import Foundation
import XCTest

/// Operator routes (`/v1/admin/…`) answer only users with the `admin` role: an admin's access
/// token reads the queue's statistics; a user of another role, an app token and no credential
/// are refused (403 AuthorizationError naming the role, 401).
final class AdminAPITests: APITestCase {
    func accessToken(role: String, email: String) async throws -> String {
        let users = UserStore(client: db.queue.client, logger: db.queue.logger)
        let user = try await users.create(email: email, name: "", role: role, permissions: [], password: nil)
        return try await XCTUnwrap(server.accounts).access.issue(for: user, audience: .fleet).token
    }

    func testOnlyAdminsReadTheQueue() async throws {
        _ = try await waitForCompletion(try await createJob(kind: "noop"))
        let admin = try await accessToken(role: "admin", email: "ops@example.com")
        let reply = try await request(.GET, "/v1/admin/queue?minutes=10", token: .some(nil), headers: [("Authorization", "Bearer " + admin)])
        XCTAssertEqual(reply.status, 200, reply.text)
        let body = try reply.json()
        let counts = try XCTUnwrap(body["counts"] as? [[String: Any]])
        XCTAssertTrue(counts.contains { $0["kind"] as? String == "noop" && $0["state"] as? String == "succeeded" && $0["count"] as? Int == 1 },
                      "\(counts)")
        XCTAssertEqual((body["throughput_per_minute"] as? [Any])?.count, 10)
        XCTAssertNotNil(body["queues"] as? [Any])

        let driver = try await accessToken(role: "driver", email: "driver@example.com")
        let refused = try await request(.GET, "/v1/admin/queue", token: .some(nil), headers: [("Authorization", "Bearer " + driver)])
        try assertError(refused, status: 403, name: "AuthorizationError")
        XCTAssertEqual((try refused.json()["details"] as? [String: String])?["required_role"], "admin")
        try assertError(try await request(.GET, "/v1/admin/queue"), status: 403, name: "AuthorizationError")
        try assertError(try await request(.GET, "/v1/admin/queue", token: .some(nil)), status: 401, name: "AuthenticationError")
        let bad = try await request(.GET, "/v1/admin/queue?minutes=0", token: .some(nil), headers: [("Authorization", "Bearer " + admin)])
        try assertError(bad, status: 400, name: "ValidationError")
    }
}
