import AtelierQueue
import XCTest

final class ParsingTests: XCTestCase {
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
