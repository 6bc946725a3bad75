import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// "Act on all matching" from the Jobs page: a count first (nothing changes), then a bulk action
/// started only with the session's CSRF token, its progress page, its stop, and the audit log.
final class ConsoleBulkActionsTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    func testRetryAllMatchingAfterACountAndAConfirmation() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let failed = try await db.queue.enqueue((0..<4).map { _ in NewJob(kind: "caption", queue: "captions") }).map(\.id)
        let other = try await db.queue.enqueue(NewJob(kind: "caption", queue: "other")).id
        try await db.execute("""
            UPDATE jobs SET state = 'failed', error = 'provider down', finished_at = now() - interval '1 second'
             WHERE id = ANY(\(failed + [other])::uuid[])
            """)

        let list = try await get("/admin/jobs?state=failed&queue=captions", cookie: cookie)
        XCTAssertEqual(list.status, 200)
        XCTAssertTrue(list.text.contains("href=\"/admin/bulk/retry?state=failed&amp;queue=captions\""), list.text)

        let confirm = try await get("/admin/bulk/retry?state=failed&queue=captions&error=provider", cookie: cookie)
        XCTAssertEqual(confirm.status, 200)
        XCTAssertTrue(confirm.text.contains("data-count=\"4\""), confirm.text)
        let stillFailed = try await db.queue.jobs(ids: failed).filter { $0.state == .failed }.count
        XCTAssertEqual(stillFailed, 4, "counting is not doing")
        let csrf = try XCTUnwrap(confirm.csrf)
        let form = [("state", "failed"), ("queue", "captions"), ("error", "provider")]

        let forged = try await post("/admin/bulk/retry", cookie: cookie, form: [("csrf", String(csrf.reversed()))] + form)
        XCTAssertEqual(forged.status, 403)
        try await XCTAssertEqualAsync(try await db.queue.bulkActions.list().count, 0)

        let started = try await post("/admin/bulk/retry", cookie: cookie, form: [("csrf", csrf)] + form)
        XCTAssertEqual(started.status, 303)
        let location = try XCTUnwrap(started.location)
        XCTAssertTrue(location.hasPrefix("/admin/bulk-actions/"), location)
        let id = try XCTUnwrap(Int64(location.split(separator: "/").last.map(String.init) ?? ""))
        try await db.eventually("the bulk retry to end") { try await self.db.queue.bulkActions.find(id: id).state == .done }
        try await XCTAssertEqualAsync(try await db.queue.jobs(ids: failed).filter { $0.state == .queued }.count, 4)
        try await XCTAssertEqualAsync(try await db.queue.job(id: other).state, .failed, "another queue's job is left alone")

        let progress = try await get(location, cookie: cookie)
        XCTAssertEqual(progress.status, 200)
        XCTAssertTrue(progress.text.contains("data-state=\"done\""))
        XCTAssertTrue(progress.text.contains("<span id=\"bulk-acted\">4</span>"))
        let actions = try await get("/admin/bulk-actions", cookie: cookie)
        XCTAssertTrue(actions.text.contains("state=failed queue=captions error=provider"), actions.text)

        let log = try await db.queue.auditLog(target: "bulk:\(id)")
        XCTAssertEqual(log.map(\.action), ["bulk retry"])
        XCTAssertTrue(log.allSatisfy { $0.actor.hasSuffix(" ops@example.com") }, "\(log)")

        let stop = try await post("\(location)/stop", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(stop.status, 409, "a finished action cannot be stopped")
        let nothing = try await get("/admin/bulk/cancel?queue=nowhere", cookie: cookie)
        XCTAssertEqual(nothing.status, 200)
        XCTAssertTrue(nothing.text.contains("data-count=\"0\""))
        XCTAssertFalse(nothing.text.contains("id=\"confirm-bulk\""), "nothing to confirm")
        let bad = try await get("/admin/bulk/explode", cookie: cookie)
        XCTAssertEqual(bad.status, 404)
        let missing = try await get("/admin/bulk-actions/999", cookie: cookie)
        XCTAssertEqual(missing.status, 404)
    }
}
