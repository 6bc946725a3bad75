import AtelierAPITestSupport
import Foundation
import XCTest

/// Enqueue a job over HTTP and wait for it: `POST /v1/jobs` with your app token answers at once
/// with the job's id and its `status_url`; poll that URL until `status` is no longer `pending`,
/// then read the `result`. Polling is cheap: send the last `ETag` as `If-None-Match` and an
/// unchanged job answers `304` with no body.
final class EnqueueAJob: APITestCase {
    func testEnqueueThenPollUntilItFinishes() async throws {
        let created = try await send(.POST, "\(baseURL)/v1/jobs",
                                     headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                     body: #"{"kind": "sleep", "options": {"ms": 300}}"#)
        XCTAssertEqual(created.status, 200, created.text)
        let job = try created.json()
        XCTAssertEqual(job["kind"] as? String, "sleep")
        XCTAssertEqual(job["status"] as? String, "pending", "queued and running are both pending")
        let statusURL = try XCTUnwrap(job["status_url"] as? String)

        var status: [String: Any] = [:]
        try await db.eventually("the job finishes") {
            status = try await send(.GET, statusURL, headers: ["X-App-Token": token]).json()
            return status["status"] as? String != "pending"
        }
        XCTAssertEqual(status["status"] as? String, "succeeded")
        XCTAssertEqual(status["result"] as? [String: Int], ["slept_ms": 300])
        XCTAssertEqual(status["progress"] as? Int, 100)
        XCTAssertTrue(status["error"] is NSNull)

        // A finished job no longer changes: its ETag answers 304 from now on.
        let poll = try await send(.GET, statusURL, headers: ["X-App-Token": token])
        let etag = try XCTUnwrap(poll.header("ETag"))
        let again = try await send(.GET, statusURL, headers: ["X-App-Token": token, "If-None-Match": etag])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
    }
}
