import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// Behind a TLS-terminating proxy (`ATELIER_TRUSTED_PROXIES`), the console's cookie is `Secure`
/// when the proxy says the client came over https — and only a listed proxy is believed.
final class ConsoleProxyTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        super.configure(&configuration)
        configuration.api.trustedProxies = .parse("127.0.0.1, ::1")!
    }

    func testTheCookieIsSecureWhenATrustedProxySaysHTTPS() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let form = [("email", "ops@example.com"), ("password", "a password long enough")]
        let proxied = try await post("/admin/login", cookie: nil, form: form, headers: [("X-Forwarded-Proto", "https")])
        XCTAssertEqual(proxied.status, 303, proxied.text)
        let secure = try XCTUnwrap(proxied.headers.first(name: "Set-Cookie"))
        XCTAssertTrue(secure.contains("Secure"), secure)
        let plain = try await post("/admin/login", cookie: nil, form: form, headers: [("X-Forwarded-Proto", "http")])
        let insecure = try XCTUnwrap(plain.headers.first(name: "Set-Cookie"))
        XCTAssertFalse(insecure.contains("Secure"), insecure)
    }
}

/// Without trusted proxies, a client's own `X-Forwarded-Proto` changes nothing.
final class ConsoleNoProxyTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    func testAClientsForwardedProtoIsNotBelieved() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let page = try await post("/admin/login", cookie: nil, form: [("email", "ops@example.com"), ("password", "a password long enough")],
                                  headers: [("X-Forwarded-Proto", "https")])
        let cookie = try XCTUnwrap(page.headers.first(name: "Set-Cookie"))
        XCTAssertFalse(cookie.contains("Secure"), cookie)
    }
}
