import AtelierAPI
import AtelierAPITestSupport
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// Pre-signed result URLs: valid, expired, tampered, signed with another key; Range and ETag.
final class ResultURLTests: APITestCase {
    func makeResult() async throws -> (url: String, key: BlobKey, image: Data) {
        let image = TestImages.png(width: 64, height: 64)
        let (body, type) = multipart([("kind", "echo")], image: image)
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        let url = try XCTUnwrap(done["result_url"] as? String)
        return (url, BlobKey.jobResult(UUID(uuidString: id)!, fileExtension: "png"), image)
    }

    func testSignedURLValidExpiredTamperedAndWrongKey() async throws {
        let (url, key, image) = try await makeResult()
        try await XCTAssertEqualAsync(try await request(.GET, url, token: .some(nil)).body, image)

        let signer = server.signer
        let past = Int(Date().timeIntervalSince1970) - 10
        let expired = "\(baseURL)/results/\(key.path)?expires=\(past)&signature=\(signer.signature(for: key, expires: past))"
        let expiredReply = try await request(.GET, expired, token: .some(nil))
        try assertError(expiredReply, status: 403, name: "AuthorizationError")
        XCTAssertTrue(try expiredReply.json()["message"] as? String ?? "" == "this result URL has expired; fetch the job again for a fresh one")

        let future = Int(Date().timeIntervalSince1970) + 3600
        let stretched = url.replacingOccurrences(of: #"expires=\d+"#, with: "expires=\(future + 999)", options: .regularExpression)
        try assertError(try await request(.GET, stretched, token: .some(nil)), status: 403, name: "AuthorizationError")

        var tampered = url
        tampered.removeLast()
        tampered.append(url.hasSuffix("A") ? "B" : "A")
        try assertError(try await request(.GET, tampered, token: .some(nil)), status: 403, name: "AuthorizationError")

        let otherKey = try URLSigner(secret: String(repeating: "another-secret-", count: 3))
        let forged = "\(baseURL)/results/\(key.path)?expires=\(future)&signature=\(otherKey.signature(for: key, expires: future))"
        try assertError(try await request(.GET, forged, token: .some(nil)), status: 403, name: "AuthorizationError")

        let otherFile = BlobKey.jobResult(UUID(), fileExtension: "png")
        let moved = url.replacingOccurrences(of: key.path, with: otherFile.path)
        try assertError(try await request(.GET, moved, token: .some(nil)), status: 403, name: "AuthorizationError")

        let traversal = "\(baseURL)/results/jobs/../../etc/passwd?expires=\(future)&signature=x"
        let traversalReply = try await request(.GET, traversal, token: .some(nil))
        XCTAssertTrue([403, 404].contains(traversalReply.status), "\(traversalReply.status)")
        XCTAssertFalse(traversalReply.text.contains("root:"))

        try assertError(try await request(.GET, "\(baseURL)/results/\(key.path)", token: .some(nil)), status: 403, name: "AuthorizationError")
    }

    func testRangeAndConditionalRequests() async throws {
        let (url, _, image) = try await makeResult()
        let part = try await request(.GET, url, token: .some(nil), headers: [("Range", "bytes=8-23")])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.body, image.subdata(in: 8..<24))
        XCTAssertEqual(part.header("Content-Range"), "bytes 8-23/\(image.count)")
        let tail = try await request(.GET, url, token: .some(nil), headers: [("Range", "bytes=-12")])
        XCTAssertEqual(tail.body, image.suffix(12))
        let beyond = try await request(.GET, url, token: .some(nil), headers: [("Range", "bytes=\(image.count + 5)-")])
        try assertError(beyond, status: 416, name: "RangeNotSatisfiableError")
        XCTAssertEqual(beyond.header("Content-Range"), "bytes */\(image.count)")

        // Hostile ranges (the first one used to trap the server on end + 1) get 200/206/416.
        for (header, status) in [("bytes=0-9223372036854775807", 206), ("bytes=9223372036854775807-", 416),
                                 ("bytes=-99999999999999999999", 206), ("bytes=9-3", 200), ("bytes=0-1,4-5", 200),
                                 ("bytes=+1-2", 200), ("bytes=abc-", 200), ("lines=1-2", 200)] {
            let reply = try await request(.GET, url, token: .some(nil), headers: [("Range", header)])
            XCTAssertEqual(reply.status, status, header)
            if status == 206 { XCTAssertEqual(reply.body, image, header) }
        }

        let full = try await request(.GET, url, token: .some(nil))
        let etag = try XCTUnwrap(full.header("ETag"))
        let again = try await request(.GET, url, token: .some(nil), headers: [("If-None-Match", etag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        let head = try await request(.HEAD, url, token: .some(nil))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), String(image.count))
    }
}
