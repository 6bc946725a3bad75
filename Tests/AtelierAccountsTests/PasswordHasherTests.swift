import AtelierAccounts
import XCTest

final class PasswordHasherTests: XCTestCase {
    let hasher = PasswordHasher()

    func testAHashVerifiesItsPasswordAndNoOther() throws {
        let hash = try hasher.hash("correct horse battery")
        XCTAssertTrue(hash.hasPrefix("scrypt$15$8$1$"), hash)
        XCTAssertTrue(hasher.verify("correct horse battery", against: hash))
        XCTAssertFalse(hasher.verify("correct horse batterY", against: hash))
        XCTAssertFalse(hasher.verify("", against: hash))
    }

    func testTwoHashesOfOnePasswordDiffer() throws {
        XCTAssertNotEqual(try hasher.hash("same password"), try hasher.hash("same password"))
    }

    func testNoStoredHashNeverVerifies() {
        XCTAssertFalse(hasher.verify("anything at all", against: nil))
    }

    func testAMalformedOrForeignHashNeverVerifies() throws {
        let hash = try hasher.hash("password one")
        for stored in ["", "scrypt$15$8$1$", "bcrypt$x", hash.replacingOccurrences(of: "scrypt$15", with: "scrypt$40"),
                       String(hash.dropLast(4))] {
            XCTAssertFalse(hasher.verify("password one", against: stored), stored)
        }
    }

    func testAnOlderCostStillVerifies() throws {
        let cheap = try PasswordHasher(logRounds: 10).hash("kept from before")
        XCTAssertTrue(hasher.verify("kept from before", against: cheap))
    }

    func testShortAndHugePasswordsAreRefused() {
        XCTAssertThrowsError(try hasher.hash("short")) { error in
            XCTAssertEqual((error as? AccountError)?.message, "a password needs at least 8 characters")
        }
        XCTAssertThrowsError(try hasher.hash(String(repeating: "x", count: 2000)))
        XCTAssertFalse(hasher.verify(String(repeating: "x", count: 2000), against: nil))
    }
}
