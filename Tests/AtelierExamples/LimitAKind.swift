import AtelierQueue
import AtelierTestSupport
import XCTest

/// Limit how many jobs of a kind run at once, across every worker: a provider that allows two
/// calls at a time gets two, however many workers ask. The jobs held back stay queued and spend
/// no attempt; the limit takes effect at the next claim, without a restart. Operators set the
/// same with `atelier limits set caption --concurrency 2` or `PUT /v1/admin/limits`.
final class LimitAKind: DatabaseTestCase {
    func testAtMostTwoCaptionsRunAtOnce() async throws {
        try await queue.limits.set(KindLimitsChange(kind: "caption", concurrency: .set(2)), actor: "example")
        _ = try await queue.enqueue((0..<5).map { _ in NewJob(kind: "caption") })

        let first = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["caption"], limit: 10, lease: .seconds(30))
        XCTAssertEqual(first.count, 2, "two run; three wait")
        let second = try await queue.claim(worker: "w2", queues: ["default"], kinds: ["caption"], limit: 10, lease: .seconds(30))
        XCTAssertEqual(second.count, 0, "another worker gets none while two run")

        _ = try await queue.complete([Completion(job: first[0], outcome: .succeeded(result: nil))], worker: "w1")
        let next = try await queue.claim(worker: "w2", queues: ["default"], kinds: ["caption"], limit: 10, lease: .seconds(30))
        XCTAssertEqual(next.count, 1, "one finished, so one more starts")
    }
}
