import AtelierAccounts
import AtelierTestSupport
import Foundation
import XCTest

/// Identity tokens from Sign in with Apple, checked against keys the test publishes as Apple
/// would (a JWKS file): the good one passes; expired, wrong-audience, wrong-issuer, wrongly
/// signed and unknown-key ones are the same 401-worthy error.
final class AppleSignInTests: DatabaseTestCase {
    var apple: TestAppleKeys!

    override func setUp() async throws {
        try await super.setUp()
        apple = try await TestAppleKeys()
    }

    override func tearDown() async throws {
        apple?.remove()
        try await super.tearDown()
    }

    func signIn(minimumRefetch: Duration = .seconds(60)) -> AppleSignIn {
        AppleSignIn(audiences: ["com.example.learn", "com.example.other"],
                    keys: AppleKeys(source: .file(apple.jwksFile.path), minimumRefetch: minimumRefetch))
    }

    func testAGoodTokenGivesItsSubjectAndEmail() async throws {
        let identity = try await signIn().verify(try await apple.identityToken(subject: "000123.abc.1234"))
        XCTAssertEqual([identity.subject, identity.email], ["000123.abc.1234", "user@privaterelay.appleid.com"])
        XCTAssertTrue(identity.emailVerified)
        XCTAssertEqual(identity.expiresAt.timeIntervalSinceNow, 600, accuracy: 60, "remembered as spent until then")
    }

    func testBadTokensAreRefused() async throws {
        let other = try await TestAppleKeys(kid: apple.kid)   // same key id, another key: a forged signature
        defer { other.remove() }
        let tokens = [
            try await apple.identityToken(expires: Date().addingTimeInterval(-60)),
            try await apple.identityToken(audience: "com.attacker.app"),
            try await apple.identityToken(issuer: "https://evil.example.com"),
            try await other.identityToken(),
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
            "not a token",
        ]
        let verifier = signIn()
        for token in tokens {
            do {
                _ = try await verifier.verify(token)
                XCTFail("accepted \(token.prefix(30))")
            } catch {
                XCTAssertEqual(error, .invalidToken("Invalid identity token"))
            }
        }
    }

    /// Apple rotates its keys: a token naming a key we have not seen makes us read the keys again.
    func testAnUnknownKeyIdFetchesTheKeysAgain() async throws {
        let verifier = signIn(minimumRefetch: .zero)
        _ = try await verifier.verify(try await apple.identityToken())
        let rotated = try await TestAppleKeys()
        defer { rotated.remove() }
        try FileManager.default.removeItem(at: apple.jwksFile)
        try FileManager.default.copyItem(at: rotated.jwksFile, to: apple.jwksFile)
        let identity = try await verifier.verify(try await rotated.identityToken(subject: "after-rotation"))
        XCTAssertEqual(identity.subject, "after-rotation")
    }

    func testNoAudienceConfiguredRefusesEverything() async throws {
        let verifier = AppleSignIn(audiences: [], keys: AppleKeys(source: .file(apple.jwksFile.path)))
        let token = try await apple.identityToken()
        do { _ = try await verifier.verify(token); XCTFail() } catch {
            XCTAssertEqual(error, .invalidToken("Invalid identity token"))
        }
    }

    /// The first sign-in makes the user; the next finds it; a verified email links a password
    /// user who has no Apple account yet; an unverified one does not take another's email.
    func testSignInMakesFindsAndLinksUsers() async throws {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
        let first = try await users.signIn(apple: .init(subject: "s1", email: "new@privaterelay.appleid.com", emailVerified: true))
        XCTAssertEqual(first.appleSubject, "s1")
        XCTAssertFalse(first.hasPassword)
        let again = try await users.signIn(apple: .init(subject: "s1", email: nil, emailVerified: false))
        XCTAssertEqual(again.id, first.id)

        let driver = try await users.create(email: "ana@example.com", password: "password123")
        let linked = try await users.signIn(apple: .init(subject: "s2", email: "ANA@example.com", emailVerified: true))
        XCTAssertEqual(linked.id, driver.id)
        XCTAssertEqual(linked.appleSubject, "s2")

        _ = try await users.create(email: "bo@example.com", password: "password123")
        let stranger = try await users.signIn(apple: .init(subject: "s3", email: "bo@example.com", emailVerified: false))
        XCTAssertNil(stranger.email)
        XCTAssertNotEqual(stranger.id, driver.id)
    }

    /// Sign-ins that need the keys while Apple is slow wait for one fetch; before, each started
    /// its own (ten seconds each, with Apple down).
    func testSignInsWhileTheKeysAreFetchedShareOneFetch() async throws {
        let server = try AppleKeysServer(jwksFile: apple.jwksFile)
        try await server.start()
        defer { server.stop() }
        let keys = AppleKeys(source: .url(server.url))
        let verifier = AppleSignIn(audiences: ["com.example.learn"], keys: keys)
        let token = try await apple.identityToken()
        let signIns = (0..<8).map { _ in Task { try await verifier.verify(token) } }
        try await db.eventually("the other seven wait for the first fetch") { await keys.joined == 7 }
        server.release()
        for signIn in signIns { _ = try await signIn.value }
        XCTAssertEqual(server.requestCount, 1)
        try await XCTAssertEqualAsync(await keys.fetches, 1)
    }

    /// A failed fetch is not repeated by every sign-in that follows it.
    func testAFailedFetchIsNotRepeatedAtOnce() async throws {
        let keys = AppleKeys(source: .file(apple.jwksFile.path + ".missing"), failureBackoff: .seconds(3600))
        let verifier = AppleSignIn(audiences: ["com.example.learn"], keys: keys)
        let token = try await apple.identityToken()
        for _ in 0..<5 {
            do { _ = try await verifier.verify(token); XCTFail("verified without keys") } catch {
                XCTAssertEqual(error, .invalidToken("Invalid identity token"))
            }
        }
        try await XCTAssertEqualAsync(await keys.fetches, 1)
    }

    /// A verified Apple email never links to an operator: the Apple account gets a user of its own.
    func testAppleSignInNeverLinksToAnAdmin() async throws {
        let users = UserStore(database: db.queue.database, logger: db.queue.logger)
        let admin = try await users.create(email: "root@example.com", role: "admin", password: "password123")
        let user = try await users.signIn(apple: .init(subject: "s9", email: "root@example.com", emailVerified: true))
        XCTAssertNotEqual(user.id, admin.id)
        XCTAssertEqual(user.role, "user")
        XCTAssertNil(user.email)
        try await XCTAssertEqualAsync(try await users.find(id: admin.id)?.appleSubject, nil)
    }
}
