import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// Follow-up jobs (migration 0007): enqueued by the statement that records a success, exactly
/// once, never after a failure or cancellation, linked to the job that led to them.
final class FollowUpTests: DatabaseTestCase {
    let lease = Duration.seconds(30)

    private func claim(_ worker: String = "w1", kinds: [String] = ["k"]) async throws -> [ClaimedJob] {
        try await queue.claim(worker: worker, queues: ["default", "later"], kinds: kinds, limit: 10, lease: lease)
    }

    func testSuccessEnqueuesTheFollowUpsOnceLinkedToTheirParent() async throws {
        let then = FollowUp(kind: "index", payload: #"{"from_job": "x"}"#, queue: "later", priority: Priority.batch, maxAttempts: 2,
                            then: [FollowUp(kind: "notify")])
        let parent = try await queue.enqueue(NewJob(kind: "k", owner: "alice", requestID: "req-7", followUps: [then])).id
        try await XCTAssertEqualAsync(try await queue.children(of: parent), [], "nothing before the parent succeeds")
        let claimed = try await claim()[0]

        let landed = try await queue.complete([Completion(job: claimed, outcome: .succeeded(result: #"{"caption": "c"}"#))], worker: "w1")
        XCTAssertEqual(landed, [parent])
        let again = try await queue.complete([Completion(job: claimed, outcome: .succeeded(result: nil))], worker: "w1")
        XCTAssertEqual(again, [], "a second completion is refused …")
        let children = try await queue.children(of: parent)
        XCTAssertEqual(children.count, 1, "… and enqueues nothing more")
        let child = try XCTUnwrap(children.first)
        XCTAssertEqual(child.kind, "index")
        XCTAssertEqual(child.state, .queued)
        XCTAssertEqual(child.owner, "alice")
        XCTAssertEqual(child.queue, "later")
        XCTAssertEqual(child.priority, Priority.batch)
        XCTAssertEqual(child.maxAttempts, 2)
        XCTAssertEqual(child.requestID, "req-7")
        XCTAssertEqual(child.parentID, parent)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(child.payload.utf8)) as? [String: String], ["from_job": "x"])
        let nested = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((child.followUp ?? "null").utf8)) as? [[String: Any]])
        XCTAssertEqual(nested.map { $0["kind"] as? String }, ["notify"], "the follow-up's own follow-ups travel with it")

        // Its id is a UUIDv7 made in SQL: version 7, and not older than its parent's.
        XCTAssertEqual(child.id.uuid.6 >> 4, 7)
        XCTAssertGreaterThanOrEqual(child.id.uuidString.prefix(13).lowercased(), parent.uuidString.prefix(13).lowercased())
        let parentEvents = try await queue.events(jobID: parent)
        let succeeded = try XCTUnwrap(parentEvents.last)
        XCTAssertEqual(succeeded.type, "succeeded")
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(succeeded.data.utf8)) as? [String: Any])
        XCTAssertEqual(data["follow_ups"] as? [String], [child.id.uuidString.lowercased()], "the success event names the follow-up")

        // The follow-up is an ordinary job: claimable, and its own success enqueues the next.
        let byWorker = try await claim(kinds: ["index"])
        XCTAssertEqual(byWorker.map(\.id), [child.id])
        _ = try await queue.complete([Completion(job: byWorker[0], outcome: .succeeded(result: nil))], worker: "w1")
        try await XCTAssertEqualAsync(try await queue.children(of: child.id).map(\.kind), ["notify"])
    }

    func testFailureRetryAndCancellationEnqueueNothing() async throws {
        let followUps = [FollowUp(kind: "index")]
        let retried = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 2, followUps: followUps)).id
        let failed = try await queue.enqueue(NewJob(kind: "k", maxAttempts: 1, followUps: followUps)).id
        let cancelled = try await queue.enqueue(NewJob(kind: "k", followUps: followUps)).id
        let claimed = Dictionary(uniqueKeysWithValues: try await claim().map { ($0.id, $0) })
        _ = try await queue.complete([
            Completion(job: claimed[retried]!, outcome: .retry(error: "later", delay: .seconds(60))),
            Completion(job: claimed[failed]!, outcome: .failed(error: "broken")),
            Completion(job: claimed[cancelled]!, outcome: .cancelled(reason: "stop")),
        ], worker: "w1")
        for id in [retried, failed, cancelled] {
            try await XCTAssertEqualAsync(try await queue.children(of: id), [])
        }
        try await XCTAssertEqualAsync(try await queue.jobs(JobFilter()).total, 3, "no job was added")
    }

    func testInvalidFollowUpsAreRefusedAtEnqueue() async throws {
        for followUp in [FollowUp(kind: ""), FollowUp(kind: "k", payload: "[1]"), FollowUp(kind: "k", priority: 1000),
                         FollowUp(kind: "k", then: [FollowUp(kind: "k", maxAttempts: 0)])] {
            do {
                try await queue.enqueue(NewJob(kind: "k", followUps: [followUp]))
                XCTFail("accepted \(followUp)")
            } catch is QueueError {}
        }
        try await XCTAssertEqualAsync(try await queue.jobs(JobFilter()).total, 0)
    }
}
