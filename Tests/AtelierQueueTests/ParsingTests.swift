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

    /// `JobID.uuid` (the poll path's parser) reads every well-formed id as `UUID(uuidString:)`
    /// does, and refuses everything else — stricter than Foundation, whose `sscanf` takes
    /// "6F-2FAA5-…" or a trailing space.
    func testJobIDTextParsesLikeFoundation() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["", "-", String(repeating: "0", count: 36), "00000000-0000-0000-0000-00000000000",
                     "00000000-0000-0000-0000-0000000000000", "00000000-0000-0000-0000_000000000000",
                     "0000000-00000-0000-0000-000000000000", "g0000000-0000-0000-0000-000000000000",
                     " 0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60", "0193F4C2-7A1E-7C3D-9F00-1B2C3D4E5F60",
                     "0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f6é", "../../etc/passwd", "0193f4c2-7a1e-7c3d-9f00-1b2c3d4e5f60\0"]
        for _ in 0..<2_000 {
            var text = Array(UUID().uuidString.utf8)
            if Bool.random(using: &generator) { text = Array(String(decoding: text, as: UTF8.self).lowercased().utf8) }
            // Mutate one position in half of them: a dash, a digit, a letter past f, a character gone.
            if Bool.random(using: &generator) {
                let at = Int.random(in: 0..<text.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: text[at] = UInt8(ascii: "-")
                case 1: text[at] = UInt8(ascii: "7")
                case 2: text[at] = UInt8(ascii: "g")
                default: text.remove(at: at)
                }
            }
            texts.append(String(decoding: text, as: UTF8.self))
        }
        let wellFormed = #/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/#
        var accepted = 0
        for text in texts {
            if text.wholeMatch(of: wellFormed) != nil {
                accepted += 1
                XCTAssertEqual(JobID.uuid(text), UUID(uuidString: text), text)
            } else {
                XCTAssertNil(JobID.uuid(text), text)
            }
        }
        XCTAssertGreaterThan(accepted, 500)
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

    func testSnoozePolicyDoublesUpToItsCap() {
        let policy = SnoozePolicy(base: .seconds(2), maxDelay: .seconds(60), jitter: 0.1)
        XCTAssertEqual((1...7).map { policy.nominalDelay(snooze: $0) },
                       [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        XCTAssertEqual(policy.nominalDelay(snooze: 10_000), .seconds(60), "capped, however long the outage")
        var generator = SystemRandomNumberGenerator()
        for snooze in 1...7 {
            for _ in 0..<100 {
                let delay = policy.delay(snooze: snooze, using: &generator).seconds
                let nominal = policy.nominalDelay(snooze: snooze).seconds
                XCTAssertGreaterThanOrEqual(delay, nominal * 0.9 - 0.001)
                XCTAssertLessThanOrEqual(delay, nominal * 1.1 + 0.001)
            }
        }
        XCTAssertEqual(SnoozePolicy(jitter: 0).delay(snooze: 3, using: &generator), .seconds(8))
    }
}
