import AtelierAccounts
import AtelierDatabase
import AtelierImaging
import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// The operator CLI as a person or a script uses it: output, --json, exit codes.
final class CLITests: DatabaseTestCase {
    private func atelier(_ arguments: String...) async throws -> (status: Int32, output: String) {
        try await AtelierProcess.run(arguments, database: db.url)
    }

    private func json(_ output: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    func testEnqueueShowListStatsAsJSON() async throws {
        let enqueued = try await atelier("jobs", "enqueue", "noop", "--payload", #"{"x": 1}"#, "--json")
        XCTAssertEqual(enqueued.status, 0, enqueued.output)
        let id = try XCTUnwrap((try json(enqueued.output) as? [[String: Any]])?.first?["id"] as? String)

        let shown = try await atelier("jobs", "show", id, "--json")
        XCTAssertEqual(shown.status, 0, shown.output)
        let job = try XCTUnwrap(try json(shown.output) as? [String: Any])
        XCTAssertEqual(job["state"] as? String, "queued")
        XCTAssertEqual((job["payload"] as? [String: Any])?["x"] as? Int, 1)
        XCTAssertNotNil(job["events"] as? [Any])

        let listed = try await atelier("jobs", "list", "--state", "queued", "--json")
        XCTAssertEqual((try json(listed.output) as? [String: Any])?["total"] as? Int, 1)

        let stats = try await atelier("queue", "stats", "--json")
        let counts = (try json(stats.output) as? [String: Any])?["counts"] as? [[String: Any]]
        XCTAssertEqual(counts?.first?["kind"] as? String, "noop")
        XCTAssertEqual(counts?.first?["count"] as? Int, 1)

        let table = try await atelier("queue", "stats")
        XCTAssertTrue(table.output.contains("KIND"), table.output)
        XCTAssertTrue(table.output.contains("noop"), table.output)
    }

    func testUsersCreateListDisable() async throws {
        let created = try await AtelierProcess.run(
            ["users", "create", "--email", "Ana@Example.com", "--role", "driver", "--name", "Ana", "--permission", "vehicle.read",
             "--password-stdin", "--json"], database: db.url, input: "password123\n")
        XCTAssertEqual(created.status, 0, created.output)
        let user = try XCTUnwrap(try json(created.output) as? [String: Any])
        XCTAssertEqual(user["role"] as? String, "driver")
        XCTAssertEqual(user["has_password"] as? Bool, true)
        let stored = try await db.scalar("SELECT count(*)::int FROM users u WHERE position('password123' IN u::text) > 0", as: Int.self)
        XCTAssertEqual(stored, 0, "only the hash is stored")

        let duplicate = try await atelier("users", "create", "--email", "ana@example.com")
        XCTAssertEqual(duplicate.status, 4, duplicate.output)
        XCTAssertTrue(duplicate.output.contains("already exists"), duplicate.output)
        let badRole = try await atelier("users", "create", "--email", "bo@example.com", "--role", "Boss")
        XCTAssertEqual(badRole.status, 64, badRole.output)
        let short = try await AtelierProcess.run(["users", "create", "--email", "cy@example.com", "--password-stdin"],
                                                 database: db.url, input: "short\n")
        XCTAssertEqual(short.status, 64, short.output)

        // A token of one app for the user, as its sign-in would issue it.
        let secret = ["ATELIER_JWT_SECRET": String(repeating: "jwt-s3cr3t-", count: 4)]
        let minted = try await AtelierProcess.run(["users", "token", "--email", " ana@example.com", "--app", "learn"],
                                                  database: db.url, environment: secret)
        XCTAssertEqual(minted.status, 0, minted.output)
        let claims = try await AccessTokens(secret: secret["ATELIER_JWT_SECRET"]!)
            .verify(minted.output.trimmingCharacters(in: .whitespacesAndNewlines), audiences: [.learn])
        XCTAssertEqual(claims.userID.map { $0.uuidString.lowercased() }, user["id"] as? String)
        let badApp = try await AtelierProcess.run(["users", "token", "--email", "ana@example.com", "--app", "mail"],
                                                  database: db.url, environment: secret)
        XCTAssertEqual(badApp.status, 64, badApp.output)

        let listed = try await atelier("users", "list")
        XCTAssertTrue(listed.output.contains("Ana@Example.com") && listed.output.contains("vehicle.read"), listed.output)
        XCTAssertFalse(listed.output.contains("scrypt"), listed.output)
        let disabled = try await atelier("users", "disable", "--email", "ana@EXAMPLE.com", "--json")
        XCTAssertEqual(disabled.status, 0, disabled.output)
        XCTAssertNotNil((try json(disabled.output) as? [String: Any])?["disabled_at"] as? String)
        let missing = try await atelier("users", "disable", "--email", "nobody@example.com")
        XCTAssertEqual(missing.status, 3, missing.output)
    }

    func testTokensCreateListRevoke() async throws {
        let created = try await atelier("tokens", "create", "--name", "ios-app", "--json")
        XCTAssertEqual(created.status, 0, created.output)
        let token = try XCTUnwrap(try json(created.output) as? [String: Any])
        let secret = try XCTUnwrap(token["token"] as? String)
        XCTAssertTrue(secret.hasPrefix("atl_"))
        XCTAssertEqual(token["owner"] as? String, "ios-app")
        let stored = try await db.scalar("SELECT count(*)::int FROM app_tokens t WHERE position(\(secret) IN t::text) > 0", as: Int.self)
        XCTAssertEqual(stored, 0, "the token itself is stored nowhere, only its hash")

        let duplicate = try await atelier("tokens", "create", "--name", "ios-app")
        XCTAssertEqual(duplicate.status, 4, "a live name is unique: \(duplicate.output)")

        let listed = try await atelier("tokens", "list", "--json")
        let names = ((try json(listed.output) as? [String: Any])?["tokens"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        XCTAssertEqual(names, ["ios-app"])
        XCTAssertFalse(listed.output.contains(secret), "lists never show the token")

        let revoked = try await atelier("tokens", "revoke", "ios-app")
        XCTAssertEqual(revoked.status, 0, revoked.output)
        let after = try await atelier("tokens", "list", "--json")
        XCTAssertEqual(((try json(after.output) as? [String: Any])?["tokens"] as? [Any])?.count, 0)
        let again = try await atelier("tokens", "revoke", "ios-app")
        XCTAssertEqual(again.status, 3, "no live token by that name: \(again.output)")
    }

    func testCancelRetryPauseResumePurge() async throws {
        let id = try await db.queue.enqueue(NewJob(kind: "noop")).id.uuidString.lowercased()
        let cancelled = try await atelier("jobs", "cancel", id)
        XCTAssertEqual(cancelled.status, 0, cancelled.output)
        XCTAssertTrue(cancelled.output.contains("cancelled"))
        let again = try await atelier("jobs", "cancel", id)
        XCTAssertEqual(again.status, 0, "cancelling a cancelled job is harmless\n\(again.output)")
        let done = try await db.queue.enqueue(NewJob(kind: "other")).id
        let claimed = try await db.queue.claim(worker: "w", queues: ["default"], kinds: ["other"], limit: 1, lease: .seconds(30))
        _ = try await db.queue.complete(claimed.map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w")
        let finished = try await atelier("jobs", "cancel", done.uuidString)
        XCTAssertEqual(finished.status, 4, "a succeeded job cannot be cancelled: a conflict\n\(finished.output)")
        XCTAssertTrue(finished.output.contains("already succeeded"), finished.output)
        try await XCTAssertEqualAsync(try await atelier("jobs", "retry", id).status, 0)
        try await XCTAssertEqualAsync(try await db.queue.job(id: JobID.parse(id)).state, .queued)

        try await XCTAssertEqualAsync(try await atelier("queue", "pause", "default").status, 0)
        try await XCTAssertEqualAsync(try await db.queue.queues().first?.paused, true)
        try await XCTAssertEqualAsync(try await atelier("queue", "resume", "default").status, 0)
        try await XCTAssertEqualAsync(try await db.queue.queues().first?.paused, false)

        let purge = try await atelier("jobs", "purge", "--older-than", "0s")
        XCTAssertEqual(purge.status, 0, purge.output)
        let bad = try await atelier("jobs", "purge", "--older-than", "soon")
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.output.contains("not a duration"), bad.output)
    }

    /// `jobs cancel|retry --where …`: a dry run prints the count and changes nothing; above 1,000
    /// jobs a script must say --yes; the action prints its progress and its end; bad terms are 64.
    func testBulkActionsByFilter() async throws {
        let held = try await db.queue.enqueue((0..<1_001).map { _ in NewJob(kind: "noop", queue: "held") }).map(\.id)
        let other = try await db.queue.enqueue(NewJob(kind: "noop")).id
        let dry = try await atelier("jobs", "cancel", "--where", "queue=held", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.output.contains("1001 queued or running job(s) match queue=held"), dry.output)
        let asked = try await atelier("jobs", "cancel", "--where", "queue=held")
        XCTAssertEqual(asked.status, 64, "no terminal, no --yes: refused\n\(asked.output)")
        XCTAssertTrue(asked.output.contains("add --yes"), asked.output)
        try await XCTAssertEqualAsync(try await db.queue.countJobs(in: [.cancelled]), 0)

        let done = try await atelier("jobs", "cancel", "--where", "queue=held", "--yes", "--batch-size", "400", "--share", "1")
        XCTAssertEqual(done.status, 0, done.output)
        XCTAssertTrue(done.output.contains("cancelled 400 of 1001"), "progress after each batch\n\(done.output)")
        XCTAssertTrue(done.output.contains("done: cancelled 1001 job(s)"), done.output)
        try await XCTAssertEqualAsync(try await db.queue.jobs(ids: held).filter { $0.state == .cancelled }.count, 1_001)
        try await XCTAssertEqualAsync(try await db.queue.job(id: other).state, .queued)

        let retried = try await atelier("jobs", "retry", "--where", "queue=held", "--where", "state=cancelled", "--yes")
        XCTAssertEqual(retried.status, 0, retried.output)
        try await XCTAssertEqualAsync(try await db.queue.countJobs(in: [.queued]), 1_002)
        let listed = try await atelier("jobs", "bulk", "list", "--json")
        let actions = try XCTUnwrap((try json(listed.output) as? [String: Any])?["bulk_actions"] as? [[String: Any]])
        XCTAssertEqual(actions.map { $0["action"] as? String }, ["retry", "cancel"])
        XCTAssertEqual(actions.map { $0["acted"] as? Int }, [1_001, 1_001])

        for bad in [["--where", "colour=red"], ["--where", "state=exploded"], ["--where", "kind=a", "--where", "kind=b"]] {
            let refused = try await AtelierProcess.run(["jobs", "cancel"] + bad + ["--yes"], database: db.url)
            XCTAssertEqual(refused.status, 64, "\(bad): \(refused.output)")
        }
        let both = try await atelier("jobs", "cancel", other.uuidString, "--where", "queue=held")
        XCTAssertEqual(both.status, 64, both.output)
    }

    func testLimitsSetListClear() async throws {
        let set = try await atelier("limits", "set", "sleep", "--concurrency", "4", "--rate", "50/s", "--json")
        XCTAssertEqual(set.status, 0, set.output)
        let saved = try XCTUnwrap(try json(set.output) as? [String: Any])
        XCTAssertEqual(saved["concurrency"] as? Int, 4)
        XCTAssertEqual((saved["rate"] as? [String: Any])?["period_s"] as? Double, 1)
        let more = try await atelier("limits", "set", "sleep", "--per-owner-concurrency", "2", "--timeout", "90s", "--rate", "none")
        XCTAssertEqual(more.status, 0, more.output)
        XCTAssertTrue(more.output.contains("sleep: concurrency 4, per owner 2, timeout 90s"), "what was not named is kept\n\(more.output)")
        let table = try await atelier("limits", "list")
        XCTAssertTrue(table.output.contains("sleep") && table.output.contains("90s") && table.output.contains("cli:"), table.output)

        let unknown = try await atelier("limits", "set", "nosuch", "--concurrency", "1")
        XCTAssertEqual(unknown.status, 64, unknown.output)
        XCTAssertTrue(unknown.output.contains("unknown kind 'nosuch'"), unknown.output)
        for bad in [["--concurrency", "0"], ["--rate", "50"], ["--timeout", "soon"], []] {
            let refused = try await AtelierProcess.run(["limits", "set", "sleep"] + bad, database: db.url)
            XCTAssertEqual(refused.status, 64, "\(bad)\n\(refused.output)")
        }
        try await XCTAssertEqualAsync(try await db.queue.limits.list().first?.concurrency, 4, "refusals changed nothing")
        try await XCTAssertEqualAsync(try await atelier("limits", "clear", "sleep").status, 0)
        try await XCTAssertEqualAsync(try await db.queue.limits.list().count, 0)
        let list = try await atelier("limits", "list", "--json")
        XCTAssertEqual((try json(list.output) as? [Any])?.count, 0, list.output)
    }

    func testWeightsSetListClear() async throws {
        let set = try await atelier("weights", "set", "user:big", "2.5")
        XCTAssertEqual(set.status, 0, set.output)
        let list = try await atelier("weights", "list", "--json")
        let weights = try XCTUnwrap(try json(list.output) as? [[String: Any]])
        XCTAssertEqual(weights.first?["weight"] as? Double, 2.5)
        let refused = try await atelier("weights", "set", "user:big", "500")
        XCTAssertEqual(refused.status, 64, refused.output)
        try await XCTAssertEqualAsync(try await atelier("weights", "clear", "user:big").status, 0)
        let table = try await atelier("weights")
        XCTAssertTrue(table.output.contains("every owner weighs 1"), table.output)
    }

    func testSchedulesAddListPauseResumeRemove() async throws {
        let added = try await atelier("schedules", "add", "nightly", "--cron", "30 2 * * *", "--kind", "sleep",
                                      "--payload", #"{"ms": 5}"#, "--json")
        XCTAssertEqual(added.status, 0, added.output)
        let schedule = try XCTUnwrap(try json(added.output) as? [String: Any])
        XCTAssertEqual(schedule["kind"] as? String, "sleep")
        XCTAssertEqual(schedule["queue"] as? String, "default")
        XCTAssertEqual((schedule["payload"] as? [String: Any])?["ms"] as? Int, 5)
        XCTAssertTrue((schedule["next_tick"] as? String)?.contains("T02:30:00") == true, added.output)

        let unknown = try await atelier("schedules", "add", "x", "--cron", "* * * * *", "--kind", "nosuch")
        XCTAssertEqual(unknown.status, 64, unknown.output)
        XCTAssertTrue(unknown.output.contains("unknown kind 'nosuch'"), unknown.output)
        let refused = try await atelier("schedules", "add", "x", "--cron", "* * * * *", "--kind", "sleep", "--payload", #"{"ms": -1}"#)
        XCTAssertEqual(refused.status, 64, "the kind's contract checks the payload\n\(refused.output)")
        let badCron = try await atelier("schedules", "add", "x", "--cron", "61 * * * *", "--kind", "noop")
        XCTAssertEqual(badCron.status, 64, badCron.output)
        XCTAssertTrue(badCron.output.contains("out of range for the minute field"), badCron.output)
        let taken = try await atelier("schedules", "add", "nightly", "--cron", "* * * * *", "--kind", "noop")
        XCTAssertEqual(taken.status, 4, taken.output)

        let table = try await atelier("schedules", "list")
        XCTAssertTrue(table.output.contains("nightly") && table.output.contains("30 2 * * *") && table.output.contains("active"), table.output)
        try await XCTAssertEqualAsync(try await atelier("schedules", "pause", "nightly").status, 0)
        try await XCTAssertEqualAsync(try await db.queue.schedules.find(named: "nightly").paused, true)
        try await XCTAssertEqualAsync(try await atelier("schedules", "resume", "nightly").status, 0)
        try await XCTAssertEqualAsync(try await db.queue.schedules.find(named: "nightly").paused, false)
        try await XCTAssertEqualAsync(try await atelier("schedules", "remove", "nightly").status, 0)
        let gone = try await atelier("schedules", "remove", "nightly")
        XCTAssertEqual(gone.status, 3, gone.output)
        XCTAssertTrue(gone.output.contains("no schedule named 'nightly'"), gone.output)
        let listed = try await atelier("schedules", "list", "--json")
        XCTAssertEqual((try json(listed.output) as? [Any])?.count, 0, listed.output)
    }

    func testBadIdsAndMissingJobsExitWithClearErrors() async throws {
        let malformed = try await atelier("jobs", "show", "not-a-job")
        XCTAssertEqual(malformed.status, 3)
        XCTAssertTrue(malformed.output.contains("no job with id 'not-a-job'"), malformed.output)
        let missing = try await atelier("jobs", "show", UUID().uuidString)
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.output.contains("no job with id"), missing.output)
    }

    func testUnreachableDatabaseAndMissingSettingExitWithClearErrors() async throws {
        // A port nothing listens on.
        let nowhere = try DatabaseURL(parsing: "postgres://postgres@127.0.0.1:1/atelier")
        let unreachable = try await AtelierProcess.run(["queue", "stats"], database: nowhere)
        XCTAssertEqual(unreachable.status, 69, unreachable.output)
        XCTAssertTrue(unreachable.output.contains("cannot reach the database at postgres://postgres@127.0.0.1:1/atelier"), unreachable.output)

        let unset = try await AtelierProcess.run(["workers"], database: nil)
        XCTAssertEqual(unset.status, 78, unset.output)
        XCTAssertTrue(unset.output.contains("ATELIER_DATABASE_URL is not set"), unset.output)

        let worker = try await AtelierProcess.run(["work"], database: nowhere)
        XCTAssertEqual(worker.status, 69, worker.output)
    }

    /// `atelier serve` refuses a bad access or network setting at start, naming it and what is valid (exit 78).
    func testServeRefusesBadNetworkSettings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = ["ATELIER_SIGNING_SECRET": String(repeating: "s3cr3t-", count: 6), "ATELIER_LISTEN": "127.0.0.1:0",
                     "ATELIER_DATA_DIR": directory.path, "ATELIER_MODEL_DIR": ""]
        let cases: [(name: String, value: String, says: String)] = [
            ("ATELIER_ANONYMOUS_APPS", "mondrian,fleet",
             "ATELIER_ANONYMOUS_APPS lists 'fleet', which is not an app that can be served without a credential: the valid names are caption, caricature, mondrian"),
            ("ATELIER_ANONYMOUS_RATE_LIMIT", "-1", "ATELIER_ANONYMOUS_RATE_LIMIT must be 0"),
            ("ATELIER_LISTEN", "127.0.0.1:0,nowhere", "ATELIER_LISTEN must be host:port or several, comma-separated"),
            ("ATELIER_LISTEN", "127.0.0.1:5005,127.0.0.1:5005", "ATELIER_LISTEN must be host:port or several, comma-separated"),
            ("ATELIER_LISTEN", "127.0.0.1:5005,", "ATELIER_LISTEN must be host:port or several, comma-separated"),
            ("ATELIER_TRUSTED_HOSTS", "192.168.1.20,evil/path", "ATELIER_TRUSTED_HOSTS must be host names or IP addresses"),
            ("ATELIER_LANE_PROBES", "2,64,90s", "ATELIER_LANE_PROBES must be concurrency,queue[,max_wait]"),
            ("ATELIER_LANE_PROBES", "2,64,soon", "ATELIER_LANE_PROBES must be concurrency,queue[,max_wait]"),
            ("ATELIER_LANE_CHAT", "0,16", "ATELIER_LANE_CHAT must be concurrency,queue[,max_wait]"),
        ]
        for (name, value, says) in cases {
            let serve = try await AtelierProcess.run(["serve"], database: db.url, environment: valid.merging([name: value]) { $1 })
            XCTAssertEqual(serve.status, 78, "\(name)=\(value): \(serve.output)")
            XCTAssertTrue(serve.output.contains(says), "\(name)=\(value): \(serve.output)")
        }
    }

    /// `ATELIER_LOG_FORMAT=json`: every log line of a service is one JSON object with the fixed
    /// keys, from its start to its drain on SIGTERM; a format it does not know is refused.
    func testJSONLogLinesFromStartToDrain() async throws {
        let worker = try AtelierProcess(["work"], database: db.url, environment: ["ATELIER_LOG_FORMAT": "json"])
        try await db.eventually("the worker logs its start") { worker.output.contains(#""message":"worker starting""#) }
        worker.signal(SIGTERM)
        let status = try await worker.waitForExit()
        XCTAssertEqual(status, 0, worker.output)
        let lines = worker.output.split(separator: "\n").filter { !$0.isEmpty }
        XCTAssertGreaterThanOrEqual(lines.count, 2, worker.output)
        var messages: [String] = []
        for line in lines {
            let object = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            for key in ["time", "level", "logger", "source", "message"] {
                XCTAssertNotNil(object[key] as? String, "\(key) in \(line)")
            }
            XCTAssertTrue((object["time"] as? String ?? "").hasSuffix("Z"), "UTC: \(line)")
            messages.append(object["message"] as? String ?? "")
            if object["message"] as? String == "worker stopped" { XCTAssertEqual(object["processed"] as? String, "0", "\(line)") }
        }
        XCTAssertTrue(messages.contains("worker stopped"), "\(messages)")

        let refused = try await AtelierProcess.run(["work"], database: db.url, environment: ["ATELIER_LOG_FORMAT": "xml"])
        XCTAssertEqual(refused.status, 78, refused.output)
        XCTAssertTrue(refused.output.contains("ATELIER_LOG_FORMAT is 'xml'; write text or json"), refused.output)
    }

    /// `ATELIER_STARTUP_WAIT`: a command waits that long for a database that is not there yet,
    /// says so, then fails as it would have at once; without it, it fails at once.
    func testStartupWaitForADatabaseThatNeverComes() async throws {
        let nowhere = try DatabaseURL(parsing: "postgres://atelier@127.0.0.1:1/atelier")
        let waited = try await AtelierProcess.run(["queue", "stats"], database: nowhere,
                                                  environment: ["ATELIER_STARTUP_WAIT": "1s", "ATELIER_LOG_LEVEL": "info"])
        XCTAssertEqual(waited.status, 69, waited.output)
        XCTAssertTrue(waited.output.contains("waiting for the database (up to 1.0s)"), waited.output)
        let atOnce = try await AtelierProcess.run(["queue", "stats"], database: nowhere)
        XCTAssertEqual(atOnce.status, 69, atOnce.output)
        XCTAssertFalse(atOnce.output.contains("waiting for"), atOnce.output)
    }

    func testWorkRefusesAnUnmigratedDatabase() async throws {
        try await db.execute("DELETE FROM atelier_schema_migrations")
        let worker = try await AtelierProcess.run(["work"], database: db.url)
        XCTAssertNotEqual(worker.status, 0)
        XCTAssertTrue(worker.output.contains("run `atelier migrate`"), worker.output)
    }

    /// Log lines keep swift-log's stream format (timestamp, level, label, sorted metadata, source,
    /// message) now that metadata is rendered only when a line is written.
    func testLogLinesKeepTheirFormat() async throws {
        let worker = try AtelierProcess(["work", "--kinds", "noop"], database: db.url,
                                        environment: ["ATELIER_DIAGNOSTIC_KINDS": "true"])
        let deadline = ContinuousClock.now + .seconds(60)
        while !worker.output.contains("worker starting"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let line = try XCTUnwrap(worker.output.split(separator: "\n").first { $0.hasSuffix("worker starting") }, worker.output)
        let pattern = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4} info atelier\.work: concurrency=\d+ kinds=noop queues=default worker=\S+ \[AtelierWorker\] worker starting$/#
        XCTAssertNotNil(String(line).wholeMatch(of: pattern), String(line))
    }

    func testVariantRenderAndPlaceholder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("variant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("photo.png").path, output = folder.appendingPathComponent("thumb.webp").path
        try Data(try ImageCodec.encodePNG(PixelBuffer(width: 120, height: 80, channels: 3, fill: 140))).write(to: URL(fileURLWithPath: input))
        let rendered = try await atelier("variant", "render", "--width", "64", "--height", "64", "--format", "webp", input, output)
        XCTAssertEqual(rendered.status, 0, rendered.output)
        let info = try ImageCodec.probe([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        XCTAssertEqual([info.width, info.height], [64, 64])
        XCTAssertEqual(info.format, .webp)
        let placeholder = try await atelier("variant", "placeholder", input)
        XCTAssertEqual(placeholder.status, 0, placeholder.output)
        let hash = try XCTUnwrap(Data(base64Encoded: placeholder.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(ThumbHash.aspectRatio([UInt8](hash)), 1.5, accuracy: 0.2)
        let refused = try await atelier("variant", "render", "--width", "64", "--fit", "stretch", input, output)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.output.contains("fit must be cover, contain or inside"), refused.output)
    }
}
