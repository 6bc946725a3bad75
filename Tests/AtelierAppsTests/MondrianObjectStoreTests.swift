import AsyncHTTPClient
import AtelierAPI
import AtelierAPITestSupport
import AtelierStorage
import AtelierTestSupport
import Foundation
import NIOHTTP1
import XCTest

/// Mondrian's public image route on the S3 blob store: the signed name still decides, and the
/// answer is a 302 to a fresh pre-signed URL, so the image comes from the store itself.
final class MondrianObjectStoreTests: MondrianFlowTestCase {
    override var runsWorker: Bool { false }

    override func makeBlobStore(directory: URL) throws -> any BlobStore {
        try TestObjectStore.make()
    }

    func testTheSourceImageRedirectsToThePresignedObject() async throws {
        let upload = try JSONDecoder().decode(UploadResponse.self, from: try await upload(advisor: "ansel").body)
        let plain = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            for method in [HTTPMethod.GET, .HEAD] {
                var redirect = HTTPClientRequest(url: baseURL + "/image/source/\(upload.filename)")
                redirect.method = method
                let answer = try await plain.execute(redirect, timeout: .seconds(30))
                _ = try await answer.body.collect(upTo: 1 << 20)
                XCTAssertEqual(answer.status, .found, "\(method)")
                XCTAssertEqual(answer.headers.first(name: "Cache-Control"), "no-store")
                let location = try XCTUnwrap(answer.headers.first(name: "Location"))
                let endpoint = try XCTUnwrap(ProcessInfo.processInfo.environment["ATELIER_TEST_S3_ENDPOINT"])
                XCTAssertTrue(location.hasPrefix(endpoint + "/") && location.contains("X-Amz-Signature="), location)
                if method == .GET {
                    let image = try await request(.GET, location, token: .some(nil))
                    XCTAssertEqual(image.status, 200)
                    XCTAssertEqual(image.header("Content-Type"), "image/jpeg")
                    XCTAssertEqual(image.body, try photo())
                }
            }
            let forged = upload.filename.replacingOccurrences(of: "photo-", with: "other-")
            let refused = try await request(.GET, "/image/source/\(forged)", token: .some(nil))
            XCTAssertEqual(refused.status, 404, "a name that is not ours is still a 404")
        } catch {
            try? await plain.shutdown()
            throw error
        }
        try await plain.shutdown()
    }
}
