import AtelierAPITestSupport
import Foundation
import XCTest

/// Make a retried request safe with `Idempotency-Key`: a client that did not hear the answer
/// (a timeout, a dropped connection) sends the same request again with the same key and gets
/// the first job back, marked `Idempotent-Replayed: true`, instead of a second job. Keys are
/// per owner; another key is another job.
final class EnqueueIdempotently: APITestCase {
    func testTheSameKeyReturnsTheFirstJob() async throws {
        let headers = ["X-App-Token": token, "Content-Type": "application/json", "Idempotency-Key": "order-1042-thumbnail"]
        let body = #"{"kind": "noop"}"#
        let first = try await send(.POST, "\(baseURL)/v1/jobs", headers: headers, body: body)
        let retried = try await send(.POST, "\(baseURL)/v1/jobs", headers: headers, body: body)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(retried.status, 200, retried.text)
        let id = try XCTUnwrap(try first.json()["id"] as? String)
        XCTAssertEqual(try retried.json()["id"] as? String, id)
        XCTAssertNil(first.header("Idempotent-Replayed"))
        XCTAssertEqual(retried.header("Idempotent-Replayed"), "true")

        let other = try await send(.POST, "\(baseURL)/v1/jobs",
                                   headers: headers.merging(["Idempotency-Key": "order-1043-thumbnail"]) { $1 }, body: body)
        XCTAssertNotEqual(try other.json()["id"] as? String, id, "another key, another job")

        let list = try await send(.GET, "\(baseURL)/v1/jobs?kind=noop", headers: ["X-App-Token": token]).json()
        XCTAssertEqual((list["pagination"] as? [String: Any])?["total"] as? Int, 2)
    }
}
