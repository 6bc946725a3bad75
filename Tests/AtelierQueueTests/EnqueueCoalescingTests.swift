import AtelierTestSupport
@testable import AtelierQueue
import Foundation
import PostgresNIO
import Synchronization
import XCTest

/// Single-job enqueues made at the same moment share one insert, and each caller still gets
/// exactly its own answer.
final class EnqueueCoalescingTests: DatabaseTestCase {
    /// The batching itself, with an insert held open by a gate: the first enqueue goes alone; the
    /// ones that arrive while it is on its way go together, in one second statement.
    func testEnqueuesThatArriveDuringAnInsertGoTogether() async throws {
        let coalescer = EnqueueCoalescer(maxInFlight: 1)
        let batches = Mutex<[Int]>([])
        let gate = TestGate()
        let insert: EnqueueCoalescer.Insert = { ids, _ in
            let first = batches.withLock { batches in batches.append(ids.count); return batches.count == 1 }
            if first { await gate.wait() }
            return ids.map { EnqueuedJob(id: $0, inserted: true) }
        }
        let ids = (0..<6).map { _ in UUID() }
        let firstTask = Task { try await coalescer.enqueue(NewJob(kind: "k"), id: ids[0], insert: insert) }
        try await db.eventually("the first insert is on its way") { batches.withLock { $0 } == [1] }
        let others = ids.dropFirst().map { id in Task { try await coalescer.enqueue(NewJob(kind: "k"), id: id, insert: insert) } }
        try await db.eventually("the others wait") { coalescer.waitingCount == 5 }
        gate.open()
        let first = try await firstTask.value
        var answers = [first.id]
        for task in others { answers.append(try await task.value.id) }
        XCTAssertEqual(answers, ids, "each caller gets its own job")
        XCTAssertEqual(batches.withLock { $0 }, [1, 5])
    }

    /// Many at once against PostgreSQL: every job is there once, keys shared between callers
    /// answer with one job, and a job PostgreSQL refuses fails alone.
    func testConcurrentEnqueuesEachGetTheirOwnAnswer() async throws {
        let queue = self.queue
        let missingParent = UUID()
        let outcomes = await withTaskGroup(of: (Int, Result<EnqueuedJob, any Error>).self) { group in
            for n in 0..<300 {
                group.addTask {
                    let job = switch n {
                    case 7: NewJob(kind: "k", owner: "o", parentID: missingParent)          // breaks the foreign key
                    case let n where n % 10 == 3: NewJob(kind: "k", owner: "o", idempotencyKey: "shared")
                    default: NewJob(kind: "k", payload: #"{"n": \#(n)}"#, owner: "o")
                    }
                    do { return (n, .success(try await queue.enqueue(job))) } catch { return (n, .failure(error)) }
                }
            }
            var outcomes: [Int: Result<EnqueuedJob, any Error>] = [:]
            for await (n, outcome) in group { outcomes[n] = outcome }
            return outcomes
        }
        var shared = Set<UUID>()
        var insertedShared = 0
        for (n, outcome) in outcomes {
            switch (n, outcome) {
            case (7, .success): XCTFail("a job with a missing parent was accepted")
            case (7, .failure(let error)): XCTAssertEqual(DatabaseErrorText.sqlState(error), "23503", "\(error)")
            case (_, .failure(let error)): XCTFail("job \(n) failed: \(error)")
            case (let n, .success(let job)) where n % 10 == 3:
                shared.insert(job.id)
                if job.inserted { insertedShared += 1 }
            case (_, .success(let job)): XCTAssertTrue(job.inserted)
            }
        }
        XCTAssertEqual(shared.count, 1, "one job holds the shared key")
        XCTAssertEqual(insertedShared, 1, "and exactly one caller created it")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 300 - 30 - 1 + 1)
        let payloads = try await db.scalar("SELECT count(DISTINCT payload)::int FROM jobs WHERE payload ? 'n'", as: Int.self)
        XCTAssertEqual(payloads, 300 - 30 - 1)
    }
}
