import AsyncHTTPClient
import AtelierAPI
import AtelierAPITestSupport
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// The API and its worker on the S3 blob store (the SeaweedFS of ./ops/test): results are
/// downloaded from the store by pre-signed URL, and a failed insert leaves no object behind.
final class ObjectStoreAPITests: APITestCase {
    override func makeBlobStore(directory: URL) throws -> any BlobStore {
        try TestObjectStore.make()
    }

    func testTheResultURLIsAPresignedGetOnTheObjectStore() async throws {
        let png = TestImages.png()
        let (body, type) = multipart([("kind", "echo")], image: png)
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(reply.status, 200, reply.text)
        let done = try await waitForCompletion(try XCTUnwrap(reply.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded")
        let url = try XCTUnwrap(done["result_url"] as? String)
        let endpoint = try XCTUnwrap(ProcessInfo.processInfo.environment["ATELIER_TEST_S3_ENDPOINT"])
        XCTAssertTrue(url.hasPrefix(endpoint + "/"), "straight from the store, not through the API: \(url)")
        XCTAssertTrue(url.contains("X-Amz-Signature="), url)
        XCTAssertTrue(url.contains("response-content-type=image%2Fpng"), url)
        let download = try await request(.GET, url, token: .some(nil))
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.body, png)
        XCTAssertEqual(download.header("Content-Type"), "image/png")
    }

    func testNoOrphanObjectWhenTheInsertFails() async throws {
        try await refuseJobInserts()
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 500, name: "InternalServerError")
        let stored = try await blobs.folders(under: "jobs", changedBefore: Date().addingTimeInterval(3600))
        XCTAssertEqual(stored, [], "the input written before the failed insert was removed from the bucket")
    }

    func testHealthChecksTheObjectStore() async throws {
        let reply = try await request(.GET, "/health", token: .some(nil))
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(try reply.json()["checks"] as? [String: String], ["database": "ok", "storage": "ok", "listener": "ok"])
    }
}

/// The object store goes down mid-test (``ObjectStoreGate`` cuts the API's way to the real
/// SeaweedFS): /health turns degraded, and a job that needs an upload is refused with 503 and
/// Retry-After — with no job row and no object, since the upload is written before the row. When
/// the store is back, so is the API.
final class ObjectStoreDownAPITests: APITestCase {
    private var gate: ObjectStoreGate!

    override var runsWorker: Bool { false }

    override func makeBlobStore(directory: URL) throws -> any BlobStore {
        gate = try ObjectStoreGate()
        return try TestObjectStore.behind(gate)
    }

    override func tearDown() async throws {
        gate?.stop()
        try await super.tearDown()
    }

    private func storedFolders() async throws -> [String] {
        let store = try TestObjectStore.direct(try XCTUnwrap(blobs as? S3BlobStore))
        return try await store.folders(under: "jobs", changedBefore: Date().addingTimeInterval(3600))
    }

    func testAStoreThatGoesDownIsA503AndStoresNothing() async throws {
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let before = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(before.status, 200, "the store is up: \(before.text)")
        let folders = try await storedFolders()
        XCTAssertEqual(folders.count, 1)

        gate.shut()
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 503, name: "ServiceUnavailableError")
        XCTAssertNotNil(reply.header("Retry-After"), "a 503 says when to retry")
        XCTAssertFalse(reply.text.contains("127.0.0.1"), "nothing about the store leaks: \(reply.text)")
        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(jobs, 1, "no job row without its upload")
        let after = try await storedFolders()
        XCTAssertEqual(after, folders, "and no object")

        // A job that needs no upload is still accepted: only the store is down.
        let noop = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "noop"}"#.utf8), contentType: "application/json")
        XCTAssertEqual(noop.status, 200, noop.text)

        gate.open()
        let back = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(back.status, 200, "the store is back: \(back.text)")
    }

    func testHealthIsDegradedWhenTheStoreIsDown() async throws {
        gate.shut()
        let reply = try await request(.GET, "/health", token: .some(nil))
        XCTAssertEqual(reply.status, 503, reply.text)
        let report = try reply.json()
        XCTAssertEqual(report["status"] as? String, "degraded")
        XCTAssertEqual(report["checks"] as? [String: String], ["database": "ok", "storage": "error", "listener": "ok"])
        XCTAssertTrue((report["message"] as? String ?? "").contains("storage"))
    }
}
