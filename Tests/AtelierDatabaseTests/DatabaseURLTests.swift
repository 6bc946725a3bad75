import AtelierDatabase
import XCTest

final class DatabaseURLTests: XCTestCase {
    func testDatabaseURL() throws {
        let url = try DatabaseURL(parsing: "postgres://alice:s%40cret@db.example:6543/jobs?sslmode=require")
        XCTAssertEqual(url.host, "db.example")
        XCTAssertEqual(url.port, 6543)
        XCTAssertEqual(url.username, "alice")
        XCTAssertEqual(url.password, "s@cret")
        XCTAssertEqual(url.database, "jobs")
        XCTAssertEqual(url.sslMode, "require")
        XCTAssertFalse(url.description.contains("cret"), "descriptions never show the password")
        XCTAssertEqual(try DatabaseURL(parsing: url.text), url)
    }

    func testBadDatabaseURLsNameTheSetting() {
        for text in ["mysql://x@h/db", "postgres://h:5432", "not a url", "postgres://u:pw@h/db?sslmode=maybe"] {
            XCTAssertThrowsError(try DatabaseURL(parsing: text), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("ATELIER_DATABASE_URL"), message)
                XCTAssertFalse(message.contains(":pw@"), "the password is redacted: \(message)")
            }
        }
    }
}
