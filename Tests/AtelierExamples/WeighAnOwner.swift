import AtelierQueue
import AtelierTestSupport
import XCTest

/// Fair share serves owners in turn, so one owner's backlog does not stall another's jobs. A
/// weight changes the turns: an owner of weight 2 is served two jobs for each one of an owner of
/// weight 1 while both have jobs queued (`atelier weights set studio 2`). Weights apply to jobs
/// enqueued after the change.
final class WeighAnOwner: DatabaseTestCase {
    func testAnOwnerOfWeightTwoIsServedTwiceAsOften() async throws {
        try await queue.ownerWeights.set(owner: "studio", weight: 2, actor: "example")
        _ = try await queue.enqueue((0..<30).map { _ in NewJob(kind: "k", owner: "studio") })
        _ = try await queue.enqueue((0..<30).map { _ in NewJob(kind: "k", owner: "hobbyist") })

        let served = try await queue.claim(worker: "w1", queues: ["default"], kinds: ["k"], limit: 9, lease: .seconds(30))
        let byOwner = Dictionary(grouping: served, by: \.owner).mapValues(\.count)
        XCTAssertEqual(byOwner, ["studio": 6, "hobbyist": 3], "the hobbyist, who came second, is not left waiting behind 30 jobs")
    }
}
