@testable import AtelierAPI
import AtelierAPITestSupport
import AtelierAccounts
import AtelierQueue
import AtelierTestSupport
import Foundation
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import XCTest

/// The fleet app's sign-in routes (docs/clients.md §6) against a real server, decoded with
/// structs written from the app team's API document: login, the current user, renewal, logout —
/// and the token of a logged-out session refused by another API process too.
final class FleetAuthAPITests: APITestCase {
    // The fleet app's models, as its API document prints the JSON.
    struct LoginRequest: Codable { let email: String; let password: String }
    struct LoginResponse: Codable {
        struct UserModel: Codable { let id: String; let email: String; let role: String }
        let token: String; let user: UserModel; let expiresIn: Int
    }
    struct CurrentUser: Codable { let id: String; let email: String; let name: String; let role: String; let permissions: [String] }
    struct RefreshResponse: Codable { let token: String; let expiresIn: Int }
    struct ErrorBody: Codable { let error: String; let message: String; let code: String?; let retryAfter: Int?; let details: [String: String]? }

    var users: UserStore { UserStore(database: db.queue.database, logger: db.queue.logger) }

    /// The per-email budget is what these tests count: the passwords lane's deadline, which
    /// follows the machine's pace (scrypt under a busy CI machine), must not answer first.
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.lanes.passwords.maxWait = .seconds(60)
    }

    func login(_ email: String, _ password: String) async throws -> Reply {
        try await request(.POST, "/api/auth/login", token: .some(nil),
                          body: try JSONEncoder().encode(LoginRequest(email: email, password: password)), contentType: "application/json")
    }

    func bearer(_ method: HTTPMethod, _ path: String, _ token: String) async throws -> Reply {
        try await request(method, path, token: .some(nil), headers: [("Authorization", "Bearer " + token)])
    }

    func testADriverLogsInReadsItselfRefreshesAndLogsOut() async throws {
        let driver = try await users.create(email: "John.Driver@example.com", name: "John Driver", role: "driver",
                                            permissions: ["vehicle.read", "trip.create"], password: "password123")
        let reply = try await login("john.driver@example.com", "password123")
        XCTAssertEqual(reply.status, 200, reply.text)
        let session = try JSONDecoder().decode(LoginResponse.self, from: reply.body)
        XCTAssertEqual(session.user.id, driver.id.uuidString.lowercased())
        XCTAssertEqual(session.user.email, "John.Driver@example.com")
        XCTAssertEqual(session.user.role, "driver")
        XCTAssertEqual(session.expiresIn, 3600, accuracy: 2)

        let me = try await bearer(.GET, "/api/auth/me", session.token)
        XCTAssertEqual(me.status, 200, me.text)
        let current = try JSONDecoder().decode(CurrentUser.self, from: me.body)
        XCTAssertEqual(current.name, "John Driver")
        XCTAssertEqual(current.permissions, ["vehicle.read", "trip.create"])

        let renewed = try await bearer(.POST, "/api/auth/refresh", session.token)
        XCTAssertEqual(renewed.status, 200, renewed.text)
        let refresh = try JSONDecoder().decode(RefreshResponse.self, from: renewed.body)
        XCTAssertNotEqual(refresh.token, session.token)
        let stale = try await bearer(.GET, "/api/auth/me", session.token)
        XCTAssertEqual(stale.status, 401, "the renewed token stops working")

        let out = try await bearer(.POST, "/api/auth/logout", refresh.token)
        XCTAssertEqual(out.status, 204, out.text)
        XCTAssertTrue(out.body.isEmpty)
        let after = try await bearer(.GET, "/api/auth/me", refresh.token)
        XCTAssertEqual(after.status, 401)
        let body = try JSONDecoder().decode(ErrorBody.self, from: after.body)
        XCTAssertEqual(body.error, "Unauthorized")
        XCTAssertEqual(body.message, "Token expired or invalid")
    }

    /// The same 401 for a wrong password, an unknown email and a disabled user.
    func testEveryFailedLoginIsTheDocumentsOwn401() async throws {
        _ = try await users.create(email: "ana@example.com", password: "password123")
        _ = try await users.create(email: "gone@example.com", password: "password123")
        try await users.disable(email: "gone@example.com")
        for (email, password) in [("ana@example.com", "wrong-password"), ("nobody@example.com", "password123"),
                                  ("gone@example.com", "password123")] {
            let reply = try await login(email, password)
            XCTAssertEqual(reply.status, 401, email)
            let body = try JSONDecoder().decode(ErrorBody.self, from: reply.body)
            XCTAssertEqual(body.error, "Invalid credentials")
            XCTAssertEqual(body.message, "Email or password incorrect")
        }
    }

    func testMissingFieldsAndBadBodiesAreValidationErrors() async throws {
        for body in [#"{"email":"a@example.com"}"#, #"{}"#, "not json", #"{"email":"","password":""}"#] {
            let reply = try await request(.POST, "/api/auth/login", token: .some(nil), body: Data(body.utf8), contentType: "application/json")
            XCTAssertEqual(reply.status, 400, body)
            let error = try JSONDecoder().decode(ErrorBody.self, from: reply.body)
            XCTAssertEqual(error.error, "ValidationError")
            XCTAssertNotNil(error.details, body)
        }
        let missing = try await request(.POST, "/api/auth/login", token: .some(nil), body: Data(#"{"email":"a@example.com"}"#.utf8),
                                        contentType: "application/json")
        XCTAssertEqual(try JSONDecoder().decode(ErrorBody.self, from: missing.body).details, ["password": "Password required"])
    }

    /// Ten tries a minute per email, whatever its case: then 429 with retryAfter. The tries go
    /// out at once, so that the bucket's refill (one try per 6 s) cannot hand out more while
    /// slow password checks run — one after another, under a busy machine, they took long
    /// enough to refill it.
    func testLoginIsLimitedPerEmail() async throws {
        _ = try await users.create(email: "target@example.com", password: "password123")
        // A client of its own: every try on its own connection at once.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let url = baseURL + "/api/auth/login"
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for n in 0..<14 {
                let body = try JSONEncoder().encode(LoginRequest(email: n % 2 == 0 ? "target@example.com" : "TARGET@example.com",
                                                                  password: "guess-guess"))
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: body))
                    let response = try await http.execute(request, timeout: .seconds(120))
                    let answer = try await response.body.collect(upTo: 1 << 20)
                    return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: answer))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await http.shutdown()
        let statuses = replies.map(\.status)
        XCTAssertTrue(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
        XCTAssertLessThanOrEqual(statuses.filter { $0 == 401 }.count, 11, "one email, one budget: \(statuses)")
        let limited = try XCTUnwrap(replies.first { $0.status == 429 })
        let body = try JSONDecoder().decode(ErrorBody.self, from: limited.body)
        XCTAssertEqual(body.error, "RateLimitError")
        XCTAssertEqual(body.retryAfter.map(String.init), limited.header("Retry-After"))
    }

    /// Of parallel refreshes of one token exactly one gets a new token: the old one is spent in
    /// the statement that decides (before, each verified it, issued, then revoked: all won and
    /// the chain forked).
    func testParallelRefreshesOfOneTokenGiveOneNewToken() async throws {
        _ = try await users.create(email: "gus@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("gus@example.com", "password123").body)
        let (http, url, token) = (self.http!, baseURL + "/api/auth/refresh", session.token)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer " + token)
                    let response = try await http.execute(request, timeout: .seconds(60))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    return Int(response.status.code)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses.sorted(), [200, 401, 401, 401, 401, 401])
    }

    /// The fleet app's refresh renews fleet tokens only; a console session is no credential for
    /// the core API.
    func testOtherAppsTokensAreRefusedWhereTheyDoNotBelong() async throws {
        let user = try await users.create(email: "hal@example.com", password: "password123")
        let accounts = try XCTUnwrap(server.accounts)
        let learn = try await accounts.issue(for: user, audience: .learn).token
        let console = try await accounts.issue(for: user, audience: .console).token
        let renewed = try await bearer(.POST, "/api/auth/refresh", learn)
        XCTAssertEqual(renewed.status, 401, renewed.text)
        let onTheAPI = try await request(.GET, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer " + console)])
        XCTAssertEqual(onTheAPI.status, 401, onTheAPI.text)
        let learnOnTheAPI = try await request(.GET, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer " + learn)])
        XCTAssertEqual(learnOnTheAPI.status, 200, learnOnTheAPI.text)
    }

    /// A refresh keeps the session's sign-in time, and the new token ends with the session (30
    /// days from the sign-in); a session older than that is refused as expired: sign in again.
    /// (Before, refresh renewed any token for ever.) The tokens are made as the server would
    /// have made them, signed in long ago.
    func testNoSessionIsRenewedPastItsMaximumAge() async throws {
        let user = try await users.create(email: "ida@example.com", password: "password123")
        let accounts = try XCTUnwrap(server.accounts)
        let thirtyDays = 30.0 * 86400
        let youngStart = Date().addingTimeInterval(-thirtyDays + 2400)
        let young = try await accounts.access.issue(for: user, audience: .fleet, signedInAt: youngStart,
                                                    now: Date().addingTimeInterval(-600)).token
        let renewed = try await bearer(.POST, "/api/auth/refresh", young)
        XCTAssertEqual(renewed.status, 200, renewed.text)
        let fresh = try JSONDecoder().decode(RefreshResponse.self, from: renewed.body)
        XCTAssertLessThanOrEqual(fresh.expiresIn, 2400 + 5, "capped at the session's end, 40 minutes from now")
        let renewedClaims = try await accounts.access.verify(fresh.token)
        XCTAssertEqual(renewedClaims.signedInAt.timeIntervalSince1970, youngStart.timeIntervalSince1970, accuracy: 1)

        let old = try await accounts.access.issue(for: user, audience: .fleet, signedInAt: Date().addingTimeInterval(-thirtyDays - 60),
                                                  now: Date().addingTimeInterval(-600)).token
        let refused = try await bearer(.POST, "/api/auth/refresh", old)
        XCTAssertEqual(refused.status, 401, refused.text)
        XCTAssertEqual(try JSONDecoder().decode(ErrorBody.self, from: refused.body).code, "TOKEN_EXPIRED")
    }

    /// A user's logout tells every process about that token alone: the app tokens' cache keeps
    /// its answers (before, each logout or refresh flushed it in every API process, so a stream
    /// of refreshes sent every app-token request to the database).
    func testALogoutLeavesTheAppTokenCacheAlone() async throws {
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs").status, 200)
        XCTAssertEqual(server.authenticator.cachedTokenCount, 1)
        _ = try await users.create(email: "jo@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("jo@example.com", "password123").body)
        let claims = try await XCTUnwrap(server.accounts).access.verify(session.token)
        try await XCTAssertEqualAsync(try await bearer(.POST, "/api/auth/logout", session.token).status, 204)
        let accounts = try XCTUnwrap(server.accounts)
        try await db.eventually("the logout's notification arrived") {
            accounts.revocations.isRevokedInMemory(tokenID: claims.tokenID!, userID: claims.userID!) == true
        }
        XCTAssertEqual(server.authenticator.cachedTokenCount, 1, "the app token is still answered from memory")
    }

    func testTokenNoticesSayWhatTheyAreAbout() {
        let id = UUID()
        XCTAssertEqual(TokenNotice(payload: "changed"), .appTokens)
        XCTAssertEqual(TokenNotice(payload: "jti:" + id.uuidString.lowercased()), .accessToken(id))
        XCTAssertEqual(TokenNotice(payload: "user:" + id.uuidString.lowercased()), .user(id))
        XCTAssertEqual(TokenNotice(payload: "jti:not-an-id"), .appTokens, "anything else is taken for the broadest change")
    }

    /// The store finds a user by any spelling the limit counts as the same address.
    func testSignInAcceptsTheAddressInAnotherUnicodeForm() async throws {
        _ = try await users.create(email: "zo\u{EB}@example.com", password: "password123")
        let reply = try await login(" zoe\u{308}@example.com", "password123")
        XCTAssertEqual(reply.status, 200)
    }

    func testGarbageExpiredAndForeignTokensAre401() async throws {
        let user = try await users.create(email: "cy@example.com", password: "password123")
        let expired = try await AccessTokens(secret: String(repeating: "jwt-s3cr3t-", count: 4))
            .issue(for: user, audience: .fleet, now: Date().addingTimeInterval(-7200)).token
        let foreign = try await AccessTokens(secret: String(repeating: "another-key-", count: 4)).issue(for: user, audience: .fleet).token
        for (token, code) in [(expired, "TOKEN_EXPIRED"), (foreign, "TOKEN_INVALID"), ("garbage", "TOKEN_INVALID")] {
            let reply = try await bearer(.GET, "/api/auth/me", token)
            XCTAssertEqual(reply.status, 401)
            XCTAssertEqual(try JSONDecoder().decode(ErrorBody.self, from: reply.body).code, code)
        }
        let none = try await request(.GET, "/api/auth/me", token: .some(nil))
        XCTAssertEqual(none.status, 401)
    }

    /// An access token works on /v1 too; its jobs belong to the user, not to an app token's owner.
    func testAnAccessTokenIsACredentialForTheCoreAPI() async throws {
        let user = try await users.create(email: "dee@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("dee@example.com", "password123").body)
        let created = try await request(.POST, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer " + session.token)],
                                        body: Data(#"{"kind":"noop"}"#.utf8), contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let owner = try await db.scalar("SELECT owner FROM jobs WHERE id = \(UUID(uuidString: id)!)", as: String.self)
        XCTAssertEqual(owner, user.owner)
        let other = try await request(.GET, "/v1/jobs/\(id)")   // alice's app token: another owner
        XCTAssertEqual(other.status, 404)
        _ = try await bearer(.POST, "/api/auth/logout", session.token)
        let refused = try await request(.GET, "/v1/jobs/\(id)", token: .some(nil), headers: [("Authorization", "Bearer " + session.token)])
        XCTAssertEqual(refused.status, 401)
    }

    /// Logout in one API process: another process (its own listener and memory) refuses the
    /// token as soon as the notification reaches it.
    func testALoggedOutTokenIsRefusedByAnotherAPIProcess() async throws {
        _ = try await users.create(email: "eve@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("eve@example.com", "password123").body)
        let otherQueue = JobQueue(url: db.url, applicationName: "atelier-other-api", maxConnections: 2, logger: db.queue.logger)
        let otherNotifier = Notifier(url: db.url, channels: [Notifier.Channel.tokens], logger: db.queue.logger)
        let other = try UserAccounts(secret: String(repeating: "jwt-s3cr3t-", count: 4), lifetime: .seconds(3600),
                                     queue: otherQueue, notifier: otherNotifier)
        let running = Task { await withDiscardingTaskGroup { group in
            group.addTask { await otherQueue.run() }
            group.addTask { await otherNotifier.run() }
        } }
        defer { running.cancel() }
        try await db.eventually("the other process listens") { otherNotifier.isListening }
        _ = try await other.verify(session.token, audiences: [.fleet])          // valid there, and now in its memory
        let out = try await bearer(.POST, "/api/auth/logout", session.token)
        XCTAssertEqual(out.status, 204)
        try await db.eventually("the other process refuses the token") {
            do { _ = try await other.verify(session.token, audiences: [.fleet]); return false } catch { return true }
        }
    }

    /// A user disabled while another process reloads its revocations: the reload read the
    /// disabled users before the disabling committed, and the `user:` notification arrived
    /// before the reload finished. The reload's older list must not win (it did: the user's
    /// token kept working in that process until the next reconnect).
    func testAUserDisabledDuringAReloadIsRefused() async throws {
        let user = try await users.create(email: "fay@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("fay@example.com", "password123").body)
        let claims = try await AccessTokens(secret: String(repeating: "jwt-s3cr3t-", count: 4)).verify(session.token)
        let otherQueue = JobQueue(url: db.url, applicationName: "atelier-other-api", maxConnections: 2, logger: db.queue.logger)
        let otherNotifier = Notifier(url: db.url, channels: [Notifier.Channel.tokens], logger: db.queue.logger)
        let held = ReloadHold()
        let revocations = AccessRevocations(
            revoked: RevokedAccessTokens(database: otherQueue.database, logger: db.queue.logger),
            users: UserStore(database: otherQueue.database, logger: db.queue.logger),
            notifier: otherNotifier, lifetime: .seconds(3600), afterReading: { await held.holdFirst() })
        let heard = ReloadHold.Flag()
        otherNotifier.observe { if $0.payload == "user:" + user.id.uuidString.lowercased() { heard.set() } }
        let running = Task { await withDiscardingTaskGroup { group in
            group.addTask { await otherQueue.run() }
            group.addTask { await otherNotifier.run() }
        } }
        defer { running.cancel() }
        try await db.eventually("the other process listens") { otherNotifier.isListening }

        let first = Task { try await revocations.isRevoked(claims) }
        try await db.eventually("the reload has read") { held.isHolding }
        _ = try await users.disable(email: "fay@example.com")
        try await db.eventually("the disabling's notification arrived") { heard.isSet }
        held.release()
        _ = try await first.value
        try await XCTAssertEqualAsync(try await revocations.isRevoked(claims), true, "the disabled user's token still works")
    }

    /// Checks that find memory stale while a reload runs wait for it: one read of every revoked
    /// token id, not one per check (after a listener reconnect every concurrent request read the
    /// whole table again).
    func testConcurrentChecksShareOneReload() async throws {
        _ = try await users.create(email: "gus@example.com", password: "password123")
        let session = try JSONDecoder().decode(LoginResponse.self, from: try await login("gus@example.com", "password123").body)
        let claims = try await AccessTokens(secret: String(repeating: "jwt-s3cr3t-", count: 4)).verify(session.token)
        let otherQueue = JobQueue(url: db.url, applicationName: "atelier-other-api", maxConnections: 2, logger: db.queue.logger)
        let otherNotifier = Notifier(url: db.url, channels: [Notifier.Channel.tokens], logger: db.queue.logger)
        let held = ReloadHold()
        let revocations = AccessRevocations(
            revoked: RevokedAccessTokens(database: otherQueue.database, logger: db.queue.logger),
            users: UserStore(database: otherQueue.database, logger: db.queue.logger),
            notifier: otherNotifier, lifetime: .seconds(3600), afterReading: { await held.holdFirst() })
        let running = Task { await withDiscardingTaskGroup { group in
            group.addTask { await otherQueue.run() }
            group.addTask { await otherNotifier.run() }
        } }
        defer { running.cancel() }
        try await db.eventually("the other process listens") { otherNotifier.isListening }

        let first = Task { try await revocations.isRevoked(claims) }
        try await db.eventually("the reload has read") { held.isHolding }
        let others = (0..<20).map { _ in Task { try await revocations.isRevoked(claims) } }
        try await db.eventually("every other check waits for the reload") { revocations.reloadCounts.joined == 20 }
        held.release()
        try await XCTAssertEqualAsync(try await first.value, false)
        for other in others { try await XCTAssertEqualAsync(try await other.value, false) }
        XCTAssertEqual(revocations.reloadCounts.started, 1)
        XCTAssertEqual(held.calls, 1, "one read of the revoked tokens for 21 checks")
    }

    /// A logged-out user's event streams end; another user's stay open (a stream held by an
    /// access token is never mistaken for one of a revoked app token).
    func testLogoutEndsThatTokensStreamsOnly() async throws {
        _ = try await users.create(email: "ana@example.com", password: "password123")
        _ = try await users.create(email: "bo@example.com", password: "password123")
        let ana = try JSONDecoder().decode(LoginResponse.self, from: try await login("ana@example.com", "password123").body).token
        let bo = try JSONDecoder().decode(LoginResponse.self, from: try await login("bo@example.com", "password123").body).token
        func sleepJob(_ token: String) async throws -> String {
            let created = try await request(.POST, "/v1/jobs", token: .some(nil), headers: [("Authorization", "Bearer " + token)],
                                            body: Data(#"{"kind":"sleep","options":{"ms":3600000}}"#.utf8), contentType: "application/json")
            XCTAssertEqual(created.status, 200, created.text)
            return try XCTUnwrap(try created.json()["id"] as? String)
        }
        func stream(_ id: String, _ token: String) async throws -> HTTPClientResponse {
            var request = HTTPClientRequest(url: baseURL + "/v1/jobs/\(id)/events")
            request.headers.add(name: "Authorization", value: "Bearer " + token)
            let response = try await http.execute(request, timeout: .seconds(60))
            XCTAssertEqual(response.status.code, 200)
            return response
        }
        let anasJob = try await sleepJob(ana), bosJob = try await sleepJob(bo)
        let anas = try await stream(anasJob, ana), bos = try await stream(bosJob, bo)
        try await db.eventually("both streams are open") { server.hub.streamCount == 2 }

        _ = try await bearer(.POST, "/api/auth/logout", bo)
        for try await _ in bos.body { }   // returns only when the server ends the stream
        try await db.eventually("bo's stream is released", timeout: .seconds(10)) { server.hub.streamCount == 1 }

        // Ana's stream is still there: it carries her job's cancellation to its end.
        let cancel = try await request(.POST, "/v1/jobs/\(anasJob)/cancel", token: .some(nil), headers: [("Authorization", "Bearer " + ana)])
        XCTAssertEqual(cancel.status, 202, cancel.text)   // running: asked to stop
        var text = ""
        for try await chunk in anas.body { text += String(buffer: chunk) }
        XCTAssertTrue(text.contains("event: cancelled"), text)
        let bosID = try XCTUnwrap(UUID(uuidString: bosJob))
        let bosOwner = try await db.scalar("SELECT owner FROM jobs WHERE id = \(bosID)", as: String.self)
        _ = try await db.queue.cancel(id: bosID, owner: bosOwner, reason: "test over")
    }
}

/// Holds the first reload of an ``AccessRevocations`` between its reads and its update.
final class ReloadHold: Sendable {
    private let state = Mutex<(calls: Int, holding: Bool, released: Bool, waiter: CheckedContinuation<Void, Never>?)>((0, false, false, nil))

    var isHolding: Bool { state.withLock { $0.holding } }
    var calls: Int { state.withLock { $0.calls } }

    func holdFirst() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state -> Bool in
                state.calls += 1
                guard state.calls == 1, !state.released else { return true }
                state.holding = true
                state.waiter = continuation
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }
}
