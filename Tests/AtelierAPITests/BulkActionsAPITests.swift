@testable import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import AtelierQueue
import Foundation
import XCTest
import Yams

/// `GET /v1/admin/jobs`, `POST /v1/admin/jobs/{cancel,retry,purge}` and `/v1/admin/bulk-actions`:
/// the filter language over HTTP, a dry run that changes nothing, an action that runs in the
/// background to the end, and refusals that name their field.
final class BulkActionsAPITests: APITestCase {
    private func adminHeaders() async throws -> [(String, String)] {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
        let user = try await users.create(email: "ops@example.com", name: "", role: "admin", permissions: [], password: nil)
        let token = try await XCTUnwrap(server.accounts).access.issue(for: user, audience: .fleet).token
        return [("Authorization", "Bearer " + token)]
    }

    private func post(_ path: String, _ json: String, headers: [(String, String)]) async throws -> Reply {
        try await request(.POST, path, token: .some(nil), headers: headers, body: Data(json.utf8), contentType: "application/json")
    }

    func testAnAdminCancelsEveryMatchingJobAfterADryRun() async throws {
        let auth = try await adminHeaders()
        // A queue no worker of the test serves: its jobs stay queued until the action.
        let held = try await db.queue.enqueue((0..<7).map { _ in NewJob(kind: "noop", queue: "held", owner: "alice") })
        _ = try await db.queue.enqueue(NewJob(kind: "noop", queue: "held", owner: "bob"))

        let dry = try await post("/v1/admin/jobs/cancel", #"{"where": {"queue": "held", "owner": "alice"}, "dry_run": true}"#, headers: auth)
        XCTAssertEqual(dry.status, 200, dry.text)
        XCTAssertEqual(try dry.json()["count"] as? Int, 7)
        XCTAssertEqual((try dry.json()["sample"] as? [Any])?.count, 7)
        let stillQueued = try await db.queue.jobs(ids: held.map(\.id)).filter { $0.state == .queued }.count
        XCTAssertEqual(stillQueued, 7, "a dry run changes nothing")

        let started = try await post("/v1/admin/jobs/cancel", #"{"where": {"queue": "held", "owner": "alice"}, "batch_size": 3}"#, headers: auth)
        XCTAssertEqual(started.status, 202, started.text)
        let id = try XCTUnwrap(try started.json()["id"] as? Int)
        XCTAssertEqual(try started.json()["matched"] as? Int, 7)
        var action: [String: Any] = [:]
        for _ in 0..<600 {
            let reply = try await request(.GET, "/v1/admin/bulk-actions/\(id)", token: .some(nil), headers: auth)
            XCTAssertEqual(reply.status, 200, reply.text)
            action = try reply.json()
            if action["state"] as? String == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(action["state"] as? String, "done")
        XCTAssertEqual(action["acted"] as? Int, 7)
        XCTAssertEqual(action["filter"] as? String, "queue=held owner=alice")

        let list = try await request(.GET, "/v1/admin/jobs?queue=held&state=cancelled&limit=5", token: .some(nil), headers: auth)
        XCTAssertEqual(list.status, 200, list.text)
        XCTAssertEqual((try list.json()["jobs"] as? [[String: Any]])?.count, 5)
        let cursor = try XCTUnwrap(try list.json()["next_before"] as? String)
        let rest = try await request(.GET, "/v1/admin/jobs?queue=held&state=cancelled&limit=5&before=\(cursor)", token: .some(nil), headers: auth)
        XCTAssertEqual((try rest.json()["jobs"] as? [[String: Any]])?.count, 2)
        XCTAssertTrue(try rest.json()["next_before"] is NSNull)
        let bob = try await request(.GET, "/v1/admin/jobs?owner=bob", token: .some(nil), headers: auth)
        XCTAssertEqual((try bob.json()["jobs"] as? [[String: Any]])?.first?["state"] as? String, "queued")

        let actions = try await request(.GET, "/v1/admin/bulk-actions", token: .some(nil), headers: auth)
        XCTAssertEqual((try actions.json()["bulk_actions"] as? [[String: Any]])?.first?["id"] as? Int, id)
        try assertError(try await post("/v1/admin/bulk-actions/\(id)/stop", "{}", headers: auth), status: 409, name: "ConflictError")
    }

    func testBadRequestsAreRefusedAndChangeNothing() async throws {
        let auth = try await adminHeaders()
        _ = try await db.queue.enqueue(NewJob(kind: "noop", queue: "held"))
        let long = String(repeating: "é", count: 201)
        for (body, field) in [(#"{"where": {"colour": "red"}}"#, "colour"), (#"{"where": {"state": "exploded"}}"#, "state"),
                              (#"{"where": {"KIND": "b"}}"#, "KIND"), (#"{}"#, "where"),
                              (#"{"where": {"state": "FAILED"}}"#, "state"), (#"{"where": {"state": "failed, queued"}}"#, "state"),
                              (#"{"where": {"created-after": "1.5h"}}"#, "created-after"),
                              (#"{"where": {"finished-before": "2026-02-29T00:00:00Z"}}"#, "finished-before"),
                              (#"{"where": {"finished-before": "2026-04-31T00:00:00Z"}}"#, "finished-before"),
                              ("{\"where\": {\"queue\": \"\(long)\"}}", "queue"),
                              (#"{"where": {"kind": 3}}"#, "where"), (#"{"where": {}, "dry_run": "yes"}"#, "dry_run"),
                              (#"{"where": {}, "dry_run": null}"#, "dry_run"),
                              (#"{"where": {}, "batch_size": 0}"#, "batch_size"), (#"{"where": {}, "force": true}"#, "force")] {
            let refused = try await post("/v1/admin/jobs/cancel", body, headers: auth)
            try assertError(refused, status: 400, name: "ValidationError")
            XCTAssertEqual((try refused.json()["details"] as? [String: String])?["field"], field, body)
        }
        try assertError(try await post("/v1/admin/jobs/explode", #"{"where": {}}"#, headers: auth), status: 404, name: "NotFoundError")
        for query in ["created-after=yesterday", "queue=" + String(repeating: "q", count: 201), "Kind=noop", "state=Failed"] {
            try assertError(try await request(.GET, "/v1/admin/jobs?" + query, token: .some(nil), headers: auth),
                            status: 400, name: "ValidationError")
        }
        let fine = try await request(.GET, "/v1/admin/jobs?queue=" + String(repeating: "q", count: 200) + "&created-after=12h&finished-before=2026-12-31T23:59:59Z&finished-after=2028-02-29T00:00:00Z", token: .some(nil), headers: auth)
        XCTAssertEqual(fine.status, 200, fine.text)
        try assertError(try await request(.GET, "/v1/admin/bulk-actions/99", token: .some(nil), headers: auth), status: 404, name: "NotFoundError")
        let appToken = try await request(.POST, "/v1/admin/jobs/cancel", body: Data(#"{"where": {}}"#.utf8), contentType: "application/json")
        try assertError(appToken, status: 401, name: "AuthenticationError")
        let actions = try await db.queue.bulkActions.list()
        XCTAssertEqual(actions.count, 0)
        let queued = try await db.queue.countJobs(in: [.queued])
        XCTAssertEqual(queued, 1)
    }

    /// The API refuses exactly what openapi.yaml's filter schemas refuse: its patterns are the
    /// document's, so schemathesis's cases and the server agree.
    func testTheFilterPatternsAreTheDocuments() async throws {
        let reply = try await request(.GET, "/openapi.yaml", token: .some(nil))
        let document = try XCTUnwrap(try Yams.load(yaml: reply.text) as? [String: Any])
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        XCTAssertEqual((schemas["FilterStates"] as? [String: Any])?["pattern"] as? String, BulkActionsController.statesPattern)
        XCTAssertEqual((schemas["FilterTime"] as? [String: Any])?["pattern"] as? String, BulkActionsController.timePattern)
        XCTAssertEqual((schemas["FilterText"] as? [String: Any])?["maxLength"] as? Int, JobCriteria.maxValueLength)
    }
}
