@testable import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// `ATELIER_TRUSTED_HOSTS`: the base of an answer's absolute URLs is the request's `Host` when it
/// is listed, else the configured base; a Host that is not listed or not well formed never
/// appears in an answer.
final class PublicBaseURLTests: XCTestCase {
    /// Each carries "evil" where it differs from a listed host.
    static let hostile = [
        "evil.example", "evil.example:5005", "lan-box.local.evil", "lan-box.local/evil", "lan-box.local:5005/evil",
        "evil@lan-box.local", "lan-box.local@evil", "lan-box.local:evil", "lan-box.local evil", "lan-box.local?evil",
        "lan-box.local#evil", "[::1]evil", "[evil]", "lan-box.local:5005:evil", "http://evil/", "lan-box.local,evil",
        String(repeating: "evil.", count: 2000) + "lan-box.local", "lan-box.local:" + String(repeating: "9", count: 3000) + "evil",
        "lan-bоx.local.evil", // a Cyrillic о
    ]

    func testTheSettingParses() throws {
        let hosts = try XCTUnwrap(TrustedHosts.parse(" 192.168.1.20, Atelier.Local:5005 ,[FE80::1], "))
        XCTAssertEqual(hosts.entries.map(\.description), ["192.168.1.20", "atelier.local:5005", "[fe80::1]"])
        for bad in ["a/b", "x@y", "host:port", "host:0", "host:70000", "[::1", "exa mple", "http://host"] {
            XCTAssertNil(TrustedHosts.parse(bad), bad)
        }
    }

    func testOnlyAListedWellFormedHostIsUsed() throws {
        let base = PublicBaseURL("http://127.0.0.1:8080", trusted: try XCTUnwrap(TrustedHosts.parse("lan-box.local,192.168.1.20:5400,[fe80::1]")))
        XCTAssertEqual(base.value(host: "lan-box.local:5005"), "http://lan-box.local:5005")
        XCTAssertEqual(base.value(host: "LAN-Box.Local"), "http://lan-box.local")
        XCTAssertEqual(base.value(host: "192.168.1.20:5400"), "http://192.168.1.20:5400")
        XCTAssertEqual(base.value(host: "[FE80::1]:5005"), "http://[fe80::1]:5005")
        XCTAssertEqual(base.value(host: "192.168.1.20:5005"), "http://127.0.0.1:8080", "another port than the listed one")
        XCTAssertEqual(base.value(host: "192.168.1.20"), "http://127.0.0.1:8080")
        XCTAssertEqual(base.value(host: nil), "http://127.0.0.1:8080")
        for host in Self.hostile {
            XCTAssertEqual(base.value(host: host), "http://127.0.0.1:8080", host)
        }
        let none = PublicBaseURL("http://127.0.0.1:8080")
        XCTAssertEqual(none.value(host: "lan-box.local"), "http://127.0.0.1:8080", "nothing is trusted by default")
    }

    func testATrustedHostTakesTheSchemeAndPathOfThePublicURL() throws {
        let base = PublicBaseURL("https://atelier.example/photos", publicURL: "https://atelier.example/photos/",
                                 trusted: try XCTUnwrap(TrustedHosts.parse("lan-box.local")))
        XCTAssertEqual(base.value(host: "lan-box.local:5005"), "https://lan-box.local:5005/photos")
        XCTAssertEqual(base.value(host: "evil.example"), "https://atelier.example/photos")
    }
}

/// The same through the server, on every route that builds an absolute URL.
final class TrustedHostsAPITests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.trustedHosts = TrustedHosts.parse("lan-box.local,192.168.1.20:5400")!
    }

    /// `GET path` with exactly `host` as the Host header, over a plain connection.
    private func get(_ path: String, host: String) throws -> String {
        let port = try XCTUnwrap(URLComponents(string: baseURL)?.port)
        let connection = try RawHTTPConnection(port: port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nX-App-Token: \(token)\r\nConnection: close\r\n\r\n")
        return connection.read(until: "\u{0}never")
    }

    func testATrustedHostGetsURLsOnItself() async throws {
        XCTAssertTrue(try get("/advisors", host: "LAN-Box.local:5005").contains(#""image_url":"http://lan-box.local:5005/advisor_image/ansel.png""#))
        XCTAssertTrue(try get("/openapi.yaml", host: "192.168.1.20:5400").contains(#"url: "http://192.168.1.20:5400""#))

        let body = try JSONSerialization.data(withJSONObject: ["kind": "noop", "options": [:]])
        let created = try await request(.POST, "/v1/jobs", headers: [("Host", "lan-box.local:5005")], body: body, contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(created.json()["id"] as? String)
        XCTAssertEqual(try created.json()["status_url"] as? String, "http://lan-box.local:5005/v1/jobs/\(id)")
        XCTAssertEqual(try created.json()["stream_url"] as? String, "http://lan-box.local:5005/v1/jobs/\(id)/events")
        XCTAssertEqual(created.header("Location"), "http://lan-box.local:5005/v1/jobs/\(id)")
        // The cached view is per base: each caller gets its own URLs, whoever asked first.
        for _ in 0..<2 {
            let trusted = try await request(.GET, "/v1/jobs/\(id)", headers: [("Host", "lan-box.local:5005")])
            XCTAssertEqual(try trusted.json()["status_url"] as? String, "http://lan-box.local:5005/v1/jobs/\(id)")
            let plain = try await request(.GET, "/v1/jobs/\(id)")
            XCTAssertEqual(try plain.json()["status_url"] as? String, "\(baseURL)/v1/jobs/\(id)")
        }
        let listed = try await request(.GET, "/v1/jobs", headers: [("Host", "lan-box.local")])
        let first = try XCTUnwrap((listed.json()["data"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["status_url"] as? String, "http://lan-box.local/v1/jobs/\(id)")
    }

    func testAnUntrustedOrHostileHostNeverAppearsInAnAnswer() throws {
        for host in PublicBaseURLTests.hostile {
            for path in ["/advisors", "/openapi.yaml"] {
                let answer = try get(path, host: host)
                XCTAssertFalse(answer.lowercased().contains("evil"), "\(host.prefix(60)) on \(path): \(answer.prefix(300))")
                XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), "\(host.prefix(60)) on \(path): \(answer.prefix(100))")
                XCTAssertTrue(answer.contains(baseURL), "\(host.prefix(60)) on \(path) gets the configured base")
            }
        }
    }
}
