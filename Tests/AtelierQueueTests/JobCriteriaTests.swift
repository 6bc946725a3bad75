import AtelierQueue
import Foundation
import XCTest

/// The filter language's parsing (its matching: BulkActionTests).
final class JobCriteriaTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testTermsAreRead() throws {
        let criteria = try JobCriteria(terms: ["kind=caption, index", "state=FAILED", "queue=q1", "owner=user:7",
                                               "created-after=90m", "created-before=2026-11-25T10:00:00Z",
                                               "finished-after=2026-11-25", "finished-before=2026-11-25T10:00",
                                               "error=time out"], now: now)
        XCTAssertEqual(criteria.kinds, ["caption", "index"])
        XCTAssertEqual(criteria.states, [.failed])
        XCTAssertEqual(criteria.queues, ["q1"])
        XCTAssertEqual(criteria.owner, "user:7")
        XCTAssertEqual(criteria.createdAfter, now.addingTimeInterval(-5400))
        XCTAssertEqual(criteria.createdBefore, try Date("2026-11-25T10:00:00Z", strategy: .iso8601))
        XCTAssertEqual(criteria.finishedAfter, try Date("2026-11-25T00:00:00Z", strategy: .iso8601))
        XCTAssertEqual(criteria.finishedBefore, try Date("2026-11-25T10:00:00Z", strategy: .iso8601))
        XCTAssertEqual(criteria.errorContains, "time out")
        XCTAssertEqual(try JobCriteria(terms: criteria.terms, now: now), criteria, "terms written back read the same")
        XCTAssertEqual(JobCriteria().text, "(every job)")
        XCTAssertTrue(try JobCriteria(pairs: [("kind", " "), ("owner", "")]).isEmpty, "an empty field is no condition")
        XCTAssertEqual(try JobCriteria(terms: ["owner=" + String(repeating: "é", count: 200)]).owner?.count, 200,
                       "200 characters, whatever their bytes")
    }

    func testBadTermsAreRefusedWithTheReason() {
        let cases: [([String], String)] = [
            (["kind"], "not a filter term"),
            (["colour=red"], "unknown filter 'colour'"),
            (["kind=a", "kind=b"], "given twice"),
            (["state=exploded"], "unknown state 'exploded'"),
            (["created-after=yesterday"], "ISO 8601"),
            (["kind=" + String(repeating: "k", count: 201)], "longer than 200 characters"),
            (["owner=" + String(repeating: "é", count: 201)], "longer than 200 characters"),
            (["error=a\u{0}b"], "NUL"),
        ]
        for (terms, reason) in cases {
            XCTAssertThrowsError(try JobCriteria(terms: terms), "\(terms)") { error in
                XCTAssertTrue("\(error)".contains(reason), "\(terms): \(error)")
            }
        }
    }
}
