import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import AtelierTestSupport
import Foundation
import XCTest

/// Bad input gets a clear 4xx and changes nothing.
final class ValidationTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.maxUploadBytes = 64 * 1024
    }

    func testBadRequestsAreRefusedAndStoreNothing() async throws {
        let png = TestImages.png()
        func post(_ fields: [(String, String)], image: Data? = nil) async throws -> Reply {
            let (body, type) = multipart(fields, image: image)
            return try await request(.POST, "/v1/jobs", body: body, contentType: type)
        }
        var reply = try await post([("kind", "teleport")], image: png)
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "kind")

        reply = try await post([("kind", "echo")])
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "image")

        reply = try await post([("kind", "sleep"), ("options", "{\"ms\": \"soon\"}")])
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "options.ms")

        reply = try await post([("kind", "noop"), ("options", "{not json")])
        try assertError(reply, status: 400, name: "ValidationError")

        reply = try await post([("kind", "echo")], image: Data("GIF89a this is not a supported image".utf8))
        try assertError(reply, status: 415, name: "UnsupportedMediaTypeError")

        reply = try await post([("kind", "echo")], image: Data())
        try assertError(reply, status: 400, name: "ValidationError")

        reply = try await request(.POST, "/v1/jobs", body: Data("kind=noop".utf8), contentType: "text/plain")
        try assertError(reply, status: 415, name: "UnsupportedMediaTypeError")

        reply = try await request(.POST, "/v1/jobs", body: Data("{\"kind\": \"noop\", \"extra\": 1}".utf8), contentType: "application/json")
        try assertError(reply, status: 400, name: "ValidationError")

        for bad in ["0", "-1", "86401", "soon", "1e999", "NaN"] {
            reply = try await post([("kind", "noop"), ("timeout_s", bad)])
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "timeout_s", bad)
        }
        for bad in [#""30""#, "0", "-5", "86400.5", "true", "[1]"] {
            reply = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "noop", "timeout_s": \#(bad)}"#.utf8),
                                      contentType: "application/json")
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "timeout_s", bad)
        }

        for bad in [#""k""#, #"{"key": ""}"#, #"{"key": 5}"#, #"{"period_s": 0}"#, #"{"period_s": 2592001}"#, #"{"other": 1}"#] {
            reply = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "noop", "unique": \#(bad)}"#.utf8),
                                      contentType: "application/json")
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertTrue(try (reply.json()["details"] as? [String: String])?["field"]?.hasPrefix("unique") ?? false, bad)
        }

        // A truncated multipart body (no closing boundary).
        let (body, type) = multipart([("kind", "echo")], image: png)
        reply = try await request(.POST, "/v1/jobs", body: body.prefix(body.count - 30), contentType: type)
        try assertError(reply, status: 400, name: "ValidationError")

        // Larger than the limit: 413, whether or not Content-Length announces it.
        let big = multipart([("kind", "echo")], image: png + Data(count: 70 * 1024))
        reply = try await request(.POST, "/v1/jobs", body: big.0, contentType: big.1)
        try assertError(reply, status: 413, name: "PayloadTooLargeError")

        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(jobs, 0, "no bad request created a job")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)) ?? []
        XCTAssertEqual(stored, [], "no bad request stored a blob")
    }

    func testImagesAreCheckedFromTheirHeaderBeforeAnythingIsStored() async throws {
        func post(_ image: Data) async throws -> Reply {
            let (body, type) = multipart([("style_id", "sketch")], image: image)
            return try await request(.POST, "/v1/jobs", body: body, contentType: type)
        }
        // 100000 × 100000 pixels claimed by a 60-byte file: refused from the header.
        var reply = try await post(TestImages.pngHeader(width: 100_000, height: 100_000))
        try assertError(reply, status: 413, name: "PayloadTooLargeError")
        XCTAssertTrue(reply.text.contains("100000x100000"), reply.text)
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "image")
        // Within the side limit but over 50 MP.
        reply = try await post(TestImages.pngHeader(width: 10_000, height: 8_000))
        try assertError(reply, status: 413, name: "PayloadTooLargeError")
        // A JPEG cut inside its header, a PNG with only its signature: damaged → 400 on `image`.
        let jpeg = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 64, height: 48, channels: 3, fill: 90)))
        for damaged in [jpeg.prefix(100), TestImages.png().prefix(8), Data([0xFF, 0xD8, 0xFF])] {
            reply = try await post(Data(damaged))
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "image", reply.text)
        }
        // A WebP signature over random bytes: still not an image.
        reply = try await post(Data("RIFF\u{10}\0\0\0WEBPVP8 ".utf8) + Data(repeating: 0x5A, count: 64))
        try assertError(reply, status: 400, name: "ValidationError")

        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(jobs, 0)
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)) ?? []
        XCTAssertEqual(stored, [], "nothing stored")
    }

    func testJSONBodyWithBase64Image() async throws {
        let png = TestImages.png()
        let body = try JSONSerialization.data(withJSONObject: [
            "kind": "echo", "image": "data:image/png;base64," + png.base64EncodedString()])
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        let done = try await waitForCompletion(try XCTUnwrap(reply.json()["id"] as? String))
        let url = try XCTUnwrap(done["result_url"] as? String)
        try await XCTAssertEqualAsync(try await request(.GET, url, token: .some(nil)).body, png)
    }

    /// `unique`: the same work asked for again while it is queued, running or recent gets the
    /// first job back (`"duplicate": true`, 200); the key defaults to a hash of the input.
    func testAUniqueJobAskedForAgainIsTheSameJob() async throws {
        func post(_ json: String) async throws -> (status: Int, id: String, duplicate: Bool?) {
            let reply = try await request(.POST, "/v1/jobs", body: Data(json.utf8), contentType: "application/json")
            let body = try reply.json()
            return (reply.status, try XCTUnwrap(body["id"] as? String, reply.text), body["duplicate"] as? Bool)
        }
        let first = try await post(#"{"kind": "sleep", "options": {"ms": 60000}, "unique": {"key": "nightly", "period_s": 60}}"#)
        XCTAssertEqual(first.status, 200)
        XCTAssertNil(first.duplicate, "a new job says nothing about duplicates")
        let again = try await post(#"{"kind": "sleep", "options": {"ms": 5}, "unique": {"key": "nightly"}}"#)
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.id, first.id)
        XCTAssertEqual(again.duplicate, true)

        // No key: the kind and the input decide. The same options in another order are the same work.
        let hashed = try await post(#"{"kind": "sleep", "options": {"ms": 60000, "note": "a"}, "unique": {}}"#)
        let same = try await post(#"{"kind": "sleep", "options": {"note": "a", "ms": 60000}, "unique": {}}"#)
        let other = try await post(#"{"kind": "sleep", "options": {"ms": 59999, "note": "a"}, "unique": {}}"#)
        XCTAssertEqual(same.id, hashed.id)
        XCTAssertEqual(same.duplicate, true)
        XCTAssertNotEqual(other.id, hashed.id)
        XCTAssertNil(other.duplicate)

        let png = TestImages.png()
        let (body, type) = multipart([("kind", "echo"), ("unique", "{}")], image: png)
        let upload = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let reupload = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(try reupload.json()["id"] as? String, try upload.json()["id"] as? String)
        XCTAssertEqual(try reupload.json()["duplicate"] as? Bool, true)
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)) ?? []
        XCTAssertEqual(folders.count, 1, "the duplicate's upload was not kept")
    }

    /// `timeout_s` is stored with the job, from a JSON body or a form field; without it the job
    /// has none of its own.
    func testATimeoutTravelsWithTheJob() async throws {
        var reply = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "noop", "timeout_s": 2.5}"#.utf8),
                                      contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        var id = try XCTUnwrap(try reply.json()["id"] as? String)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT timeout_ms FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: Int?.self), 2500)

        let (body, type) = multipart([("kind", "noop"), ("timeout_s", " 30 ")])
        reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(reply.status, 200, reply.text)
        id = try XCTUnwrap(try reply.json()["id"] as? String)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT timeout_ms FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: Int?.self), 30000)
        let options = try await db.scalar("SELECT payload::text FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: String.self)
        XCTAssertFalse(options.contains("timeout_s"), "a field of the job, not an option")

        reply = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "noop"}"#.utf8), contentType: "application/json")
        id = try XCTUnwrap(try reply.json()["id"] as? String)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT timeout_ms FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: Int?.self), nil)
    }

    /// An index job refuses an option it does not read (a misspelt `source_key` would otherwise
    /// index under no key), as the document's `additionalProperties: false` says.
    func testAnIndexJobRefusesAnOptionItDoesNotRead() async throws {
        let reply = try await request(.POST, "/v1/jobs", body: Data(#"{"kind": "index", "options": {"text": "a sky", "sourcekey": "x"}}"#.utf8),
                                      contentType: "application/json")
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual((try reply.json()["details"] as? [String: Any])?["field"] as? String, "sourcekey")
    }

    /// A stream's `last_event_id` query is checked even when a `Last-Event-ID` header wins over
    /// it: a malformed value anywhere is a 400 naming it, never silently ignored.
    func testAMalformedLastEventIDQueryIsRefusedWhereverItIs() async throws {
        let id = try await createJob(kind: "noop")
        _ = try await waitForCompletion(id)
        for bad in ["40330446129419886899220185088", "-1", "abc"] {
            let reply = try await request(.GET, "/v1/jobs/\(id)/events?last_event_id=\(bad)", headers: [("Last-Event-ID", "2")])
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual((try reply.json()["details"] as? [String: Any])?["field"] as? String, "last_event_id", bad)
        }
    }
}

/// The blob and the job row are one unit: a failed insert leaves no input behind.
final class ConsistencyTests: APITestCase {
    func testNoOrphanBlobWhenTheInsertFails() async throws {
        try await refuseJobInserts()
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 500, name: "InternalServerError")
        XCTAssertTrue((try reply.json()["message"] as? String ?? "").contains(reply.header("X-Request-ID") ?? "-"),
                      "a 500 names the request id to quote, and nothing internal")
        XCTAssertEqual(try reply.json()["requestId"] as? String, reply.header("X-Request-ID"), "and in requestId, as the fleet app reads it")
        XCTAssertFalse(reply.text.contains("refused by the test"), "database errors do not leak")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)) ?? []
        XCTAssertEqual(stored, [], "the input written before the failed insert was removed")
    }

    /// A job whose commit fails is not answered as created (docs/reliability.md, "A commit the
    /// caller can trust"), and its input goes with it.
    func testNoJobAnsweredWhenItsCommitFails() async throws {
        try await db.failCommitsOfJobs()
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 500, name: "InternalServerError")
        XCTAssertFalse(reply.text.contains("refused by the test"), "database errors do not leak")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self), 0)
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: blobRoot.appendingPathComponent("blobs/jobs").path)) ?? []
        XCTAssertEqual(stored, [], "the input written before the failed commit was removed")
    }
}
