import AtelierAccounts
import AtelierTestSupport
import Foundation
import XCTest

final class UserStoreTests: DatabaseTestCase {
    var users: UserStore { UserStore(database: db.queue.database, logger: db.queue.logger) }

    func testAUserIsFoundByEmailWhateverItsCase() async throws {
        let created = try await users.create(email: "Ana.Silva@Example.com", name: "Ana Silva", role: "driver",
                                             permissions: ["vehicle.read", "trip.create"], password: "correct horse")
        XCTAssertEqual(created.email, "Ana.Silva@Example.com")
        XCTAssertTrue(created.hasPassword)
        XCTAssertEqual(created.owner, "user:" + created.id.uuidString.lowercased())
        let found = try await users.find(email: "ana.silva@example.COM")
        XCTAssertEqual(found, created)
        let byID = try await users.find(id: created.id)
        XCTAssertEqual(byID, created)
        let listed = try await users.list()
        XCTAssertEqual(listed.map(\.id), [created.id])
    }

    func testASecondUserWithTheSameEmailIsAConflict() async throws {
        _ = try await users.create(email: "bo@example.com", password: "correct horse")
        do {
            _ = try await users.create(email: "BO@example.com")
            XCTFail("two users with one email")
        } catch let error as AccountError {
            XCTAssertEqual(error, .conflict("a user with the email 'BO@example.com' already exists"))
        }
    }

    func testBadEmailsRolesAndPermissionsAreRefused() async throws {
        for email in ["", "no-at-sign", "a@b", "a@@b.com", "a b@c.com", "@example.com"] {
            do { _ = try await users.create(email: email); XCTFail(email) } catch let error as AccountError {
                guard case .invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
        for role in ["Admin", "", "with space", String(repeating: "a", count: 40)] {
            do { _ = try await users.create(email: "r@example.com", role: role); XCTFail(role) } catch let error as AccountError {
                guard case .invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
        do { _ = try await users.create(email: "p@example.com", permissions: ["has space"]); XCTFail() } catch let error as AccountError {
            guard case .invalidArgument = error else { return XCTFail("\(error)") }
        }
        let listed = try await users.list()
        XCTAssertEqual(listed, [])
    }

    /// One answer for every way a sign-in can be wrong, so nobody learns which emails exist.
    func testEveryWrongSignInIsTheSameError() async throws {
        _ = try await users.create(email: "cy@example.com", password: "correct horse")
        _ = try await users.create(email: "apple-only@example.com", appleSubject: "001234.abc")
        let gone = try await users.create(email: "gone@example.com", password: "correct horse")
        try await users.disable(email: gone.email!)
        let user = try await users.authenticate(email: "CY@example.com", password: "correct horse")
        XCTAssertEqual(user.email, "cy@example.com")
        for (email, password) in [("cy@example.com", "wrong horse"), ("nobody@example.com", "correct horse"),
                                  ("apple-only@example.com", "correct horse"), ("gone@example.com", "correct horse"),
                                  ("not an email", "correct horse")] {
            do {
                _ = try await users.authenticate(email: email, password: password)
                XCTFail("\(email) signed in")
            } catch let error as AccountError {
                XCTAssertEqual(error, .invalidCredentials, email)
            }
        }
    }

    func testDisablingIsRecordedAndListed() async throws {
        let user = try await users.create(email: "dee@example.com")
        let disabled = try await users.disable(email: "DEE@example.com")
        XCTAssertNotNil(disabled.disabledAt)
        let disabledIDs = try await users.disabledIDs()
        XCTAssertEqual(disabledIDs, [user.id])
        do { try await users.disable(email: "nobody@example.com"); XCTFail() } catch let error as AccountError {
            XCTAssertEqual(error, .notFound("no user has the email 'nobody@example.com'"))
        }
    }
}
