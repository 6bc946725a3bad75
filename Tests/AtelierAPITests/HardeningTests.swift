import AsyncHTTPClient
@testable import AtelierAPI
import AtelierAPITestSupport
import AtelierQueue
import AtelierTestSupport
import Foundation
import XCTest

/// Unknown tokens cost an address its budget, not the database its connections; answers about
/// tokens are never cached across a revocation; `last_used_at` is written at most once a minute.
final class CredentialFloodTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.unauthenticatedRateLimitPerMinute = 5
        configuration.api.rateLimitPerMinute = 1000
    }

    func testRotatingMadeUpTokensRunOutOfTheAddressBudget() async throws {
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs").status, 200, "a real token, now known good")
        var statuses: [Int] = []
        for _ in 0..<30 {
            let reply = try await request(.GET, "/v1/jobs", token: .some("atl_made-up-\(UUID())"))
            statuses.append(reply.status)
            if reply.status == 429 {
                try assertError(reply, status: 429, name: "RateLimitError")
                XCTAssertNotNil(reply.header("Retry-After"))
            }
        }
        XCTAssertEqual(Set(statuses), [401, 429], "wrong tokens get 401 while the address has budget, then 429")
        let upload = try await request(.POST, "/upload", token: .some("atl_\(UUID())"))
        try assertError(upload, status: 429, name: "RateLimitError")
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs").status, 200, "a known-good token is not charged to the address")
        let cached = server.authenticator.cachedCounts
        XCTAssertEqual(cached.valid, 1)
        XCTAssertEqual(cached.misses, statuses.filter { $0 == 401 }.count,
                       "each 401 cost one database lookup; a 429 costs none")
    }

    func testTheRateLimitIsKeyedOnTheProvenToken() async throws {
        let reply = try await request(.GET, "/v1/jobs")
        XCTAssertEqual(reply.header("X-RateLimit-Limit"), "1000")
        let wrong = try await request(.GET, "/v1/jobs", token: .some("atl_wrong"))
        XCTAssertNil(wrong.header("X-RateLimit-Limit"), "a token that is not proven has no bucket of its own")
    }

    func testALookupThatRacesARevocationIsNotCached() async throws {
        let authenticator = server.authenticator
        let secret = try await AtelierAPITestTokens.make(db.queue, name: "racing")
        let hash = AppTokens.hash(secret)
        // The lookup starts and finds the token live…
        let started = authenticator.beginLookup()
        let token = try await AppTokens(database: db.queue.database).authenticate(secret)
        XCTAssertNotNil(token)
        // …the token is revoked while it is in flight (the notification empties the caches)…
        _ = try await AppTokens(database: db.queue.database).revoke("racing")
        try await db.eventually("the revocation notification arrives", timeout: .seconds(10)) {
            authenticator.beginLookup() != started
        }
        // …and the late answer is not remembered.
        authenticator.finishLookup(hash, Principal(owner: "racing", name: "racing", tokenHash: hash), startedAt: started)
        XCTAssertEqual(authenticator.cachedCounts.valid, 0)
        try assertError(try await request(.GET, "/v1/jobs", token: .some(secret)), status: 401, name: "AuthenticationError")
        // A lookup with nothing in between is remembered.
        let fresh = authenticator.beginLookup()
        authenticator.finishLookup("other", Principal(owner: "o", name: "o", tokenHash: "other"), startedAt: fresh)
        XCTAssertEqual(authenticator.cachedCounts.valid, 1)
    }

    func testLastUsedIsWrittenAtMostOnceAMinute() async throws {
        let tokens = AppTokens(database: db.queue.database)
        let secret = try await AtelierAPITestTokens.make(db.queue, name: "busy")
        let firstUse = try await tokens.authenticate(secret)
        let first = try XCTUnwrap(firstUse?.lastUsedAt)
        let secondUse = try await tokens.authenticate(secret)
        XCTAssertEqual(secondUse?.lastUsedAt, first, "a second use within the minute writes nothing")
        try await db.execute("UPDATE app_tokens SET last_used_at = now() - interval '2 minutes' WHERE name = 'busy'")
        let thirdUse = try await tokens.authenticate(secret)
        let third = try XCTUnwrap(thirdUse?.lastUsedAt)
        XCTAssertGreaterThanOrEqual(third, first, "a use after a minute is recorded")
    }
}

/// Open event streams are capped per owner and per process, and a revoked token's streams end.
final class StreamLimitTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.maxStreamsPerOwner = 2
        configuration.api.maxStreams = 3
    }

    func testStreamsPastTheLimitAre429AndARevokedTokensStreamsEnd() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 3_600_000])
        let first = try await openStream("/v1/jobs/\(id)/events")
        let second = try await openStream("/v1/jobs/\(id)/events")
        try assertError(try await request(.GET, "/v1/jobs/\(id)/events"), status: 429, name: "StreamLimitError")

        let bob = try await AtelierAPITestTokens.make(db.queue, name: "bob")
        let bobsJob = try await createJob(kind: "sleep", options: ["ms": 3_600_000], token: .some(bob))
        let bobs = try await openStream("/v1/jobs/\(bobsJob)/events", token: bob)
        XCTAssertEqual(server.hub.streamCount, 3)
        let carol = try await AtelierAPITestTokens.make(db.queue, name: "carol")
        let carolsJob = try await createJob(kind: "noop", token: .some(carol))
        try assertError(try await request(.GET, "/v1/jobs/\(carolsJob)/events", token: .some(carol)), status: 429,
                        name: "StreamLimitError")

        // Revoking bob ends his stream (and only his).
        _ = try await AppTokens(database: db.queue.database).revoke("bob")
        for try await _ in bobs.body { }   // returns only when the server ends the stream
        try await db.eventually("bob's stream is released", timeout: .seconds(10)) { server.hub.streamCount == 2 }
        _ = first; _ = second
        _ = try await request(.DELETE, "/v1/jobs/\(id)")
        _ = try await db.queue.cancel(id: try XCTUnwrap(UUID(uuidString: bobsJob)), owner: "bob", reason: "test over")
    }

    private func openStream(_ path: String, token: String? = nil) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.headers.add(name: "X-App-Token", value: token ?? self.token)
        let response = try await http.execute(request, timeout: .seconds(60))
        XCTAssertEqual(response.status.code, 200)
        return response
    }
}

/// Per-owner quotas at intake.
final class QuotaTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.maxActiveJobsPerOwner = 2
        configuration.api.maxStoredBytesPerOwner = 3 * TestImages.png(width: 64, height: 64).count / 2
    }

    func testActiveJobsAndStoredBytesPerOwner() async throws {
        _ = try await createJob(kind: "noop")
        _ = try await createJob(kind: "noop")
        let body = try JSONSerialization.data(withJSONObject: ["kind": "noop"])
        let refused = try await request(.POST, "/v1/jobs", body: body, contentType: "application/json")
        try assertError(refused, status: 429, name: "QuotaExceededError")
        XCTAssertEqual(try refused.json()["details"].flatMap { ($0 as? [String: Any])?["quota"] as? String }, "active_jobs")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 2, "nothing stored for the refused request")

        let bob = try await AtelierAPITestTokens.make(db.queue, name: "bob")
        let image = TestImages.png(width: 64, height: 64)
        let (form, type) = multipart([("kind", "echo")], image: image)
        try await XCTAssertEqualAsync(try await request(.POST, "/v1/jobs", token: .some(bob), body: form, contentType: type).status, 200,
                                      "another owner has their own quota")
        let (again, againType) = multipart([("kind", "echo")], image: image)
        let over = try await request(.POST, "/v1/jobs", token: .some(bob), body: again, contentType: againType)
        try assertError(over, status: 429, name: "QuotaExceededError")
        XCTAssertEqual(try over.json()["details"].flatMap { ($0 as? [String: Any])?["quota"] as? String }, "stored_bytes")
    }
}

/// `Expect: 100-continue`, idle connections and forms with too many parts.
final class ConnectionTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.httpIdleTimeout = .seconds(1)
        configuration.api.maxUploadBytes = 64 * 1024
    }

    private var port: Int { Int(baseURL.split(separator: ":").last!)! }

    func testExpectContinueIsAnsweredAfterTheChecksThatNeedNoBody() async throws {
        let body = #"{"kind":"noop"}"#
        let connection = try RawHTTPConnection(port: port)
        connection.send("POST /v1/jobs HTTP/1.1\r\nHost: test\r\nX-App-Token: \(token)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = connection.read(until: "\r\n\r\n")
        XCTAssertTrue(interim.hasPrefix("HTTP/1.1 100 Continue"), interim)
        connection.send(body)
        let final = connection.read(until: "\"stream_url\"")
        XCTAssertTrue(final.hasPrefix("HTTP/1.1 200"), final)

        // No credential: the final 401 at once, no 100, and the connection is closed.
        let anonymous = try RawHTTPConnection(port: port)
        anonymous.send("POST /v1/jobs HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                       + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        let refused = anonymous.read(until: "}")
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 401"), refused)
        XCTAssertTrue(refused.lowercased().contains("connection: close"), refused)
        XCTAssertTrue(anonymous.waitForClose())

        // Too large by its Content-Length: 413, no 100.
        let large = try RawHTTPConnection(port: port)
        large.send("POST /v1/jobs HTTP/1.1\r\nHost: test\r\nX-App-Token: \(token)\r\nContent-Type: application/json\r\n"
                   + "Content-Length: 10000000\r\nExpect: 100-continue\r\n\r\n")
        let tooLarge = large.read(until: "}")
        XCTAssertFalse(tooLarge.contains("100 Continue"), tooLarge)
        XCTAssertTrue(tooLarge.hasPrefix("HTTP/1.1 4"), tooLarge)
        XCTAssertEqual(ContinueTickets.shared.count, 0, "no ticket is left behind")
    }

    func testAClientThatStopsSendingIsDisconnected() async throws {
        let slow = try RawHTTPConnection(port: port)
        slow.send("GET /health HTTP/1.1\r\nHost: test\r\nX-Slow: ")
        XCTAssertTrue(slow.waitForClose(), "a request head that stops arriving is cut off by the idle timeout")
        try await XCTAssertEqualAsync(try await request(.GET, "/health", token: .some(nil)).status, 200)
    }

    func testAFormWithTooManyPartsIsRefused() async throws {
        let fields = (0..<40).map { ("field\($0)", "x") }
        let (form, type) = multipart([("kind", "noop")] + fields)
        try assertError(try await request(.POST, "/v1/jobs", body: form, contentType: type), status: 400, name: "ValidationError")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 0)
    }
}

/// The job view cache stays bounded however many jobs change, and still refuses stale reads.
final class JobViewCacheBoundTests: APITestCase {
    override var runsWorker: Bool { false }

    func testOneHundredThousandNotificationsLeaveTheCacheBounded() async throws {
        let cache = server.cache
        let stale = UUID()
        let readBefore = cache.beginRead()
        // 100,000 job ids in 1,000 real notifications, as the queue sends them.
        try await db.execute("""
            SELECT pg_notify('atelier_job_events', string_agg(gen_random_uuid()::text || ':1', ','))
              FROM generate_series(0, 99999) AS n GROUP BY n / 100
            """)
        let last = UUID()
        try await db.execute("SELECT pg_notify('atelier_job_events', \(last.uuidString.lowercased() + ":1"))")
        try await db.eventually("every notification is processed", timeout: .seconds(30)) { cache.tombstone(of: last) != nil }
        let counts = cache.counts
        XCTAssertEqual(counts.entries, 0)
        XCTAssertLessThanOrEqual(counts.tombstones, 4096)
        // A read that began before all that may no longer store (its change may be forgotten)…
        let entry = JobViewCache.Entry(owner: "alice", body: Data("{}".utf8), etag: "\"x\"", expires: .now + .seconds(30))
        cache.store(stale, entry, readToken: readBefore)
        XCTAssertNil(cache.lookup(stale))
        // …a fresh one may, and a change after it drops the entry.
        cache.store(stale, entry, readToken: cache.beginRead())
        XCTAssertNotNil(cache.lookup(stale))
        cache.invalidate([stale])
        XCTAssertNil(cache.lookup(stale))
    }
}

/// Smaller pieces: shared recent results and the access log's redaction.
final class SharedResultTests: XCTestCase {
    func testConcurrentCallersShareOneComputation() async throws {
        let calls = Counter()
        let shared = SharedRecentResult(maxAge: .seconds(3600)) { await calls.next() }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await shared.value() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(values), [1])
        let count = await calls.value
        XCTAssertEqual(count, 1)
        let fresh = SharedRecentResult(maxAge: .zero) { await calls.next() }
        _ = try await fresh.value()
        _ = try await fresh.value()
        let after = await calls.value
        XCTAssertEqual(after, 3, "an answer older than maxAge is computed again")
    }

    func testAccessLogRedactsSignedImageNames() {
        XCTAssertEqual(RequestLogMiddleware.redacted("/image/source/0192-abc.Xk3_tag.jpg"), "/image/source/[redacted]")
        XCTAssertEqual(RequestLogMiddleware.redacted("/v1/jobs"), "/v1/jobs")
    }
}

actor Counter {
    private(set) var value = 0
    func next() -> Int { value += 1; return value }
}

/// Inputs the schema-driven run found: each a 4xx that changes nothing.
final class EdgeInputTests: APITestCase {
    override var runsWorker: Bool { false }

    func testNulInOptionsIsRefusedNotA500() async throws {
        let body = Data(#"{"kind": "noop", "options": {"note": "a\u0000b", "list": [{"k\u0000": 1}]}}"#.utf8)
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: "application/json")
        try assertError(reply, status: 400, name: "ValidationError")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 0)
    }

    func testABlankLastEventIDHeaderLetsTheQueryCount() async throws {
        let id = try await createJob(kind: "noop")
        let reply = try await request(.GET, "/v1/jobs/\(id)/events?last_event_id=9223372036854775808",
                                      headers: [("Last-Event-ID", "")])
        try assertError(reply, status: 400, name: "ValidationError")
    }
}
