import AtelierHandlers
import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Chain a follow-up job: a `NewJob` may carry `followUps`, jobs to enqueue when it succeeds
/// ("make the thumbnail, then index it"). The statement that records the success inserts them,
/// so each exists exactly once, only after a success, with the parent's owner and `parentID`
/// naming the parent. A parent that fails enqueues nothing.
final class ChainAFollowUp: DatabaseTestCase {
    func testTheFollowUpRunsAfterItsParentSucceeds() async throws {
        let worker = try Worker(queue: queue, handlers: HandlerRegistry(DiagnosticHandlers.all(environment: [:])),
                                configuration: .example, logger: logger)
        start(worker)

        let parent = try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 50}"#, owner: "alice",
                                                    followUps: [FollowUp(kind: "noop", priority: Priority.batch)])).id
        try await XCTAssertEqualAsync(try await waitUntilFinished(parent).state, .succeeded)
        let children = try await queue.children(of: parent)
        XCTAssertEqual(children.map(\.kind), ["noop"])
        let child = try XCTUnwrap(children.first)
        XCTAssertEqual(child.parentID, parent)
        XCTAssertEqual(child.owner, "alice", "a follow-up belongs to its parent's owner")
        XCTAssertEqual(child.priority, Priority.batch)
        try await XCTAssertEqualAsync(try await waitUntilFinished(child.id).state, .succeeded)
        let parentEvents = try await queue.events(jobID: parent)
        let succeeded = try XCTUnwrap(parentEvents.last)
        XCTAssertEqual(succeeded.type, "succeeded")
        XCTAssertTrue(succeeded.data.contains(child.id.uuidString.lowercased()), "the parent's success names its follow-up")

        let failing = try await queue.enqueue(NewJob(kind: "fail", payload: #"{"message": "no such photo", "permanent": true}"#,
                                                     followUps: [FollowUp(kind: "noop")])).id
        try await XCTAssertEqualAsync(try await waitUntilFinished(failing).state, .failed)
        try await XCTAssertEqualAsync(try await queue.children(of: failing), [], "a failed parent enqueues nothing")
    }
}
