import AtelierDatabase
import AtelierQueue
import XCTest

final class ParsingTests: XCTestCase {
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

    func testJobIDsAreTimeOrderedVersion7() {
        let earlier = JobID.make(now: Date(timeIntervalSince1970: 1_700_000_000))
        let later = JobID.make(now: Date(timeIntervalSince1970: 1_700_000_001))
        XCTAssertLessThan(earlier.uuidString.lowercased(), later.uuidString.lowercased())
        XCTAssertEqual(Array(earlier.uuidString)[14], "7", "version nibble")
        XCTAssertTrue("89AB".contains(Array(earlier.uuidString)[19]), "RFC 4122 variant")
        XCTAssertThrowsError(try JobID.parse("../../etc/passwd")) { error in
            XCTAssertEqual(DatabaseErrorText.queueError(error)?.message.hasPrefix("no job with id"), true)
        }
    }

    func testRetryPolicyBacksOffExponentiallyWithinTheJitterBand() {
        let policy = RetryPolicy(base: .seconds(2), factor: 4, maxDelay: .seconds(3600), jitter: 0.25)
        XCTAssertEqual((1...6).map { policy.nominalDelay(afterAttempt: $0) },
                       [.seconds(2), .seconds(8), .seconds(32), .seconds(128), .seconds(512), .seconds(2048)])
        XCTAssertEqual(policy.nominalDelay(afterAttempt: 10), .seconds(3600), "capped")
        var generator = SystemRandomNumberGenerator()
        var seen = Set<Int64>()
        for attempt in 1...5 {
            for _ in 0..<200 {
                let delay = policy.delay(afterAttempt: attempt, using: &generator).seconds
                let nominal = policy.nominalDelay(afterAttempt: attempt).seconds
                XCTAssertGreaterThanOrEqual(delay, nominal * 0.75 - 0.001)
                XCTAssertLessThanOrEqual(delay, nominal * 1.25 + 0.001)
                seen.insert(Int64(delay * 1000))
            }
        }
        XCTAssertGreaterThan(seen.count, 100, "jitter spreads retries out")
        XCTAssertEqual(RetryPolicy(jitter: 0).delay(afterAttempt: 2, using: &generator), .seconds(8))
    }
}
