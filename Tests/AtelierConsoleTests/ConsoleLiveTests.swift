import AsyncHTTPClient
import Foundation
import NIOCore
import XCTest

/// `/admin/live` sends a page what changed, from the job-event notifications: a job enqueued
/// after the page opened arrives as a `jobs` frame holding its list row, and the overview comes
/// as an `overview` frame — both in batches, never one frame per event.
final class ConsoleLiveTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    func testAJobEnqueuedAfterThePageOpenedArrivesLive() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        var request = HTTPClientRequest(url: baseURL + "/admin/live")
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await browser.execute(request, timeout: .seconds(60))
        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(response.headers.first(name: "Content-Type"), "text/event-stream; charset=utf-8")

        var text = ""
        var chunks = response.body.makeAsyncIterator()
        // The first frame is the overview the new page asked for (and `retry`); then the job.
        while !text.contains("event: overview") {
            let chunk = try await chunks.next()
            text += String(buffer: try XCTUnwrap(chunk, "the stream ended before the overview came"))
        }
        let ids = [try await createJob(kind: "noop"), try await createJob(kind: "noop")]
        while !ids.allSatisfy({ text.contains("\"id\":\"\($0)\"") }) {
            let chunk = try await chunks.next()
            text += String(buffer: try XCTUnwrap(chunk, "the stream ended before the jobs came"))
        }
        let frames = Self.parseEventStream(text).events
        let jobs = frames.filter { $0.name == "jobs" }
        XCTAssertFalse(jobs.isEmpty)
        struct Row: Decodable { var id: String; var state: String; var html: String }
        let rows = try jobs.flatMap { try $0.decode([Row].self) }
        let row = try XCTUnwrap(rows.first { $0.id == ids[0] })
        XCTAssertEqual(row.state, "queued")
        XCTAssertTrue(row.html.hasPrefix("<tr id=\"job-\(ids[0])\""))
        XCTAssertLessThan(jobs.count, 2 * 3, "two jobs' events come in batches, not a frame per event")
    }

    /// Signing out, or the operator being disabled, ends an open live stream at its next frame
    /// (before, it ran to the token's expiry).
    func testTheLiveStreamEndsWithItsSession() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        try await makeUser(email: "ops2@example.com", role: "admin")
        let accounts = try XCTUnwrap(server.accounts)
        for ending in ["sign-out", "disabled"] {
            let email = ending == "sign-out" ? "ops@example.com" : "ops2@example.com"
            let cookie = try await signIn(email: email)
            var request = HTTPClientRequest(url: baseURL + "/admin/live")
            request.headers.add(name: "Cookie", value: cookie)
            let response = try await browser.execute(request, timeout: .seconds(60))
            XCTAssertEqual(response.status.code, 200)
            var text = ""
            var chunks = response.body.makeAsyncIterator()
            while !text.contains("event: overview") {
                let chunk = try await chunks.next()
                text += String(buffer: try XCTUnwrap(chunk, "the stream ended before the overview came"))
            }
            if ending == "sign-out" {
                let token = String(cookie.drop { $0 != "=" }.dropFirst())
                try await accounts.revoke(try await accounts.access.verify(token))
            } else {
                let store = accounts.users
                _ = try await store.disable(email: email)
                let claims = try await accounts.access.verify(String(cookie.drop { $0 != "=" }.dropFirst()))
                try await db.eventually("the disabling is known") { try await accounts.revocations.isRevoked(claims) }
            }
            let id = try await createJob(kind: "noop")
            var after = ""
            while let chunk = try await chunks.next() { after += String(buffer: chunk) }
            XCTAssertFalse(after.contains(id), "\(ending): the stream went on: \(after.prefix(300))")
        }
    }

    func testTheLiveStreamNeedsAnAdminSession() async throws {
        try await makeUser(email: "driver@example.com", role: "driver")
        let users = try XCTUnwrap(server.accounts)
        let found = try await users.users.find(email: "driver@example.com")
        let token = try await users.access.issue(for: try XCTUnwrap(found), audience: .console).token
        let page = try await get("/admin/live", cookie: "atelier_console=\(token)")
        XCTAssertEqual(page.status, 403)
    }

    // A page is written, then opens its stream: whatever changed in between was sent to the pages
    // open then. The stream starts with what the page shows as it stands now.

    func testAListStreamStartsWithAJobEnqueuedBeforeItOpened() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let page = try await get("/admin/jobs", cookie: cookie)
        XCTAssertEqual(page.status, 200)
        let id = try await createJob(kind: "noop")  // after the page, before its stream
        var stream = try await openLive(cookie: cookie, show: "newest")
        let opening = try await stream.next()
        XCTAssertEqual(opening.name, "jobs", "the stream starts with the list's rows: \(opening)")
        let rows = try opening.decode([LiveStream.Row].self)
        XCTAssertEqual(rows.first { $0.id == id }?.state, "queued", "\(rows.map(\.id))")
    }

    func testAListOpenedAfterAJobWasSentToTheOpenPagesStillGetsIt() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        var open = try await openLive(cookie: cookie, show: "newest")
        _ = try await open.next()  // the feed is running
        let id = try await createJob(kind: "noop")
        _ = try await open.next { $0.name == "jobs" && $0.data.contains("\"id\":\"\(id)\"") }
        // A page written before that frame went out opens its stream after it.
        var later = try await openLive(cookie: cookie, show: "newest")
        let opening = try await later.next()
        XCTAssertEqual(opening.name, "jobs", "\(opening)")
        XCTAssertTrue(try opening.decode([LiveStream.Row].self).contains { $0.id == id })
    }

    func testAJobPageStreamStartsWithItsJob() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let id = try await createJob(kind: "noop")
        var stream = try await openLive(cookie: cookie, show: id)
        let opening = try await stream.next()
        XCTAssertEqual(opening.name, "jobs", "\(opening)")
        XCTAssertEqual(try opening.decode([LiveStream.Row].self).map(\.id), [id])
    }
}
