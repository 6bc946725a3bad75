import AtelierTestSupport
import AtelierQueue
import Foundation
import Synchronization
import XCTest

/// A worker records one batch and claims the next in one statement and one commit (migration
/// 0023, docs/queue.md "One round trip per batch"): the claim sees what the completions freed,
/// a failure writes neither, and the lease fence holds as in a completion alone.
final class CompleteAndClaimTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func request(_ limit: Int, worker: String = "w1", kinds: [String] = ["k"]) -> ClaimRequest {
        ClaimRequest(worker: worker, queues: ["default"], kinds: kinds, limit: limit, lease: lease)
    }

    private func enqueue(_ count: Int, kind: String = "k", owner: String = "o") async throws -> [UUID] {
        try await queue.enqueue((0..<count).map { _ in NewJob(kind: kind, owner: owner) }).map(\.id)
    }

    private func count(_ state: String) async throws -> Int {
        try await db.scalar("SELECT count(*)::int FROM jobs WHERE state = \(state)", as: Int.self)
    }

    private func succeeded(_ jobs: [ClaimedJob]) -> [Completion] {
        jobs.map { Completion(job: $0, outcome: .succeeded(result: #"{"ok": true}"#)) }
    }

    func testTheBatchLandsAndTheNextIsClaimedInOneCall() async throws {
        _ = try await enqueue(7)
        let first = try await queue.claim(request(3))
        XCTAssertEqual(first.count, 3)

        let (landed, next) = try await queue.complete(succeeded(first), thenClaim: request(3))
        XCTAssertEqual(landed, Set(first.map(\.id)))
        XCTAssertEqual(next.count, 3)
        XCTAssertTrue(Set(next.map(\.id)).isDisjoint(with: first.map(\.id)))
        XCTAssertEqual(next.map(\.attempt), [1, 1, 1])
        XCTAssertEqual(next.map(\.leaseOwner), ["w1", "w1", "w1"])
        try await XCTAssertEqualAsync(try await count("succeeded"), 3)
        try await XCTAssertEqualAsync(try await count("running"), 3)
        try await XCTAssertEqualAsync(
            try await db.scalar("SELECT count(*)::int FROM job_events WHERE type = 'succeeded'", as: Int.self), 3)
        try await XCTAssertEqualAsync(
            try await db.scalar("SELECT n::int FROM job_counts_live WHERE kind = 'k' AND state = 'queued'", as: Int.self), 1,
            "the counts kept with the jobs follow both halves")

        // The last batch: nothing left to claim but one job; an empty claim is no error.
        let (_, last) = try await queue.complete(succeeded(next), thenClaim: request(3))
        XCTAssertEqual(last.count, 1)
        let (landedLast, none) = try await queue.complete(succeeded(last), thenClaim: request(3))
        XCTAssertEqual(landedLast, [last[0].id])
        XCTAssertEqual(none, [])
        try await XCTAssertEqualAsync(try await count("succeeded"), 7)
    }

    /// The claim is a statement after the completion, in a snapshot of its own: a kind at its
    /// concurrency limit gets the slot the completion freed, and a worker whose last job just
    /// landed counts as idle, so it may take a job marked to run alone.
    func testTheClaimSeesWhatTheCompletionFreed() async throws {
        _ = try await enqueue(5)
        try await queue.limits.set(.replacing(with: KindLimits(kind: "k", concurrency: 2)), actor: "test")
        let held = try await queue.claim(request(5))
        XCTAssertEqual(held.count, 2)
        let (_, next) = try await queue.complete(succeeded([held[0]]), thenClaim: request(5))
        XCTAssertEqual(next.count, 1, "one slot was freed, in the same call")
        try await XCTAssertEqualAsync(try await count("running"), 2)

        try await queue.limits.clear(kind: "k", actor: "test")
        let alone = try await enqueue(1, kind: "lone").first!
        try await db.execute("UPDATE jobs SET run_alone = true WHERE id = \(alone)")
        let (_, none) = try await queue.complete(succeeded([held[1]]), thenClaim: request(5, kinds: ["lone"]))
        XCTAssertEqual(none, [], "this worker still runs a job: a marked job waits for an idle worker")
        let (_, mine) = try await queue.complete(succeeded(next), thenClaim: request(5, kinds: ["lone"]))
        XCTAssertEqual(mine.map(\.id), [alone], "its last job landed first: the worker is idle to the claim")
        XCTAssertEqual(mine.first?.runAlone, true)
    }

    /// One transaction: if the claim fails, the completions are not written either (and the
    /// caller may write them again).
    func testAFailedClaimWritesNothing() async throws {
        _ = try await enqueue(4)
        let held = try await queue.claim(request(2))
        try await db.execute("""
            CREATE FUNCTION test_refuse_claims() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.type = 'running' THEN RAISE EXCEPTION 'claims refused by the test'; END IF;
                RETURN NEW;
            END $$
            """)
        try await db.execute("""
            CREATE TRIGGER test_refuse_claims BEFORE INSERT ON job_events
               FOR EACH ROW EXECUTE FUNCTION test_refuse_claims()
            """)
        do {
            _ = try await queue.complete(succeeded(held), thenClaim: request(2))
            XCTFail("the claim should have failed")
        } catch {}
        try await XCTAssertEqualAsync(try await count("running"), 2, "the completions rolled back with the claim")
        try await XCTAssertEqualAsync(try await count("succeeded"), 0)
        try await XCTAssertEqualAsync(
            try await db.scalar("SELECT count(*)::int FROM job_events WHERE type = 'succeeded'", as: Int.self), 0)

        try await db.execute("DROP TRIGGER test_refuse_claims ON job_events")
        let (landed, next) = try await queue.complete(succeeded(held), thenClaim: request(2))
        XCTAssertEqual(landed, Set(held.map(\.id)))
        XCTAssertEqual(next.count, 2)
    }

    /// A completion for an attempt this worker no longer holds is refused, as alone; the claim
    /// that rides with it goes ahead.
    func testTheLeaseFenceHoldsAndTheClaimGoesAhead() async throws {
        _ = try await enqueue(3)
        let held = try await queue.claim(request(1))
        let stale = Completion(jobID: held[0].id, attempt: held[0].attempt + 1, outcome: .succeeded(result: nil))
        let (landed, next) = try await queue.complete([stale], thenClaim: request(1))
        XCTAssertEqual(landed, [])
        XCTAssertEqual(next.count, 1)
        let (foreign, _) = try await queue.complete(succeeded(held), thenClaim: request(0, worker: "w2"))
        XCTAssertEqual(foreign, [], "another worker's completion")
        try await XCTAssertEqualAsync(try await count("running"), 2)
    }

    /// The completer asks the worker for a claim at each flush and hands it what was claimed.
    func testACompleterFlushClaimsForTheWorkersFreeSlots() async throws {
        _ = try await enqueue(5)
        let held = try await queue.claim(request(1))
        let refill = RecordingRefill(request(3))
        let completer = JobCompleter(queue: queue, worker: "w1", refill: refill)
        let landed = await completer.complete(succeeded(held)[0])
        XCTAssertTrue(landed)
        let (delivered, cancelled) = refill.record
        XCTAssertEqual(delivered.count, 3)
        XCTAssertEqual(cancelled, 0)
        try await XCTAssertEqualAsync(try await count("running"), 3)
        try await XCTAssertEqualAsync(try await count("succeeded"), 1)
    }

    /// A flush in flight when its worker began to stop: what it claimed goes straight back to
    /// the queue with its attempt given back, as a drain hands back a job it stops.
    func testJobsClaimedForAStoppingWorkerGoBackToTheQueue() async throws {
        _ = try await enqueue(4)
        let held = try await queue.claim(request(1))
        let refill = RecordingRefill(request(3), refusing: true)
        let completer = JobCompleter(queue: queue, worker: "w1", refill: refill)
        let landed = await completer.complete(succeeded(held)[0])
        XCTAssertTrue(landed)
        let (claimed, _) = refill.record
        XCTAssertEqual(claimed.count, 3)
        try await XCTAssertEqualAsync(try await count("running"), 0)
        try await XCTAssertEqualAsync(try await count("queued"), 3)
        for job in claimed {
            let back = try await queue.job(id: job.id)
            XCTAssertEqual(back.attempt, 0, "the attempt was given back")
            let types = try await queue.events(jobID: job.id).map(\.type)
            XCTAssertEqual(types.suffix(2), ["running", "requeued"])
        }
    }
}

/// A worker's slots as a test sets them: one claim of `request` for the first flush, then none;
/// `refusing`: the worker has begun to stop and takes none of what was claimed.
private final class RecordingRefill: CompletionRefill {
    private let state: Mutex<(request: ClaimRequest?, delivered: [ClaimedJob], cancelled: Int)>
    private let refusing: Bool

    init(_ request: ClaimRequest, refusing: Bool = false) {
        state = Mutex((request, [], 0))
        self.refusing = refusing
    }

    var record: ([ClaimedJob], Int) { state.withLock { ($0.delivered, $0.cancelled) } }

    func reserveClaim() -> ClaimRequest? {
        state.withLock { state in
            defer { state.request = nil }
            return state.request
        }
    }

    func deliver(_ jobs: [ClaimedJob], for request: ClaimRequest) -> [ClaimedJob] {
        state.withLock { $0.delivered += jobs }
        return refusing ? jobs : []
    }

    func cancel(_ request: ClaimRequest) {
        state.withLock { $0.cancelled += 1 }
    }
}
