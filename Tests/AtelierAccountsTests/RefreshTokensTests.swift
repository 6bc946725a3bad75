import AtelierAccounts
import AtelierTestSupport
import Foundation
import XCTest

final class RefreshTokensTests: DatabaseTestCase {
    var users: UserStore { UserStore(database: db.queue.database, logger: db.queue.logger) }
    static let secret = String(repeating: "jwt-s3cr3t-", count: 4)
    /// No reuse window: every second use ends the family.
    var refresh: RefreshTokens { RefreshTokens(database: db.queue.database, secret: Self.secret, reuseWindow: .zero, logger: db.queue.logger) }
    /// An hour's window, so that the test never meets its end.
    var forgiving: RefreshTokens { RefreshTokens(database: db.queue.database, secret: Self.secret, reuseWindow: .seconds(3600), logger: db.queue.logger) }

    func testATokenRotatesOnEveryUse() async throws {
        let user = try await users.create(email: "ana@example.com")
        let first = try await refresh.issue(for: user.id)
        XCTAssertTrue(first.token.hasPrefix("atr_"))
        XCTAssertEqual(first.expiresAt.timeIntervalSinceNow, 30 * 24 * 3600, accuracy: 120)
        let second = try await refresh.rotate(first.token)
        XCTAssertEqual(second.userID, user.id)
        XCTAssertNotEqual(second.token, first.token)
        let third = try await refresh.rotate(second.token)
        XCTAssertEqual(third.userID, user.id)
        let stored = try await db.scalar("SELECT count(*)::int FROM refresh_tokens WHERE token_hash LIKE 'atr%'", as: Int.self)
        XCTAssertEqual(stored, 0, "only hashes are stored")
    }

    /// A spent token presented again means two parties hold it: the whole family ends.
    func testReusingASpentTokenRevokesItsFamily() async throws {
        let user = try await users.create(email: "bo@example.com")
        let first = try await refresh.issue(for: user.id)
        let other = try await refresh.issue(for: user.id)          // another device: another family
        let second = try await refresh.rotate(first.token)
        await assertInvalid(first.token)                           // the replay
        await assertInvalid(second.token)                          // the family is gone with it
        let otherNext = try await refresh.rotate(other.token)       // the other device is unaffected
        XCTAssertEqual(otherNext.userID, user.id)
    }

    func testUnknownExpiredAndDisabledUsersTokensAreRefused() async throws {
        let user = try await users.create(email: "cy@example.com")
        let live = try await refresh.issue(for: user.id)
        let short = RefreshTokens(database: db.queue.database, secret: Self.secret, lifetime: .seconds(-1), logger: db.queue.logger)
        let expired = try await short.issue(for: user.id)
        await assertInvalid(expired.token)
        await assertInvalid("atr_" + String(repeating: "A", count: 43))
        await assertInvalid("not-a-token")
        try await users.disable(email: "cy@example.com")
        await assertInvalid(live.token)
    }

    func testConcurrentUsesOfOneTokenRotateItOnce() async throws {
        let user = try await users.create(email: "dee@example.com")
        let first = try await refresh.issue(for: user.id)
        let refresh = self.refresh
        let successes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { (try? await refresh.rotate(first.token)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(successes, 1)
    }

    /// A client whose answer was lost retries with the token it holds: within the reuse window
    /// it gets the same next token, and its family lives on. Once that next token is used, the
    /// old one presented again is a replay: the family ends. (Before, the retry itself ended it.)
    func testARetryWithinTheReuseWindowGetsTheSameNextToken() async throws {
        let user = try await users.create(email: "eli@example.com")
        let first = try await forgiving.issue(for: user.id)
        let second = try await forgiving.rotate(first.token)
        let retried = try await forgiving.rotate(first.token)
        XCTAssertEqual(retried.token, second.token, "the same next token")
        XCTAssertEqual(retried.userID, user.id)
        let third = try await forgiving.rotate(second.token)
        XCTAssertEqual(third.userID, user.id)
        do {
            _ = try await forgiving.rotate(first.token)
            XCTFail("a token whose successor was used is a replay")
        } catch {}
        await assertInvalid(third.token, with: forgiving)
    }

    /// Concurrent uses of one token within the window all get the same next token: the chain
    /// does not fork.
    func testConcurrentUsesWithinTheWindowShareOneNextToken() async throws {
        let user = try await users.create(email: "fin@example.com")
        let first = try await forgiving.issue(for: user.id)
        let forgiving = self.forgiving
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<4 { group.addTask { try? await forgiving.rotate(first.token).token } }
            return await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        XCTAssertEqual(tokens.count, 1, "\(tokens)")
        XCTAssertNotNil(tokens.first ?? nil)
        let rows = try await db.scalar("SELECT count(*)::int FROM refresh_tokens WHERE user_id = \(user.id)", as: Int.self)
        XCTAssertEqual(rows, 2)
    }

    private func assertInvalid(_ token: String, with tokens: RefreshTokens? = nil, file: StaticString = #filePath,
                               line: UInt = #line) async {
        do {
            _ = try await (tokens ?? refresh).rotate(token)
            XCTFail("rotated \(token.prefix(12))", file: file, line: line)
        } catch let error as AccountError {
            XCTAssertEqual(error, .invalidToken("Invalid refresh token"), file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }
}
