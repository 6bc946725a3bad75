import AsyncHTTPClient
import AtelierAPITestSupport
import AtelierAccounts
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

/// The real server with the console, and a browser-like client: it sends the session cookie
/// back, does not follow redirects (the tests read them), and posts forms.
class ConsoleTestCase: APITestCase {
    var browser: HTTPClient!

    override func setUp() async throws {
        try await super.setUp()
        browser = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    }

    override func tearDown() async throws {
        try? await browser?.shutdown()
        try await super.tearDown()
    }

    @discardableResult
    func makeUser(email: String, password: String = "a password long enough", role: String) async throws -> User {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
        return try await users.create(email: email, name: "", role: role, permissions: [], password: password)
    }

    struct Page {
        var status: Int
        var headers: HTTPHeaders
        var text: String
        var location: String? { headers.first(name: "Location") }

        /// The value of the first `<input name="csrf" value="…">` on the page.
        var csrf: String? {
            guard let range = text.range(of: "name=\"csrf\" value=\"") else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    func get(_ path: String, cookie: String?) async throws -> Page {
        try await send(.GET, path, cookie: cookie, form: nil)
    }

    func post(_ path: String, cookie: String?, form: [(String, String)], headers: [(String, String)] = []) async throws -> Page {
        try await send(.POST, path, cookie: cookie, form: form, headers: headers)
    }

    func send(_ method: HTTPMethod, _ path: String, cookie: String?, form: [(String, String)]?,
              headers: [(String, String)] = []) async throws -> Page {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            var components = URLComponents()
            components.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
            let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await browser.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return Page(status: Int(response.status.code), headers: response.headers, text: String(buffer: body))
    }

    /// Signs in through the form; returns the `Cookie` header value a browser would send.
    func signIn(email: String, password: String = "a password long enough") async throws -> String {
        let page = try await post("/admin/login", cookie: nil, form: [("email", email), ("password", password)])
        XCTAssertEqual(page.status, 303, page.text)
        let setCookie = try XCTUnwrap(page.headers.first(name: "Set-Cookie"))
        return String(setCookie.prefix { $0 != ";" })
    }
}
