import AtelierQueue
import AtelierTestSupport
import XCTest

/// A unique job: while a job of the same owner, kind and key is queued or running (or finished
/// less than `period` ago), enqueueing another returns that job instead, marked `duplicate`.
/// For work that must not pile up — a digest, a re-index — unlike an idempotency key, which
/// makes one request safe to retry.
final class EnqueueAUniqueJob: DatabaseTestCase {
    func testASecondDigestWhileOneIsQueuedIsTheFirst() async throws {
        let digest = NewJob(kind: "digest", owner: "ana", unique: UniqueJob(key: "daily-digest", period: .seconds(60)))
        let first = try await queue.enqueue(digest)
        let again = try await queue.enqueue(digest)
        XCTAssertTrue(first.inserted)
        XCTAssertEqual(again.id, first.id)
        XCTAssertTrue(again.duplicate)

        let someoneElses = try await queue.enqueue(NewJob(kind: "digest", owner: "ben", unique: UniqueJob(key: "daily-digest")))
        XCTAssertNotEqual(someoneElses.id, first.id, "keys are per owner")
    }
}
