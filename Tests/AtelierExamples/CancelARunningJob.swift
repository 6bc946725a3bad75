import AtelierAPITestSupport
import Foundation
import XCTest

/// Cancel a running job: `DELETE /v1/jobs/{id}` (or `POST /v1/jobs/{id}/cancel`) answers `202`.
/// A queued job is cancelled at once; a running one is flagged, its worker is told, and the
/// handler stops at its next check. The job then reads `status: failed`, `state: cancelled`,
/// with an `error` saying so. Cancelling again is harmless.
final class CancelARunningJob: APITestCase {
    func testCancelAJobWhileItRuns() async throws {
        let created = try await send(.POST, "\(baseURL)/v1/jobs",
                                     headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                     body: #"{"kind": "sleep", "options": {"ms": 600000}}"#)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        try await db.eventually("a worker runs the job") {
            try await send(.GET, "\(baseURL)/v1/jobs/\(id)", headers: ["X-App-Token": token]).json()["state"] as? String == "running"
        }

        let cancel = try await send(.DELETE, "\(baseURL)/v1/jobs/\(id)", headers: ["X-App-Token": token])
        XCTAssertEqual(cancel.status, 202, cancel.text)

        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "failed")
        XCTAssertEqual(done["state"] as? String, "cancelled")
        XCTAssertTrue((done["error"] as? String ?? "").contains("cancelled"), "\(done)")
        let history = try await readEvents("\(baseURL)/v1/jobs/\(id)/events", headers: ["X-App-Token": token]).compactMap(\.name)
        XCTAssertEqual(history.last, "cancelled", "\(history)")
        XCTAssertFalse(history.contains("succeeded"), "the handler stopped instead of finishing its ten minutes")

        let again = try await send(.POST, "\(baseURL)/v1/jobs/\(id)/cancel", headers: ["X-App-Token": token])
        XCTAssertEqual(again.status, 202, "cancelling a cancelled job is idempotent")
    }
}
