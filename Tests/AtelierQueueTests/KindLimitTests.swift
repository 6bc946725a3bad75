import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// Limits per kind (migration 0020, docs/queue.md "Limits per kind"): global across workers,
/// read by every claim, never exceeded by racing claims, and a killed worker's slots come back
/// with its jobs. A job held back by a limit stays queued and spends no attempt.
final class KindLimitTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func claim(_ limit: Int, worker: String = "w1", kinds: [String] = ["k"]) async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: ["default"], kinds: kinds, limit: limit, lease: lease)
    }

    private func enqueue(_ count: Int, kind: String = "k", owner: String = "o") async throws -> [UUID] {
        try await queue.enqueue((0..<count).map { _ in NewJob(kind: kind, owner: owner) }).map(\.id)
    }

    private func limit(_ kind: String = "k", concurrency: Int? = nil, perOwner: Int? = nil, rate: RateLimit? = nil,
                       timeout: Duration? = nil) async throws {
        try await queue.limits.set(.replacing(with: KindLimits(kind: kind, concurrency: concurrency, ownerConcurrency: perOwner,
                                                                  rate: rate, timeout: timeout)), actor: "test")
    }

    private func running(_ kind: String = "k") async throws -> Int {
        try await db.scalar("SELECT count(*)::int FROM jobs WHERE state = 'running' AND kind = \(kind)", as: Int.self)
    }

    func testConcurrencyIsNeverExceededByRacingClaims() async throws {
        _ = try await enqueue(60)
        try await limit(concurrency: 4)
        // Eight workers claim at once, five times each: only four jobs ever start.
        let queue = self.queue, lease = self.lease
        let claimed = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var got = 0
                    for _ in 0..<5 {
                        got += try await queue.claim(worker: "w\(worker)", queues: ["default"], kinds: ["k"], limit: 3, lease: lease).count
                    }
                    return got
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(claimed, 4)
        try await XCTAssertEqualAsync(try await running(), 4)
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM jobs WHERE attempt = 0", as: Int.self), 56,
                                      "the jobs held back spent no attempt")
    }

    func testAFinishedJobFreesItsSlotAndARaisedLimitIsSeenAtTheNextClaim() async throws {
        _ = try await enqueue(10)
        try await limit(concurrency: 2)
        let first = try await claim(10)
        XCTAssertEqual(first.count, 2)
        try await XCTAssertEqualAsync(try await claim(10).count, 0)
        _ = try await queue.complete([Completion(job: first[0], outcome: .succeeded(result: nil))], worker: "w1")
        try await XCTAssertEqualAsync(try await claim(10).count, 1)
        try await limit(concurrency: 5)
        try await XCTAssertEqualAsync(try await claim(10).count, 3)
        try await queue.limits.clear(kind: "k", actor: "test")
        try await XCTAssertEqualAsync(try await claim(10).count, 4, "no limit: the rest")
    }

    /// A kind held back with a large backlog costs the other kinds nothing: the claim walks each
    /// kind on its own.
    func testAKindAtItsLimitDoesNotHoldBackOtherKinds() async throws {
        _ = try await enqueue(500, kind: "slow")
        _ = try await enqueue(20, kind: "fast")
        try await limit("slow", concurrency: 1)
        let got = try await claim(10, kinds: ["slow", "fast"])
        XCTAssertEqual(got.filter { $0.kind == "slow" }.count, 1)
        XCTAssertEqual(got.filter { $0.kind == "fast" }.count, 9)
        let next = try await claim(10, kinds: ["slow", "fast"])
        XCTAssertEqual(next.map(\.kind), Array(repeating: "fast", count: 10))
    }

    func testPerOwnerConcurrencyLeavesRoomForOtherOwners() async throws {
        _ = try await enqueue(20, owner: "a")
        _ = try await enqueue(20, owner: "b")
        _ = try await enqueue(1, owner: "c")
        try await limit(perOwner: 2)
        let got = try await claim(16)
        XCTAssertEqual(got.reduce(into: [:]) { $0[$1.owner, default: 0] += 1 }, ["a": 2, "b": 2, "c": 1])
        try await XCTAssertEqualAsync(try await claim(16).count, 0, "every owner is at its limit")
        _ = try await queue.complete([Completion(job: got.first { $0.owner == "a" }!, outcome: .succeeded(result: nil))], worker: "w1")
        let after = try await claim(16)
        XCTAssertEqual(after.map(\.owner), ["a"])
    }

    /// Owner a's backlog of 600 at its limit hides nobody: b's job, behind it in no order, starts.
    func testAnOwnerAtItsLimitDoesNotHideALaterOwner() async throws {
        _ = try await enqueue(600, owner: "a")
        try await limit(perOwner: 1)
        let first = try await claim(4)
        XCTAssertEqual(first.map(\.owner), ["a"])
        let b = try await enqueue(1, owner: "b")
        let next = try await claim(4)
        XCTAssertEqual(next.map(\.id), b)
    }

    func testTheRateSpendsTokensAndANewRateRefillsThem() async throws {
        _ = try await enqueue(20)
        try await limit(rate: try RateLimit(count: 5, period: .seconds(3600)))
        try await XCTAssertEqualAsync(try await claim(10).count, 5)
        try await XCTAssertEqualAsync(try await claim(10).count, 0, "the bucket refills one token per 12 minutes")
        try await queue.limits.set(KindLimitsChange(kind: "k", concurrency: .set(100)), actor: "test")
        try await XCTAssertEqualAsync(try await claim(10).count, 0, "another limit's change keeps the bucket")
        try await limit(rate: try RateLimit(count: 3, period: .seconds(3600)))
        try await XCTAssertEqualAsync(try await claim(10).count, 3, "a new rate starts with a full bucket")
    }

    /// The bucket refills at the rate, and never above it: 24 minutes of a 5/h rate are 2
    /// tokens; 10 hours are 5, not 50.
    func testTheBucketRefillsAtTheRate() async throws {
        _ = try await enqueue(20)
        try await limit(rate: try RateLimit(count: 5, period: .seconds(3600)))
        try await XCTAssertEqualAsync(try await claim(10).count, 5)
        try await db.execute("UPDATE kind_limits SET tokens_at = tokens_at - interval '24 minutes 1 second'")
        try await XCTAssertEqualAsync(try await claim(10).count, 2)
        try await db.execute("UPDATE kind_limits SET tokens_at = tokens_at - interval '10 hours'")
        try await XCTAssertEqualAsync(try await claim(10).count, 5)
    }

    func testAKilledWorkersSlotsComeBackWithItsJobs() async throws {
        _ = try await enqueue(6)
        try await limit(concurrency: 2)
        let held = try await claim(6, worker: "killed")
        XCTAssertEqual(held.count, 2)
        try await XCTAssertEqualAsync(try await claim(6, worker: "alive").count, 0)
        // The dead worker holds no liveness lock: the maintenance leader rescues its jobs.
        try await XCTAssertEqualAsync(try await queue.maintenance.rescueLostJobs(restartGrace: .zero), 2)
        // Rescued jobs come back marked to run alone (0013): each goes to an idle worker.
        var again = 0
        for worker in ["alive-1", "alive-2", "alive-3"] { again += try await claim(6, worker: worker).count }
        XCTAssertEqual(again, 2, "the two slots, and no more")
        try await XCTAssertEqualAsync(try await running(), 2)
    }

    func testTheKindsTimeoutComesWithEachClaim() async throws {
        _ = try await queue.enqueue(NewJob(kind: "k", timeout: .seconds(2)))
        _ = try await queue.enqueue(NewJob(kind: "k"))
        try await limit(timeout: .seconds(5))
        let got = try await claim(2)
        XCTAssertEqual(got.map(\.kindTimeout), [.seconds(5), .seconds(5)])
        XCTAssertEqual(Set(got.map(\.timeout)), [.seconds(2), nil])
    }

    func testSetKeepsWhatItDoesNotNameAndEveryChangeIsAudited() async throws {
        try await queue.limits.set(KindLimitsChange(kind: "k", concurrency: .set(4)), actor: "ops")
        let both = try await queue.limits.set(KindLimitsChange(kind: "k", rate: .set(try RateLimit(parsing: "50/s"))), actor: "ops")
        XCTAssertEqual(both?.concurrency, 4)
        XCTAssertEqual(both?.rate?.description, "50/s")
        let rateOnly = try await queue.limits.set(KindLimitsChange(kind: "k", concurrency: .remove), actor: "ops")
        XCTAssertNil(rateOnly?.concurrency)
        let none = try await queue.limits.set(KindLimitsChange(kind: "k", rate: .remove), actor: "ops")
        XCTAssertNil(none, "no limit left: the kind's row is gone")
        try await XCTAssertEqualAsync(try await queue.limits.list(), [])
        let audit = try await queue.auditLog(target: "kind:k")
        XCTAssertEqual(audit.map(\.action), ["clear limits", "set limits", "set limits", "set limits"])
        XCTAssertEqual(audit.last?.detail, "concurrency 4")
    }

    func testValuesOutOfRangeAreRefused() async throws {
        for change in [KindLimitsChange(kind: "k", concurrency: .set(0)), KindLimitsChange(kind: "", concurrency: .set(1)),
                       KindLimitsChange(kind: "k", timeout: .set(.seconds(90_000)))] {
            do {
                try await queue.limits.set(change, actor: "test")
                XCTFail("accepted \(change)")
            } catch let error as QueueError {
                guard case .invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
        for text in ["50", "50/", "0/s", "5/0s", "x/s", "5/2y", "5/25h", "2000000/s"] {
            XCTAssertThrowsError(try RateLimit(parsing: text), text)
        }
        XCTAssertEqual(try RateLimit(parsing: "5/10s").description, "5/10s")
        XCTAssertEqual(try RateLimit(parsing: "600/m").period, .seconds(60))
        XCTAssertEqual(try RateLimit(parsing: "7/1500ms").description, "7/1500ms")
    }
}
