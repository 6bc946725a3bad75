import AtelierTestSupport
import Foundation
import XCTest

/// Who gets into the console: an admin signing in with email and password gets an HttpOnly,
/// SameSite=Strict cookie limited to /admin and reaches every page; a wrong password, a user
/// without the admin role, an app token and no session at all get nothing.
final class ConsoleSignInTests: ConsoleTestCase {
    func testAnAdminSignsInAndSeesEveryPage() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let login = try await post("/admin/login", cookie: nil, form: [("email", "ops@example.com"), ("password", "a password long enough"),
                                                                        ("next", "/admin/workers")])
        XCTAssertEqual(login.status, 303)
        XCTAssertEqual(login.location, "/admin/workers", "back to the page asked for")
        let setCookie = try XCTUnwrap(login.headers.first(name: "Set-Cookie"))
        for attribute in ["atelier_console=", "HttpOnly", "SameSite=Strict", "Path=/admin", "Max-Age=3600"] {
            XCTAssertTrue(setCookie.contains(attribute), "\(attribute) in \(setCookie)")
        }
        let cookie = String(setCookie.prefix { $0 != ";" })
        for (path, heading) in [("/admin", "Overview"), ("/admin/jobs", "Jobs"), ("/admin/workers", "Workers"), ("/admin/queues", "Queues")] {
            let page = try await get(path, cookie: cookie)
            XCTAssertEqual(page.status, 200, path)
            XCTAssertTrue(page.text.contains("<h1>\(heading)</h1>"), path)
            XCTAssertEqual(page.headers.first(name: "Content-Type"), "text/html; charset=utf-8")
            XCTAssertEqual(page.headers.first(name: "X-Frame-Options"), "DENY")
            XCTAssertTrue(page.headers.first(name: "Content-Security-Policy")?.contains("script-src 'self'") == true)
            XCTAssertNotNil(page.csrf, "every signed-in page carries the sign-out form's token")
        }
        let css = try await get("/admin/assets/console.css", cookie: nil)
        XCTAssertEqual(css.status, 200)
        XCTAssertEqual(css.headers.first(name: "Content-Type"), "text/css; charset=utf-8")
        let etag = try XCTUnwrap(css.headers.first(name: "ETag"))
        let revalidated = try await request(.GET, "/admin/assets/console.css", headers: [("If-None-Match", "W/" + etag)])
        XCTAssertEqual(revalidated.status, 304, "a browser's weak revalidation matches")
    }

    func testAnOffSiteNextIsIgnored() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        for next in ["https://evil.example/", "//evil.example/admin", "/admin/\\evil", "/elsewhere"] {
            let login = try await post("/admin/login", cookie: nil, form: [("email", "ops@example.com"), ("password", "a password long enough"), ("next", next)])
            XCTAssertEqual(login.location, "/admin", next)
        }
    }

    func testWithoutASessionPagesLeadToSignInAndActionsAreRefused() async throws {
        let page = try await get("/admin/jobs?state=failed", cookie: nil)
        XCTAssertEqual(page.status, 303)
        XCTAssertEqual(page.location, "/admin/login?next=/admin/jobs?state%3Dfailed")
        let live = try await get("/admin/live", cookie: nil)
        XCTAssertEqual(live.status, 303)
        let forged = try await get("/admin", cookie: "atelier_console=eyJhbGciOiJIUzI1NiJ9.e30.forged")
        XCTAssertEqual(forged.status, 303, "a token we did not sign is no session")
        let action = try await post("/admin/queues/default/pause", cookie: nil, form: [("csrf", "x")])
        XCTAssertEqual(action.status, 403)
        try await XCTAssertEqualAsync(try await db.queue.queues().filter(\.paused), [])
        // An app token is an app's credential, not an operator's session.
        let withToken = try await request(.GET, "/admin")
        XCTAssertTrue(withToken.text.contains("<h1>Sign in</h1>"), "led to the sign-in page: \(withToken.text.prefix(200))")
    }

    func testAWrongPasswordAndANonAdminAreRefused() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        try await makeUser(email: "driver@example.com", role: "driver")
        let wrong = try await post("/admin/login", cookie: nil, form: [("email", "ops@example.com"), ("password", "not the password")])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertNil(wrong.headers.first(name: "Set-Cookie"))
        XCTAssertTrue(wrong.text.contains("The email or the password is wrong."))
        let driver = try await post("/admin/login", cookie: nil, form: [("email", "driver@example.com"), ("password", "a password long enough")])
        XCTAssertEqual(driver.status, 403)
        XCTAssertNil(driver.headers.first(name: "Set-Cookie"))
        XCTAssertTrue(driver.text.contains("does not have the admin role"))

        // A non-admin's access token (from the accounts' own sign-in) in the cookie: refused.
        let users = try XCTUnwrap(server.accounts)
        let found = try await users.users.find(email: "driver@example.com")
        let user = try XCTUnwrap(found)
        let token = try await users.access.issue(for: user, audience: .console).token
        let page = try await get("/admin", cookie: "atelier_console=\(token)")
        XCTAssertEqual(page.status, 403)
        XCTAssertTrue(page.text.contains("Not an operator"))
    }

    func testSignOutEndsTheSession() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let overview = try await get("/admin", cookie: cookie)
        let csrf = try XCTUnwrap(overview.csrf)
        let out = try await post("/admin/logout", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(out.status, 303)
        XCTAssertTrue(out.headers.first(name: "Set-Cookie")?.contains("Max-Age=0") == true)
        let after = try await get("/admin", cookie: cookie)
        XCTAssertEqual(after.status, 303, "the token itself is revoked, not only the cookie dropped")
    }

    func testBadFormsAreRefusedPlainly() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let json = try await send(.POST, "/admin/login", cookie: nil, form: nil)
        XCTAssertEqual(json.status, 400)
        let cookie = try await signIn(email: "ops@example.com")
        for path in ["/admin/jobs?state=exploded", "/admin/jobs?since=yesterday", "/admin/jobs?before=1e300_x", "/admin/jobs?kind=" + String(repeating: "k", count: 300)] {
            let page = try await get(path, cookie: cookie)
            XCTAssertEqual(page.status, 400, path)
            XCTAssertTrue(page.text.contains("role=\"alert\""), path)
        }
        let notAnID = try await get("/admin/jobs/not-a-uuid", cookie: cookie)
        XCTAssertEqual(notAnID.status, 404)
        let noSuchJob = try await get("/admin/jobs/\(UUID())", cookie: cookie)
        XCTAssertEqual(noSuchJob.status, 404)
    }
}
