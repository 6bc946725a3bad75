import AsyncHTTPClient
@testable import AtelierStorage
import AtelierTestSupport
import Foundation
import NIOCore
import XCTest

/// What only the object store does, against the real SeaweedFS of ./ops/test, which checks
/// every signature: pre-signed URLs a plain HTTP client can follow (and only as signed), a
/// wrong secret refused, a store that is down reported as unavailable, long listings paged.
final class S3BlobStoreTests: XCTestCase {
    private var store: S3BlobStore!
    private var http: HTTPClient!

    override func setUp() async throws {
        try await super.setUp()
        store = try TestObjectStore.make()
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    override func tearDown() async throws {
        if let store { await TestObjectStore.clean(store) }
        try? await http?.shutdown()
        try await super.tearDown()
    }

    private func get(_ url: String) async throws -> (status: UInt, headers: [String: String], body: Data) {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        var buffer = try await response.body.collect(upTo: 16 * 1024 * 1024)
        let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        return (response.status.code, headers, Data(buffer.readBytes(length: buffer.readableBytes) ?? []))
    }

    func testAPresignedURLServesTheBlobWithItsContentType() async throws {
        let key = BlobKey.jobResult(UUID(), name: "report", fileExtension: "html")
        let html = Data("<!DOCTYPE html><p>ok</p>".utf8)
        try await store.put(html, at: key)
        let url = try XCTUnwrap(store.presignedURL(for: key, issued: Date().addingTimeInterval(-120), lifetime: 3600))
        let answer = try await get(url)
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(answer.body, html)
        XCTAssertEqual(answer.headers["content-type"], "text/html; charset=utf-8", "response-content-type names it")
    }

    func testTheStoreRefusesWhatWasNotSignedSo() async throws {
        let key = BlobKey.jobResult(UUID(), fileExtension: "jpg")
        try await store.put(Data("secret bytes".utf8), at: key)
        let url = try XCTUnwrap(store.presignedURL(for: key, issued: Date().addingTimeInterval(-60), lifetime: 3600))
        let good = try await get(url)
        XCTAssertEqual(good.status, 200)

        // Another signature, another key, an expired URL, no signature at all: 403 every time.
        let last = url.last!
        let tampered = String(url.dropLast()) + (last == "0" ? "1" : "0")
        let tamperedAnswer = try await get(tampered)
        XCTAssertEqual(tamperedAnswer.status, 403)
        let otherKey = url.replacingOccurrences(of: "result.jpg", with: "input.jpg")
        let otherAnswer = try await get(otherKey)
        XCTAssertEqual(otherAnswer.status, 403)
        let expired = try XCTUnwrap(store.presignedURL(for: key, issued: Date().addingTimeInterval(-7200), lifetime: 3600))
        let expiredAnswer = try await get(expired)
        XCTAssertEqual(expiredAnswer.status, 403)
        let anonymous = try await get(String(url.prefix(while: { $0 != "?" })))
        XCTAssertEqual(anonymous.status, 403)
        let wrongSecret = try TestObjectStore.withWrongSecret()
        let forged = try XCTUnwrap(wrongSecret.presignedURL(for: key, issued: Date().addingTimeInterval(-60), lifetime: 3600))
        let forgedAnswer = try await get(forged.replacingOccurrences(of: wrongSecret.configuration.keyPrefix, with: store.configuration.keyPrefix))
        XCTAssertEqual(forgedAnswer.status, 403)
    }

    /// Requests signed with the wrong secret are refused by the server; the error names the
    /// settings to check and carries none of the store's XML.
    func testAWrongSecretIsAConfigurationError() async throws {
        let store = try TestObjectStore.withWrongSecret()
        do {
            try await store.put(Data("x".utf8), at: BlobKey.jobInput(UUID(), fileExtension: "jpg"))
            XCTFail("a wrong secret must be refused")
        } catch {
            guard case .configuration(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("HTTP 403"), message)
            XCTAssertTrue(message.contains("ATELIER_S3_SECRET_ACCESS_KEY"), message)
            XCTAssertFalse(message.contains("<"), "no XML: \(message)")
        }
        do {
            try await store.check()
            XCTFail("the health check fails too")
        } catch {}
    }

    func testAStoreThatIsDownIsUnavailable() async throws {
        let down = try TestObjectStore.unreachable(attempts: 3)
        do {
            try await down.put(Data("x".utf8), at: BlobKey.jobInput(UUID(), fileExtension: "jpg"))
            XCTFail("nothing listens there")
        } catch {
            guard case .unavailable(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("the object store cannot be reached (PUT jobs/"), message)
            XCTAssertTrue(message.hasSuffix(", after 3 attempts)"), message)
            XCTAssertFalse(message.contains("127.0.0.1"), "no address in what a client may see: \(message)")
        }
        do {
            try await down.check()
            XCTFail("the health check fails")
        } catch {
            guard case .unavailable = error else { return XCTFail("\(error)") }
        }
        do {
            _ = try await down.folders(under: "jobs", changedBefore: Date())
            XCTFail("listing fails")
        } catch {}
    }

    /// `atelier migrate --create-bucket`: the first call makes the bucket, which then takes
    /// writes; a second call finds it there and changes nothing.
    func testCreateBucketMakesItOnceAndThenFindsIt() async throws {
        var configuration = store.configuration
        configuration.bucket = "atelier-made-\(UUID().uuidString.prefix(8).lowercased())"
        configuration.keyPrefix = ""
        let fresh = try TestObjectStore.make(configuration)
        let created = try await fresh.createBucket()
        XCTAssertTrue(created)
        let key = try BlobKey("jobs/made/input.jpg")
        try await fresh.put(Data("x".utf8), at: key)
        let again = try await fresh.createBucket()
        XCTAssertFalse(again, "already there")
        let kept = try await fresh.read(key, range: nil)
        XCTAssertEqual(kept, Data("x".utf8), "a second call leaves the bucket as it was")
        try await fresh.delete(key)
        _ = try await fresh.transport.send(.init(method: .DELETE, key: nil, operation: "DELETE bucket", accepted: [404, 409]))
    }

    /// Listings longer than a page are followed to the end (continuation tokens).
    func testLongListingsArePaged() async throws {
        let ids = (0..<7).map { _ in UUID() }
        for id in ids { try await store.put(Data("x".utf8), at: BlobKey.jobInput(id, fileExtension: "jpg")) }
        let objects = try await store.list(prefix: store.configuration.keyPrefix + "jobs/", pageSize: 2)
        XCTAssertEqual(objects.count, 7)
        XCTAssertEqual(Set(objects.map(\.key)), Set(ids.map { store.configuration.keyPrefix + BlobKey.jobInput($0, fileExtension: "jpg").path }))
    }

    /// With ATELIER_S3_PUBLIC_ENDPOINT, URLs name the public host and are signed for it: the
    /// store, reached by that name, accepts them.
    func testPublicEndpointURLsAreSignedForThePublicHost() async throws {
        var configuration = store.configuration
        let port = try XCTUnwrap(URLComponents(string: configuration.endpoint)?.port)
        configuration.publicEndpoint = "http://localhost:\(port)"
        let publicStore = try TestObjectStore.make(configuration)
        let key = BlobKey.jobResult(UUID(), fileExtension: "png")
        try await publicStore.put(Data("png".utf8), at: key)
        let url = try XCTUnwrap(publicStore.presignedURL(for: key, issued: Date().addingTimeInterval(-30), lifetime: 600))
        XCTAssertTrue(url.hasPrefix("http://localhost:\(port)/"), url)
        let answer = try await get(url)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers["content-type"], "image/png")
    }

    /// Links issued within one window are one string (a job's ETag stays stable); the next
    /// window's differs. Pure computation: no clock is waited for.
    func testDownloadLinksAreStableWithinAWindow() throws {
        let signer = try URLSigner(secret: String(repeating: "s3cr3t-", count: 6), lifetime: .seconds(3600), window: 300)
        let links = DownloadLinks(signer: signer, blobs: store)
        let key = BlobKey.jobResult(UUID(), fileExtension: "jpg")
        let start = Date(timeIntervalSince1970: 1_795_000_200)
        let first = links.url(for: key, apiBase: "http://api", now: start)
        XCTAssertEqual(links.url(for: key, apiBase: "http://api", now: start.addingTimeInterval(299)), first)
        XCTAssertNotEqual(links.url(for: key, apiBase: "http://api", now: start.addingTimeInterval(300)), first)
        XCTAssertTrue(first.contains("X-Amz-Date=20261118T"), first)
        XCTAssertTrue(first.contains("X-Amz-Expires=3600"), first)
    }
}
