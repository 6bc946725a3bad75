import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import Foundation
import XCTest

/// Operator routes (`/v1/admin/…`) answer only users with the `admin` role: an admin's access
/// token reads the queue's statistics; a user of another role, an app token and no credential
/// are refused (403 AuthorizationError naming the role; 401 for an app token or none).
final class AdminAPITests: APITestCase {
    func accessToken(role: String, email: String) async throws -> String {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
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
        let appToken = try await request(.GET, "/v1/admin/queue")
        try assertError(appToken, status: 401, name: "AuthenticationError")
        XCTAssertTrue(appToken.text.contains("an app token has no role"), appToken.text)
        try assertError(try await request(.GET, "/v1/admin/queue", token: .some(nil)), status: 401, name: "AuthenticationError")
        let bad = try await request(.GET, "/v1/admin/queue?minutes=0", token: .some(nil), headers: [("Authorization", "Bearer " + admin)])
        try assertError(bad, status: 400, name: "ValidationError")
    }

    /// `PUT /v1/admin/limits` makes a kind's limits exactly those given; `GET` lists them; both
    /// for admins only; a bad value is a 400 naming its field and changes nothing.
    func testAdminsSetAndReadLimitsPerKind() async throws {
        let admin = try await accessToken(role: "admin", email: "ops@example.com")
        let auth = [("Authorization", "Bearer " + admin)]
        func put(_ json: String, headers: [(String, String)]? = nil) async throws -> Reply {
            try await request(.PUT, "/v1/admin/limits", token: .some(nil), headers: headers ?? auth,
                              body: Data(json.utf8), contentType: "application/json")
        }
        let set = try await put(#"{"kind": "noop", "concurrency": 4, "rate": {"count": 50, "period_s": 1}, "timeout_s": 2.5}"#)
        XCTAssertEqual(set.status, 200, set.text)
        let saved = try set.json()
        XCTAssertEqual(saved["concurrency"] as? Int, 4)
        XCTAssertEqual((saved["rate"] as? [String: Any])?["count"] as? Int, 50)
        XCTAssertEqual(saved["timeout_s"] as? Double, 2.5)
        XCTAssertNil(saved["per_owner_concurrency"])
        let adminOwner = try await db.scalar("SELECT 'user:' || id FROM users WHERE email = 'ops@example.com'", as: String.self)
        XCTAssertEqual(saved["updated_by"] as? String, adminOwner)

        let list = try await request(.GET, "/v1/admin/limits", token: .some(nil), headers: auth)
        XCTAssertEqual(list.status, 200, list.text)
        let limits = try XCTUnwrap(try list.json()["limits"] as? [[String: Any]])
        XCTAssertEqual(limits.map { $0["kind"] as? String }, ["noop"])
        let stored = try await db.queue.limits.list()
        XCTAssertEqual(stored.first?.rate?.description, "50/s")

        for (body, field) in [(#"{"kind": "nope", "concurrency": 1}"#, "kind"), (#"{"kind": "noop", "concurrency": 0}"#, "concurrency"),
                              (#"{"kind": "noop", "rate": "50/s"}"#, "rate"), (#"{"kind": "noop", "timeout_s": 90000}"#, "timeout_s"),
                              (#"{"kind": "noop", "colour": 1}"#, "colour"), (#"{"concurrency": 1}"#, "kind")] {
            let refused = try await put(body)
            try assertError(refused, status: 400, name: "ValidationError")
            XCTAssertEqual((try refused.json()["details"] as? [String: String])?["field"], field, body)
        }
        let unchanged = try await db.queue.limits.list()
        XCTAssertEqual(unchanged.first?.concurrency, 4, "refusals changed nothing")

        let cleared = try await put(#"{"kind": "noop"}"#)
        XCTAssertEqual(cleared.status, 200, cleared.text)
        XCTAssertNil(try cleared.json()["concurrency"])
        let left = try await db.queue.limits.list()
        XCTAssertEqual(left.count, 0)

        let driver = try await accessToken(role: "driver", email: "driver@example.com")
        try assertError(try await put(#"{"kind": "noop", "concurrency": 1}"#, headers: [("Authorization", "Bearer " + driver)]),
                        status: 403, name: "AuthorizationError")
        try assertError(try await request(.GET, "/v1/admin/limits"), status: 401, name: "AuthenticationError")
    }
}
