import AtelierAPI
import AtelierAPITestSupport
import AtelierQueue
import Foundation
import XCTest

/// `ATELIER_ANONYMOUS_APPS` (README "Running the photo apps on a LAN"): the listed apps' routes
/// serve requests without a credential under the app's own anonymous owner, limited per client
/// address; a wrong credential is still refused, and /v1 and the apps not listed still need one.

/// Mondrian's whole flow as its app sends it: no credential at all.
final class MondrianAnonymousFlowTests: MondrianFlowTestCase {
    override var sendsToken: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.anonymousApps = ["mondrian"]
    }

    func testTheAppsFlowWithoutACredential() async throws {
        try await runTheAppsFlow()
        let (jobs, _) = try await db.queue.jobs(JobFilter(owner: "anonymous:mondrian", limit: 10, offset: 0))
        XCTAssertFalse(jobs.isEmpty, "the jobs belong to Mondrian's anonymous owner")
    }

    func testCredentialsAreStillCheckedAndOtherRoutesStillNeedOne() async throws {
        // A wrong token is refused, even where none is needed.
        try assertError(try await upload(advisor: "ansel", token: .some("not-a-token")), status: 401, name: "AuthenticationError")
        // A good one is the caller, as always: its jobs are not the anonymous owner's.
        let mine = try await upload(advisor: "ansel", token: .some(token))
        XCTAssertEqual(mine.status, 200, mine.text)
        let id = try JSONDecoder().decode(UploadResponse.self, from: mine.body).job_id
        try assertError(try await request(.GET, "/status/\(id)"), status: 404, name: "NotFoundError")
        let status = try await request(.GET, "/status/\(id)", token: .some(token))
        XCTAssertEqual(status.status, 200, status.text)
        // The core API and the caption app (not listed) still need a credential.
        try assertError(try await request(.GET, "/v1/jobs"), status: 401, name: "AuthenticationError")
        let body = try JSONSerialization.data(withJSONObject: ["kind": "noop", "options": [:]])
        try assertError(try await request(.POST, "/v1/jobs", body: body, contentType: "application/json"), status: 401, name: "AuthenticationError")
        try assertError(try await request(.POST, "/v1/search", body: Data(#"{"query": "sky"}"#.utf8), contentType: "application/json"),
                        status: 401, name: "AuthenticationError")
        let caption = try await request(.POST, "/api/generateCaption", body: Data("{}".utf8), contentType: "application/json")
        XCTAssertEqual(caption.status, 401, caption.text)
        XCTAssertTrue(caption.text.contains("AUTH_001"), caption.text)
    }
}

/// Mondrian as printed, end to end: no credential, its job service on one port and its search
/// service on another (the app's 5005 and 5400; here two free ports of one server).
final class MondrianTwoPortsAnonymousTests: MondrianFlowTestCase {
    override var sendsToken: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.anonymousApps = ["mondrian"]
        configuration.api.listen = [ListenAddress(host: "127.0.0.1", port: 0), ListenAddress(host: "127.0.0.1", port: 0)]
    }

    func testTheAppsFlowOnTwoPortsWithoutACredential() async throws {
        try await db.eventually("both addresses are bound") { server.boundPort(1) != nil }
        let searchPort = try XCTUnwrap(server.boundPort(1))
        XCTAssertFalse(baseURL.hasSuffix(":\(searchPort)"))
        try await runTheAppsFlow(searchBase: "http://127.0.0.1:\(searchPort)")
    }
}

/// The caption route without a token, when the caption app is listed.
final class CaptionAnonymousAPITests: CaptionAPITestCase {
    override var sendsToken: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.anonymousApps = ["caption"]
    }

    func testTheCaptionRouteServesARequestWithoutAToken() async throws {
        let reply = try await caption(try body(try photo()))
        XCTAssertEqual(reply.status, 200, reply.text)
        let decoded = try JSONDecoder().decode(CaptionResponse.self, from: reply.body)
        XCTAssertTrue(decoded.success)
        XCTAssertFalse(decoded.data.caption.isEmpty)
        try assertCaptionError(try await caption(try body(try photo()), token: .some("not-a-token")), status: 401, code: "AUTH_001")
        // Mondrian is not listed: its routes still need a credential.
        try assertError(try await request(.GET, "/advisors"), status: 401, name: "AuthenticationError")
    }
}

/// Anonymous requests are limited per client address (`ATELIER_ANONYMOUS_RATE_LIMIT`), answered
/// in each app's own 429; requests with a credential are not charged to that budget.
final class AnonymousRateLimitTests: CaptionAPITestCase {
    override var runsWorker: Bool { false }
    override var sendsToken: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.anonymousApps = ["mondrian", "caption"]
        configuration.api.anonymousRateLimitPerMinute = 2
    }

    func testPastTheLimitAnonymousRequestsAre429InTheAppsShape() async throws {
        for _ in 0..<2 {
            let reply = try await request(.GET, "/advisors")
            XCTAssertEqual(reply.status, 200, reply.text)
        }
        let refused = try await request(.GET, "/advisors")
        try assertError(refused, status: 429, name: "RateLimitError")
        XCTAssertNotNil(refused.header("Retry-After"))
        let caption = try await caption(try body(try photo()))
        try assertCaptionError(caption, status: 429, code: "RATE_001")
        XCTAssertNotNil(caption.header("Retry-After"))
        // A caller with a token is not anonymous.
        let withToken = try await request(.GET, "/advisors", token: .some(token))
        XCTAssertEqual(withToken.status, 200, withToken.text)
    }
}

/// Without `ATELIER_ANONYMOUS_APPS` nothing changes: the apps' routes need a credential.
final class AnonymousAppsOffTests: CaptionAPITestCase {
    override var runsWorker: Bool { false }
    override var sendsToken: Bool { false }

    func testWithoutTheSettingTheAppsNeedACredential() async throws {
        try assertError(try await request(.GET, "/advisors"), status: 401, name: "AuthenticationError")
        try assertCaptionError(try await caption(try body(try photo())), status: 401, code: "AUTH_001")
    }
}
