import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// Fair share (migration 0017, docs/queue.md "Fair share"): within a priority the claim serves
/// owners in turn, so one owner's backlog does not make another wait behind all of it; with
/// fair share off the claim is strict FIFO. Jobs tagged with the same turn may come in either
/// order (ties are broken by id), so these tests look at turns, not at exact sequences.
final class FairShareTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func claim(_ limit: Int, from queue: JobQueue? = nil) async throws -> [ClaimedJob] {
        try await (queue ?? self.queue).claim(worker: "w1", queues: ["default"], kinds: ["k"], limit: limit, lease: lease)
    }

    private func enqueue(_ count: Int, owner: String, into queue: JobQueue? = nil, runAt: Date? = nil) async throws -> [UUID] {
        let jobs = (0..<count).map { _ in NewJob(kind: "k", owner: owner, runAt: runAt) }
        return try await (queue ?? self.queue).enqueue(jobs).map(\.id)
    }

    /// A second queue client on the test database, with fair share off (`ATELIER_FAIR_SHARE=off`).
    private func withFIFOQueue(_ body: (JobQueue) async throws -> Void) async throws {
        let fifo = JobQueue(url: db.url, applicationName: "atelier-fifo", maxConnections: 2, fairShare: false,
                            logger: db.queue.logger)
        let running = Task { await fifo.run() }
        defer { running.cancel() }
        try await body(fifo)
    }

    private func owners(_ jobs: [ClaimedJob]) -> [String: Int] {
        jobs.reduce(into: [:]) { $0[$1.owner, default: 0] += 1 }
    }

    /// A job enqueued alone goes through 0029's one-job path (`atelier_fair_tag`), a batch through
    /// `atelier_fair_tags`: for the same backlog both give the same tag — owners with a weight or
    /// none, a newcomer, another priority, fair share off — and the job enqueued alone is stored
    /// with it.
    func testAJobEnqueuedAloneGetsTheTagABatchWouldGive() async throws {
        try await db.execute("INSERT INTO owner_weights (owner, weight, updated_by) VALUES ('b', 4, 'test')")
        _ = try await enqueue(5, owner: "a")
        _ = try await enqueue(3, owner: "b")
        _ = try await queue.enqueue((0..<2).map { _ in NewJob(kind: "k", priority: 5, owner: "a") })
        _ = try await claim(4)  // the clock moves on
        for (fair, owner, priority) in [(true, "a", 0), (true, "b", 0), (true, "newcomer", 0), (false, "a", 0),
                                        (true, "a", 5), (true, "b", 5), (false, "newcomer", 5)] {
            let alone = try await db.scalar(
                "SELECT atelier_fair_tag(\(fair), \(owner), \(priority)::integer)", as: Double.self)
            let batch = try await db.scalar(
                "SELECT f.tag FROM atelier_fair_tags(\(fair), ARRAY[\(owner)]::text[], ARRAY[\(priority)]::integer[]) f", as: Double.self)
            XCTAssertEqual(alone, batch, "fair \(fair), owner \(owner), priority \(priority)")
        }
        let expected = try await db.scalar("SELECT atelier_fair_tag(true, 'b', 0)", as: Double.self)
        let id = try await queue.enqueue(NewJob(kind: "k", owner: "b")).id
        let stored = try await db.scalar("SELECT fair_tag FROM jobs WHERE id = \(id)", as: Double.self)
        XCTAssertEqual(stored, expected)
    }

    func testOwnersTakeTurnsWhateverTheirBacklog() async throws {
        _ = try await enqueue(10, owner: "a")
        _ = try await enqueue(3, owner: "b")
        _ = try await enqueue(1, owner: "c")
        var turns: [[String: Int]] = []
        for size in [3, 2, 2, 7] {
            var round: [ClaimedJob] = []
            for _ in 0..<size { round += try await claim(1) }
            turns.append(owners(round))
        }
        XCTAssertEqual(turns, [["a": 1, "b": 1, "c": 1], ["a": 1, "b": 1], ["a": 1, "b": 1], ["a": 7]])
        try await XCTAssertEqualAsync(try await claim(10), [], "all 14 claimed")
    }

    func testTwoBacklogsAreServedHalfAndHalf() async throws {
        _ = try await enqueue(1000, owner: "a")
        _ = try await enqueue(1000, owner: "b")
        let got1 = try await claim(100)
        XCTAssertEqual(owners(got1), ["a": 50, "b": 50])
        let got2 = try await claim(100)
        XCTAssertEqual(owners(got2), ["a": 50, "b": 50])
    }

    /// The noisy neighbour: an owner who arrives while another's backlog drains starts at the
    /// turn being served now, not after the backlog.
    func testANewcomerStartsAtTheTurnBeingServed() async throws {
        _ = try await enqueue(300, owner: "a")
        let got3 = try await claim(100)
        XCTAssertEqual(owners(got3), ["a": 100])
        let newcomer = try await enqueue(1, owner: "b")[0]
        let next = try await claim(2)
        XCTAssertTrue(next.map(\.id).contains(newcomer), "b's job is one of the next two, not the 201st")
        // b's second job, enqueued while its first runs, also starts at the current turn.
        let second = try await enqueue(1, owner: "b")[0]
        let got4 = try await claim(2)
        XCTAssertTrue(got4.map(\.id).contains(second))
    }

    /// Weights (migration 0021): an owner of weight 2 is served two jobs for each one of an
    /// owner of weight 1 while both have jobs queued; an owner with no weight weighs 1.
    func testAnOwnersWeightIsItsShare() async throws {
        try await queue.ownerWeights.set(owner: "a", weight: 2, actor: "test")
        _ = try await enqueue(300, owner: "a")
        _ = try await enqueue(300, owner: "b")
        let got = try await claim(90)
        XCTAssertEqual(owners(got), ["a": 60, "b": 30])
        try await XCTAssertEqualAsync(try await queue.ownerWeights.clear(owner: "a", actor: "test"), true)
        _ = try await enqueue(10, owner: "c")
        try await XCTAssertEqualAsync(try await queue.ownerWeights.list(), [])
        let log = try await queue.auditLog(target: "owner:a")
        XCTAssertEqual(log.map(\.action), ["clear weight", "set weight"])
        do {
            try await queue.ownerWeights.set(owner: "a", weight: 0, actor: "test")
            XCTFail("a weight of 0 would starve the owner")
        } catch QueueError.invalidArgument {}
    }

    func testWithFairShareOffTheClaimIsFIFO() async throws {
        try await withFIFOQueue { fifo in
            let a = try await enqueue(150, owner: "a", into: fifo)
            let b = try await enqueue(1, owner: "b", into: fifo)
            let first = try await claim(150, from: fifo)
            XCTAssertEqual(Set(first.map(\.id)), Set(a), "a's backlog first: it came first")
            let got5 = try await claim(5, from: fifo)
            XCTAssertEqual(got5.map(\.id), b)
        }
    }

    func testFIFOWhenOffEvenAcrossBatchesOfOneOwner() async throws {
        try await withFIFOQueue { fifo in
            let first = try await enqueue(3, owner: "a", into: fifo)
            let second = try await enqueue(3, owner: "b", into: fifo)
            let third = try await enqueue(3, owner: "a", into: fifo)
            let claimed = try await claim(9, from: fifo)
            XCTAssertEqual(Set(claimed.prefix(3).map(\.id)), Set(first))
            XCTAssertEqual(Set(claimed.dropFirst(3).prefix(3).map(\.id)), Set(second))
            XCTAssertEqual(Set(claimed.suffix(3).map(\.id)), Set(third))
        }
    }

    /// A job that waited (scheduled, backing off, snoozed, rescued) joins the turns when its
    /// time comes: the claim tags it then, at the turn being served.
    func testAJobThatBecomesDueJoinsAtTheCurrentTurn() async throws {
        _ = try await enqueue(50, owner: "a")
        let later = try await enqueue(1, owner: "b", runAt: Date().addingTimeInterval(3600))[0]
        let got6 = try await claim(10)
        XCTAssertEqual(owners(got6), ["a": 10], "b's job is not due")
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(later)")
        let got7 = try await claim(2)
        XCTAssertTrue(got7.map(\.id).contains(later), "due now: one of the next two")
    }

    /// A cancelled job gives up its turn, and a retried one queues afresh, tagged as it is retried
    /// (as a bulk retry tags it): it does not come back with the turn it had before (which would
    /// put it ahead of everyone who came since).
    func testARetriedJobIsTaggedAfresh() async throws {
        let early = try await enqueue(1, owner: "a")[0]
        try await queue.cancel(id: early)
        let tag = try await db.scalar("SELECT fair_tag FROM jobs WHERE id = \(early)", as: Double?.self)
        XCTAssertNil(tag, "a cancelled job holds no turn")
        _ = try await enqueue(20, owner: "b")
        let got8 = try await claim(10)
        XCTAssertEqual(owners(got8), ["b": 10])
        try await queue.retry(id: early)
        let retagged = try await db.scalar("SELECT fair_tag FROM jobs WHERE id = \(early)", as: Double?.self)
        let front = try await db.scalar("SELECT min(fair_tag) FROM jobs WHERE state = 'queued' AND owner = 'b'", as: Double?.self)
        XCTAssertNotNil(retagged)
        XCTAssertEqual(retagged, front, "retried, it is tagged at once at the turn being served: no old turn")
        let next = try await claim(2)
        XCTAssertTrue(next.map(\.id).contains(early), "back at the turn being served: one of the next two")
        XCTAssertEqual(owners(next)["b"], 1)
    }

    /// An owner's turns are counted within a priority: a higher-priority job still goes first.
    func testPriorityStillComesFirst() async throws {
        _ = try await enqueue(20, owner: "a")
        let urgent = try await queue.enqueue(NewJob(kind: "k", priority: Priority.interactive, owner: "a")).id
        let got9 = try await claim(1)
        XCTAssertEqual(got9.map(\.id), [urgent])
    }
}
