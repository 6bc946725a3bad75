import AsyncHTTPClient
import AtelierAPITestSupport
import AtelierQueue
import AtelierWorker
import Foundation
import Logging
import XCTest

/// Create → poll → result, over real HTTP against the real database and an in-process worker.
final class JobsAPITests: APITestCase {
    func testCreatePollSucceedAndDownloadTheResult() async throws {
        let image = TestImages.png(width: 40, height: 30)
        let (body, type) = multipart([("kind", "echo")], image: image)
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let job = try created.json()
        let id = try XCTUnwrap(job["id"] as? String)
        XCTAssertEqual(job["kind"] as? String, "echo")
        XCTAssertEqual(job["status"] as? String, "pending")
        XCTAssertEqual(job["status_url"] as? String, "\(baseURL)/v1/jobs/\(id)")
        XCTAssertEqual(job["stream_url"] as? String, "\(baseURL)/v1/jobs/\(id)/events")

        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded")
        XCTAssertEqual(done["state"] as? String, "succeeded")
        XCTAssertTrue(done["error"] is NSNull, "error is an explicit null (docs/clients.md §3)")
        let resultURL = try XCTUnwrap(done["result_url"] as? String)
        XCTAssertTrue(resultURL.hasPrefix("\(baseURL)/results/jobs/\(id)/result.png?expires="), resultURL)

        // A plain GET with no credential fetches the result.
        let download = try await request(.GET, resultURL, token: .some(nil))
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.body, image, "echo returns its input unchanged")
        XCTAssertEqual(download.header("Content-Type"), "image/png")
        XCTAssertEqual(download.header("Content-Length"), String(image.count))
        XCTAssertNotNil(download.header("ETag"))
        XCTAssertTrue(download.header("Cache-Control")?.contains("max-age=") == true)
    }

    func testPendingJobHasNullResultURLAndCancelledIsFailedWithAnError() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 60_000])
        let pending = try await request(.GET, "/v1/jobs/\(id)").json()
        XCTAssertEqual(pending["status"] as? String, "pending")
        XCTAssertTrue(pending["result_url"] is NSNull)
        XCTAssertTrue(pending["error"] is NSNull)

        let cancel = try await request(.DELETE, "/v1/jobs/\(id)")
        XCTAssertEqual(cancel.status, 202, cancel.text)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "failed")
        XCTAssertEqual(done["state"] as? String, "cancelled")
        XCTAssertTrue((done["error"] as? String ?? "").contains("cancelled"))

        let again = try await request(.POST, "/v1/jobs/\(id)/cancel")
        XCTAssertEqual(again.status, 202, "cancelling a cancelled job is idempotent")
        let finished = try await createJob(kind: "noop")
        _ = try await waitForCompletion(finished)
        try assertError(try await request(.DELETE, "/v1/jobs/\(finished)"), status: 409, name: "ConflictError")
    }

    func testETagAnswers304UntilTheJobChanges() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 400])
        let first = try await request(.GET, "/v1/jobs/\(id)")
        let etag = try XCTUnwrap(first.header("ETag"))
        let cached = try await request(.GET, "/v1/jobs/\(id)", headers: [("If-None-Match", etag)])
        if cached.status == 304 {
            XCTAssertTrue(cached.body.isEmpty)
            XCTAssertEqual(cached.header("ETag"), etag)
        } else {
            XCTAssertEqual(cached.status, 200, "the job may have started in between: then the tag must differ")
            XCTAssertNotEqual(cached.header("ETag"), etag)
        }
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded")
        let after = try await request(.GET, "/v1/jobs/\(id)", headers: [("If-None-Match", etag)])
        XCTAssertEqual(after.status, 200, "a finished job no longer matches the pending job's tag")
        let finalTag = try XCTUnwrap(after.header("ETag"))
        XCTAssertNotEqual(finalTag, etag)
        for _ in 0..<3 {
            let repeatPoll = try await request(.GET, "/v1/jobs/\(id)", headers: [("If-None-Match", finalTag)])
            XCTAssertEqual(repeatPoll.status, 304)
        }
    }

    func testIdempotencyKeyReturnsTheFirstJobAndStoresOneInput() async throws {
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let first = try await request(.POST, "/v1/jobs", headers: [("Idempotency-Key", "upload-42")], body: body, contentType: type)
        let second = try await request(.POST, "/v1/jobs", headers: [("Idempotency-Key", "upload-42")], body: body, contentType: type)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(second.status, 200)
        let id = try XCTUnwrap(first.json()["id"] as? String)
        XCTAssertEqual(try second.json()["id"] as? String, id)
        XCTAssertEqual(second.header("Idempotent-Replayed"), "true")
        XCTAssertNil(first.header("Idempotent-Replayed"))
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 1)
        let folders = try FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)
        XCTAssertEqual(folders, [id], "the replay stored no second input")
    }

    func testRequestIDIsEchoedAndStoredOnTheJob() async throws {
        let id = try await createJob(kind: "noop", headers: [("X-Request-ID", "trace-abc-123")])
        let job = try await request(.GET, "/v1/jobs/\(id)", headers: [("X-Request-ID", "poll-1")])
        XCTAssertEqual(job.header("X-Request-ID"), "poll-1")
        XCTAssertNotNil(job.header("X-Response-Time"))
        XCTAssertEqual(try job.json()["request_id"] as? String, "trace-abc-123")
        let generated = try await request(.GET, "/v1/jobs/\(id)", headers: [("X-Request-ID", "bad id with spaces")])
        XCTAssertNotEqual(generated.header("X-Request-ID"), "bad id with spaces", "unsafe ids are replaced")
        XCTAssertEqual(generated.header("X-Request-ID")?.count, 36)
    }

    func testListIsPaginatedAndFiltered() async throws {
        for _ in 0..<5 { _ = try await createJob(kind: "noop") }
        let sleeper = try await createJob(kind: "sleep", options: ["ms": 60_000])
        let page = try await request(.GET, "/v1/jobs?page=2&limit=2").json()
        let data = try XCTUnwrap(page["data"] as? [[String: Any]])
        XCTAssertEqual(data.count, 2)
        let pagination = try XCTUnwrap(page["pagination"] as? [String: Any])
        XCTAssertEqual(pagination["page"] as? Int, 2)
        XCTAssertEqual(pagination["limit"] as? Int, 2)
        XCTAssertEqual(pagination["total"] as? Int, 6)
        XCTAssertEqual(pagination["pages"] as? Int, 3)
        XCTAssertEqual(pagination["hasNextPage"] as? Bool, true)
        XCTAssertEqual(pagination["hasPreviousPage"] as? Bool, true)
        let sleeping = try await request(.GET, "/v1/jobs?kind=sleep").json()
        XCTAssertEqual((sleeping["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [sleeper])
        // A kind holding NUL (schemathesis sent one: PostgreSQL refused it, a 500) names no job.
        let nul = try await request(.GET, "/v1/jobs?kind=%00x")
        XCTAssertEqual(nul.status, 200, nul.text)
        XCTAssertEqual((try nul.json()["data"] as? [Any])?.count, 0)
        let mixed = try await request(.GET, "/v1/jobs?kind=sleep,%C2%B2%00").json()
        XCTAssertEqual((mixed["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [sleeper])
        try assertError(try await request(.GET, "/v1/jobs?limit=1000"), status: 400, name: "ValidationError")
        try assertError(try await request(.GET, "/v1/jobs?status=sleeping"), status: 400, name: "ValidationError")
        _ = try await request(.DELETE, "/v1/jobs/\(sleeper)")
    }

    func testPurgedJobsLoseTheirFiles() async throws {
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        _ = try await waitForCompletion(id)
        let folder = blobRoot.appendingPathComponent("blobs/jobs/\(id)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["input.png", "result.png"])
        let purged = try await queue.maintenance.purgeFinished(olderThan: .zero)
        XCTAssertEqual(purged.map { $0.uuidString.lowercased() }, [id])
        await JobPurger.removeBlobs(of: purged, from: server.blobs, logger: Logger(label: "test"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
        try assertError(try await request(.GET, "/v1/jobs/\(id)"), status: 404, name: "NotFoundError")
    }
}
