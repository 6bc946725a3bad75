import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// What an operator does from the console — cancel, retry, purge a job; pause and resume a
/// queue — happens only with the session's CSRF token, after a confirmation page for jobs, and
/// lands in the audit log with the operator's email. A forged or missing token changes nothing.
final class ConsoleActionsTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    func testCancelRetryAndPurgeAJob() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let id = try await createJob(kind: "noop")

        let detail = try await get("/admin/jobs/\(id)", cookie: cookie)
        XCTAssertEqual(detail.status, 200)
        XCTAssertTrue(detail.text.contains("href=\"/admin/jobs/\(id)/cancel\""), "a queued job can be cancelled")
        XCTAssertFalse(detail.text.contains("/admin/jobs/\(id)/purge"), "not purged while queued")

        let confirm = try await get("/admin/jobs/\(id)/cancel", cookie: cookie)
        XCTAssertEqual(confirm.status, 200)
        try await XCTAssertEqualAsync(try await db.queue.job(id: try JobID.parse(id)).state, .queued, "asking is not doing")
        let csrf = try XCTUnwrap(confirm.csrf)

        let forged = try await post("/admin/jobs/\(id)/cancel", cookie: cookie, form: [("csrf", String(csrf.reversed()))])
        XCTAssertEqual(forged.status, 403)
        XCTAssertTrue(forged.text.contains("Nothing was changed"))
        let missing = try await post("/admin/jobs/\(id)/cancel", cookie: cookie, form: [])
        XCTAssertEqual(missing.status, 403)
        try await XCTAssertEqualAsync(try await db.queue.job(id: try JobID.parse(id)).state, .queued)

        let done = try await post("/admin/jobs/\(id)/cancel", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(done.status, 303)
        XCTAssertEqual(done.location, "/admin/jobs/\(id)?done=cancel")
        try await XCTAssertEqualAsync(try await db.queue.job(id: try JobID.parse(id)).state, .cancelled)

        let again = try await post("/admin/jobs/\(id)/cancel", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(again.status, 409, "a finished job cannot be cancelled")

        let retried = try await post("/admin/jobs/\(id)/retry", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(retried.status, 303)
        try await XCTAssertEqualAsync(try await db.queue.job(id: try JobID.parse(id)).state, .queued)
        let notPurged = try await post("/admin/jobs/\(id)/purge", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(notPurged.status, 409, "queued: not purged")
        _ = try await db.queue.cancel(id: try JobID.parse(id))
        let purged = try await post("/admin/jobs/\(id)/purge", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(purged.status, 303)
        let gone = try await get("/admin/jobs/\(id)", cookie: cookie)
        XCTAssertEqual(gone.status, 404)

        let log = try await db.queue.auditLog(target: "job:\(id)")
        XCTAssertEqual(log.map(\.action), ["purge", "retry", "cancel"])
        XCTAssertTrue(log.allSatisfy { $0.actor.hasSuffix(" ops@example.com") && $0.actor.hasPrefix("user:") }, "\(log)")
    }

    func testAnotherSessionsTokenIsForged() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        try await makeUser(email: "other@example.com", role: "admin")
        let mine = try await signIn(email: "ops@example.com")
        let theirs = try await signIn(email: "other@example.com")
        let theirPage = try await get("/admin/queues", cookie: theirs)
        let theirToken = try XCTUnwrap(theirPage.csrf)
        let page = try await post("/admin/queues/default/pause", cookie: mine, form: [("csrf", theirToken)])
        XCTAssertEqual(page.status, 403)
        try await XCTAssertEqualAsync(try await db.queue.queues().filter(\.paused), [])
    }

    func testPauseAndResumeAQueueAreAudited() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        _ = try await createJob(kind: "noop")
        let queues = try await get("/admin/queues", cookie: cookie)
        XCTAssertTrue(queues.text.contains("aria-label=\"Pause queue default\""), queues.text)
        let csrf = try XCTUnwrap(queues.csrf)
        let paused = try await post("/admin/queues/default/pause", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(paused.location, "/admin/queues")
        try await XCTAssertEqualAsync(try await db.queue.queues(), [QueueInfo(name: "default", paused: true)])
        try await db.queue.resume(queue: "default", actor: "cli:tester@host")
        let after = try await get("/admin/queues", cookie: cookie)
        XCTAssertTrue(after.text.contains("cli:tester@host"), "the CLI's changes are in the same log")
        XCTAssertTrue(after.text.contains("ops@example.com"))
        let log = try await db.queue.auditLog(target: "queue:default")
        XCTAssertEqual(log.map(\.action), ["resume", "pause"])

        // A queue may be called anything: its name travels percent-encoded and arrives whole.
        _ = try await db.queue.enqueue(NewJob(kind: "noop", queue: "night batch/2 & more"))
        let page = try await get("/admin/queues", cookie: cookie)
        let action = try XCTUnwrap(page.text.range(of: "action=\"/admin/queues/night").map {
            String(page.text[page.text.index($0.lowerBound, offsetBy: 8)...].prefix { $0 != "\"" })
        })
        XCTAssertEqual(action, "/admin/queues/night%20batch%2F2%20%26%20more/pause")
        let pausedOdd = try await post(action, cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(pausedOdd.status, 303)
        try await XCTAssertEqualAsync(try await db.queue.queues().filter(\.paused).map(\.name), ["night batch/2 & more"])
    }

    func testTheQueuesPageSetsAndClearsLimitsPerKind() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let empty = try await get("/admin/queues", cookie: cookie)
        XCTAssertTrue(empty.text.contains("No limit") && empty.text.contains("<option value=\"noop\">"), empty.text)
        let csrf = try XCTUnwrap(empty.csrf)
        let saved = try await post("/admin/limits", cookie: cookie, form: [
            ("csrf", csrf), ("kind", "noop"), ("concurrency", "3"), ("per_owner_concurrency", ""), ("rate", "10/m"), ("timeout_s", "45")])
        XCTAssertEqual(saved.location, "/admin/queues")
        let limits = try await db.queue.limits.list()
        XCTAssertEqual(limits.map(\.concurrency), [3])
        XCTAssertEqual(limits.first?.rate?.description, "10/m")
        XCTAssertEqual(limits.first?.timeout, .seconds(45))
        XCTAssertNil(limits.first?.ownerConcurrency)
        let page = try await get("/admin/queues", cookie: cookie)
        let row = try XCTUnwrap(page.text.components(separatedBy: "<tr id=\"limits-noop\">").dropFirst().first?.components(separatedBy: "</tr>").first)
        XCTAssertTrue(row.contains("10/m") && row.contains("ops@example.com"), row)

        let refused = try await post("/admin/limits", cookie: cookie, form: [("csrf", csrf), ("kind", "noop"), ("concurrency", "many")])
        XCTAssertEqual(refused.status, 400)
        try await XCTAssertEqualAsync(try await db.queue.limits.list().map(\.concurrency), [3], "a refused form changes nothing")
        let forged = try await post("/admin/limits/noop/clear", cookie: cookie, form: [("csrf", "forged")])
        XCTAssertEqual(forged.status, 403)
        let cleared = try await post("/admin/limits/noop/clear", cookie: cookie, form: [("csrf", csrf)])
        XCTAssertEqual(cleared.status, 303)
        try await XCTAssertEqualAsync(try await db.queue.limits.list().count, 0)
        let log = try await db.queue.auditLog(target: "kind:noop")
        XCTAssertEqual(log.map(\.action), ["clear limits", "set limits"])
    }

    func testTheQueuesPageShowsSchedulesWithTheirNextAndLastRuns() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        let empty = try await get("/admin/queues", cookie: cookie)
        XCTAssertTrue(empty.text.contains("No schedule"), empty.text)

        let start = Date(timeIntervalSince1970: 1_740_823_380)  // 2025-03-01 10:03 UTC
        try await db.queue.schedules.add(NewSchedule(name: "five", cron: "*/5 * * * *", kind: "noop"), actor: "test", now: start)
        try await db.queue.schedules.add(NewSchedule(name: "held", cron: "@daily", kind: "noop"), actor: "test", now: start)
        try await db.queue.schedules.pause(named: "held", actor: "test")
        let due = try await db.queue.schedules.dueTicks(now: start.addingTimeInterval(120))
        let id = try await db.queue.schedules.enqueueTick(try XCTUnwrap(due.first))
        let page = try await get("/admin/queues", cookie: cookie)
        let row = try XCTUnwrap(page.text.range(of: "<tr id=\"schedule-five\">").map {
            String(page.text[$0.lowerBound...].prefix(while: { $0 != "\n" })).components(separatedBy: "</tr>")[0]
        })
        XCTAssertTrue(row.contains("*/5 * * * *") && row.contains("badge live"), row)
        XCTAssertTrue(row.contains("<time datetime=\"2025-03-01T10:10:00Z\">2025-03-01 10:10:00</time>"), "next run\n\(row)")
        XCTAssertTrue(row.contains("<time datetime=\"2025-03-01T10:05:00Z\">"), "last run\n\(row)")
        XCTAssertTrue(row.contains("href=\"/admin/jobs/\(try XCTUnwrap(id).uuidString.lowercased())\""), "the last run's job\n\(row)")
        let held = try XCTUnwrap(page.text.components(separatedBy: "<tr id=\"schedule-held\">").dropFirst().first)
        XCTAssertTrue(held.components(separatedBy: "</tr>")[0].contains("badge paused"), held)
    }

    func testTheJobListFiltersSearchesAndPages() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        var ids: [String] = []
        for n in 0..<55 { ids.append(try await createJob(kind: n % 5 == 0 ? "fail" : "noop", headers: [("X-Request-ID", "req-\(n)")])) }
        let first = try await get("/admin/jobs", cookie: cookie)
        XCTAssertEqual(first.text.components(separatedBy: "<tr id=\"job-").count - 1, 50)
        XCTAssertTrue(first.text.contains("job-\(ids[54])"), "newest first")
        let older = try XCTUnwrap(first.text.range(of: "href=\"/admin/jobs?before=").map { first.text[$0.lowerBound...].dropFirst(6).prefix { $0 != "\"" } })
        let second = try await get(String(older).replacingOccurrences(of: "&amp;", with: "&"), cookie: cookie)
        XCTAssertEqual(second.text.components(separatedBy: "<tr id=\"job-").count - 1, 5)
        XCTAssertTrue(second.text.contains("job-\(ids[0])"))
        XCTAssertFalse(second.text.contains("job-\(ids[54])"))

        let failing = try await get("/admin/jobs?kind=fail", cookie: cookie)
        XCTAssertEqual(failing.text.components(separatedBy: "<tr id=\"job-").count - 1, 11)
        let byRequest = try await get("/admin/jobs?q=req-7", cookie: cookie)
        XCTAssertEqual(byRequest.text.components(separatedBy: "<tr id=\"job-").count - 1, 1)
        XCTAssertTrue(byRequest.text.contains("job-\(ids[7])"))
        let byID = try await get("/admin/jobs?q=\(ids[3])", cookie: cookie)
        XCTAssertTrue(byID.text.contains("job-\(ids[3])"))
        let future = try await get("/admin/jobs?since=2999-01-01T00:00", cookie: cookie)
        XCTAssertTrue(future.text.contains("No job matches."))
        let hostile = try await get("/admin/jobs?owner=%3Cscript%3Ealert(1)%3C/script%3E", cookie: cookie)
        XCTAssertEqual(hostile.status, 200)
        XCTAssertFalse(hostile.text.contains("<script>alert"), "what the operator typed comes back escaped")
    }
}
