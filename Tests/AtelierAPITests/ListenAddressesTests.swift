import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// `ATELIER_LISTEN` with several addresses: one process serves the same routes on each (as the
/// Mondrian app's two ports need), with one set of background services.
final class ListenAddressesTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.listen = [ListenAddress(host: "127.0.0.1", port: 0), ListenAddress(host: "127.0.0.1", port: 0)]
    }

    func testTheServerAnswersOnEveryAddress() async throws {
        try await db.eventually("both addresses are bound") { server.boundPort(1) != nil }
        let ports = try [0, 1].map { try XCTUnwrap(server.boundPort($0)) }
        XCTAssertNotEqual(ports[0], ports[1])
        XCTAssertEqual(baseURL, "http://127.0.0.1:\(ports[0])", "the public base is the first address")
        let second = "http://127.0.0.1:\(ports[1])"
        for base in [baseURL, second] {
            let health = try await request(.GET, base + "/health")
            XCTAssertEqual(health.status, 200, health.text)
        }
        // One server behind both: a job made through the second address is read through the first.
        let body = try JSONSerialization.data(withJSONObject: ["kind": "noop", "options": [:]])
        let created = try await request(.POST, second + "/v1/jobs", body: body, contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(created.json()["id"] as? String)
        XCTAssertEqual(try created.json()["status_url"] as? String, "\(baseURL)/v1/jobs/\(id)")
        let shown = try await request(.GET, "/v1/jobs/\(id)")
        XCTAssertEqual(shown.status, 200, shown.text)
        try assertError(try await request(.GET, second + "/v1/jobs", token: .some(nil)), status: 401, name: "AuthenticationError")
    }
}
