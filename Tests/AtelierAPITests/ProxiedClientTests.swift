import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// Behind a real nginx, clients on different loopback addresses (127.0.0.2, 127.0.0.3) each keep
/// their own per-address budget when nginx is a trusted proxy (`ATELIER_TRUSTED_PROXIES`), and a
/// header a client forges buys it nothing: nginx appends the address it saw, and only that is read.
/// ``ProxiedClientsUntrustedTests`` is the control: without the setting they share one budget.
class ProxiedClientTestCase: APITestCase {
    override var runsWorker: Bool { false }
    var nginx: TestNginx!

    /// The proxies the server trusts (none in the control).
    var proxies: TrustedProxies? { TrustedProxies.parse("127.0.0.1/32, ::1") }

    override func configure(_ configuration: inout ServerSettings) {
        super.configure(&configuration)
        if let proxies { configuration.api.trustedProxies = proxies }
        configuration.api.loginRateLimitPerAddress = 3
        configuration.api.loginRateLimitPerEmail = 1000
        configuration.api.rateLimitPerMinute = 50
    }

    override func setUp() async throws {
        try await super.setUp()
        nginx = try TestNginx(upstream: Int(baseURL.split(separator: ":").last!)!)
    }

    override func tearDown() async throws {
        nginx?.stop()
        try await super.tearDown()
    }

    /// A request through nginx from `client`'s address.
    func viaProxy(from client: String, _ method: String = "GET", _ path: String, headers: [(String, String)] = [],
                  body: String = "") throws -> (status: Int, headers: [String: String], body: String) {
        try RawHTTPConnection.exchange(port: nginx.port, from: client, method: method, path: path, headers: headers, body: body)
    }

    /// A wrong sign-in through nginx: 401, or 429 once the address's budget is spent.
    func wrongSignIn(from client: String, headers: [(String, String)] = []) throws -> Int {
        try viaProxy(from: client, "POST", "/api/auth/login", headers: [("Content-Type", "application/json")] + headers,
                     body: #"{"email": "nobody-\#(UUID().uuidString)@example.com", "password": "not a password"}"#).status
    }

    /// What is left of `client`'s budget on a public, rate-limited route after one more request.
    func remaining(from client: String, headers: [(String, String)] = []) throws -> Int {
        let answer = try viaProxy(from: client, "GET", "/variants/jobs/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/input.jpg", headers: headers)
        XCTAssertEqual(answer.status, 403, "an unsigned variant URL")
        return Int(answer.headers["x-ratelimit-remaining"] ?? "") ?? -1
    }
}

final class ProxiedClientsTests: ProxiedClientTestCase {
    func testEachClientBehindTheProxyHasItsOwnSignInBudget() throws {
        for _ in 0..<3 { XCTAssertEqual(try wrongSignIn(from: "127.0.0.2"), 401) }
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.2"), 429, "the fourth wrong sign-in from one client is refused")
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.3"), 401, "another client behind the same proxy is not locked out")
        // Forged headers: nginx appends the real address after them, and that is what is read.
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.2", headers: [("X-Forwarded-For", "127.0.0.9")]), 429)
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.2", headers: [("X-Forwarded-For", "127.0.0.3, 127.0.0.1")]), 429,
                       "naming the trusted proxy itself buys nothing either")
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.2", headers: [("Forwarded", "for=127.0.0.9")]), 429)
    }

    func testEachClientBehindTheProxyHasItsOwnRequestBudget() throws {
        XCTAssertEqual(try remaining(from: "127.0.0.2"), 49)
        XCTAssertEqual(try remaining(from: "127.0.0.2"), 48)
        XCTAssertEqual(try remaining(from: "127.0.0.2", headers: [("X-Forwarded-For", "127.0.0.77")]), 47, "a forged header is not a new budget")
        XCTAssertEqual(try remaining(from: "127.0.0.3"), 49, "another client's budget is its own")
    }

    func testAClientConnectingDirectlyIsItsOwnAddressWhateverItSends() throws {
        let port = Int(baseURL.split(separator: ":").last!)!
        for _ in 0..<3 {
            let answer = try RawHTTPConnection.exchange(port: port, from: "127.0.0.4", path: "/variants/jobs/x/input.jpg",
                                                        headers: [("X-Forwarded-For", "127.0.0.\(Int.random(in: 10...250))")])
            XCTAssertEqual(answer.status, 403)
        }
        // Not a proxy: its forged headers were ignored, so all three came out of one budget.
        let last = try RawHTTPConnection.exchange(port: port, from: "127.0.0.4", path: "/variants/jobs/x/input.jpg",
                                                  headers: [("X-Forwarded-For", "127.0.0.5")])
        XCTAssertEqual(last.headers["x-ratelimit-remaining"], "46")
    }
}

/// The same through nginx's `Forwarded` header (RFC 7239), with `ATELIER_PROXY_HEADER=forwarded`:
/// `X-Forwarded-For`, which this proxy also writes but a client could have sent instead, is not read.
final class ProxiedClientsForwardedTests: ProxiedClientTestCase {
    override var proxies: TrustedProxies? { TrustedProxies.parse("127.0.0.0/30", header: .forwarded) }

    func testEachClientKeepsItsOwnBudgetByForwarded() throws {
        XCTAssertEqual(try remaining(from: "127.0.0.5"), 49)
        XCTAssertEqual(try remaining(from: "127.0.0.5", headers: [("Forwarded", #"for="[2001:db8::1]:4711""#)]), 48)
        XCTAssertEqual(try remaining(from: "127.0.0.6", headers: [("X-Forwarded-For", "127.0.0.5")]), 49)
        for _ in 0..<3 { XCTAssertEqual(try wrongSignIn(from: "127.0.0.5"), 401) }
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.5", headers: [("Forwarded", "for=127.0.0.10")]), 429)
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.6"), 401)
    }
}

/// The control: the proxy not trusted, every client behind it is the proxy, one budget for all
/// (what a deployment had before `ATELIER_TRUSTED_PROXIES` named its proxy, and what every
/// deployment had before the API read the header at all).
final class ProxiedClientsUntrustedTests: ProxiedClientTestCase {
    override var proxies: TrustedProxies? { nil }

    func testWithoutTrustEveryClientBehindTheProxySharesOneBudget() throws {
        XCTAssertEqual(try remaining(from: "127.0.0.2"), 49)
        XCTAssertEqual(try remaining(from: "127.0.0.3"), 48)
        for _ in 0..<2 { XCTAssertEqual(try wrongSignIn(from: "127.0.0.2"), 401) }
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.3"), 401)
        XCTAssertEqual(try wrongSignIn(from: "127.0.0.3"), 429, "one client's failures locked out another")
    }
}
