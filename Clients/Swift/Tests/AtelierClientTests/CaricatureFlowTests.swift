import AtelierClient
import Foundation
import OpenAPIAsyncHTTPClient
import XCTest

/// The Caricature app's flow through the client, against a real server (`./ops/check-client`
/// starts one and passes its address and a token): submit a photo for a style, follow the job
/// to its end, download its result and thumbnail; and a wrong token, as an ``AtelierError``.
final class CaricatureFlowTests: XCTestCase {
    private var server: (url: URL, token: String) {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            guard let url = environment["ATELIER_CLIENT_TEST_URL"].flatMap(URL.init(string:)),
                  let token = environment["ATELIER_CLIENT_TEST_TOKEN"], !token.isEmpty else {
                throw XCTSkip("no server to test against: run ./ops/check-client, which starts one")
            }
            return (url, token)
        }
    }

    func testSubmitFollowAndDownloadTheResult() async throws {
        let (url, token) = try server
        let atelier = Atelier(serverURL: url, appToken: token, transport: AsyncHTTPClientTransport())
        let created = try await atelier.submit(photo: TestPhoto.png(), style: "cartoon", output: "png")
        XCTAssertEqual(created.kind, "stylize")
        let job = try await atelier.finished(created.id)
        XCTAssertEqual(job.status, .succeeded, job.error ?? "")
        XCTAssertEqual(job.state, .succeeded)

        let result = try await atelier.download(try XCTUnwrap(job.resultUrl))
        XCTAssertEqual(Array(result.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "the result is the PNG asked for")
        let thumbnail = try await atelier.download(try XCTUnwrap(job.thumbnailUrl))
        XCTAssertGreaterThan(thumbnail.count, 100, "the thumbnail is an image")

        // Polled again with the ETag it gave, the finished job answers 304: no body.
        let (first, etag) = try await atelier.job(created.id)
        XCTAssertNotNil(first)
        let (again, _) = try await atelier.job(created.id, ifNoneMatch: try XCTUnwrap(etag))
        XCTAssertNil(again, "an unchanged job is not sent again")
    }

    func testAWrongTokenIsAnAuthenticationErrorWithTheRequestID() async throws {
        let (url, _) = try server
        let atelier = Atelier(serverURL: url, appToken: "atl_not-a-token", transport: AsyncHTTPClientTransport())
        do {
            _ = try await atelier.job(UUID().uuidString.lowercased())
            XCTFail("a wrong token must be refused")
        } catch let AtelierError.server(status, error, message, _, requestID, _) {
            XCTAssertEqual(status, 401)
            XCTAssertEqual(error, "AuthenticationError")
            XCTAssertFalse(message.isEmpty)
            XCTAssertNotNil(requestID, "the request id to quote")
        }
    }

    func testAMissingJobIsNotFound() async throws {
        let (url, token) = try server
        let atelier = Atelier(serverURL: url, appToken: token, transport: AsyncHTTPClientTransport())
        do {
            _ = try await atelier.job(UUID().uuidString.lowercased())
            XCTFail("a job that does not exist must be refused")
        } catch let AtelierError.server(status, _, _, _, _, _) {
            XCTAssertEqual(status, 404)
        }
    }
}
