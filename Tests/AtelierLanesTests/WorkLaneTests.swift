import AtelierLanes
import Synchronization
import XCTest

/// A lane's places, line and deadline: work that would wait too long — past the line's length,
/// or past the deadline by the lane's recent pace — is refused at once, a freed place goes to
/// the first in line (unless it waited past the deadline: then it is refused), and a waiter that
/// gives up leaves the line. Time is the test's own clock (``ManualClock``), moved by hand; waits
/// below are for a state the lane reaches, however long that takes.
final class WorkLaneTests: XCTestCase {
    func testAFullLaneRefusesAtOnceAndAFreedPlaceGoesToTheFirstInLine() async throws {
        let lane = WorkLane(name: "test work", concurrency: 1, queueLimit: 2)
        let running = try await lane.hold()
        let order = OrderRecorder()
        let first = Task { try await lane.run { order.append(1) } }
        try await waitUntil { lane.load.waiting == 1 }
        let second = Task { try await lane.run { order.append(2) } }
        try await waitUntil { lane.load.waiting == 2 }
        do {
            _ = try await lane.run { 3 }
            XCTFail("a third item found room in a lane of one place and a line of two")
        } catch let error as LaneFullError {
            XCTAssertEqual(error, LaneFullError(lane: "test work", retryAfterSeconds: 1))
            XCTAssertEqual(error.message, "the server is busy with test work right now; try again in 1 s")
        }
        XCTAssertEqual(lane.load.refused, 1)
        XCTAssertTrue(order.values.isEmpty, "nothing ran while the place was held")
        running.release()
        running.release()  // a second release gives nothing back
        try await first.value
        try await second.value
        XCTAssertEqual(order.values, [1, 2], "in the order they came")
        XCTAssertEqual(lane.load.running, 0)
        XCTAssertEqual(lane.load.waiting, 0)
    }

    /// What is costly to even hand over (an upload's body) asks first, and is refused only when
    /// there is neither a place nor room in the line.
    func testRefuseIfFullRefusesOnlyAFullLane() async throws {
        let lane = WorkLane(name: "test work", concurrency: 1, queueLimit: 1)
        XCTAssertNoThrow(try lane.refuseIfFull())
        let running = try await lane.hold()
        XCTAssertNoThrow(try lane.refuseIfFull(), "room in the line")
        let waiter = Task { try await lane.hold() }
        try await waitUntil { lane.load.waiting == 1 }
        XCTAssertThrowsError(try lane.refuseIfFull()) { error in
            XCTAssertEqual(error as? LaneFullError, LaneFullError(lane: "test work", retryAfterSeconds: 1))
        }
        XCTAssertEqual(lane.load.refused, 1)
        running.release()
        try await waiter.value.release()
        XCTAssertNoThrow(try lane.refuseIfFull())
    }

    /// With a long line, the deadline decides: items that held their place 1 s each make a lane
    /// of one place take two waiters (1 s and 2 s away) and refuse the third (3 s), before and
    /// after the body (``WorkLane/refuseIfFull()``).
    func testTheLaneRefusesWhatWouldWaitPastTheDeadlineByItsPace() async throws {
        let clock = ManualClock()
        let lane = WorkLane(name: "test work", concurrency: 1, queueLimit: 100, maxWait: .seconds(2), now: clock.now)
        let first = try await lane.hold()
        clock.advance(.seconds(1))
        first.release()
        XCTAssertEqual(lane.expectedWait, .zero, "a free place")

        let running = try await lane.hold()
        XCTAssertEqual(lane.expectedWait, .seconds(1))
        // Each waiter gives its place back as soon as it gets it: the line is served in the
        // order the tasks reached it, not the order they were made, so a test that released
        // them in its own order could wait on one still in line behind the other.
        let waiters = (0..<2).map { _ in Task { try await lane.hold().release() } }
        try await waitUntil { lane.load.waiting == 2 }
        XCTAssertEqual(lane.expectedWait, .seconds(3))
        XCTAssertThrowsError(try lane.refuseIfFull()) { XCTAssertTrue($0 is LaneFullError) }
        do {
            _ = try await lane.hold()
            XCTFail("an item 3 s away was let into a lane with a 2 s deadline")
        } catch is LaneFullError {}
        XCTAssertEqual(lane.load.refused, 2)

        running.release()
        for waiter in waiters { try await waiter.value }
        XCTAssertEqual(lane.load.running, 0)
        XCTAssertEqual(lane.load.waiting, 0)
    }

    /// The pace can change while a request waits: one that has waited past the deadline when its
    /// turn comes is refused, and the place goes to the next in line.
    func testAWaiterPastTheDeadlineIsRefusedWhenItsTurnComes() async throws {
        let clock = ManualClock()
        let lane = WorkLane(name: "test work", concurrency: 1, queueLimit: 10, maxWait: .seconds(2), now: clock.now)
        let running = try await lane.hold()
        let late = Task { try await lane.run { "late" } }
        try await waitUntil { lane.load.waiting == 1 }
        clock.advance(.seconds(3))
        let onTime = Task { try await lane.run { "on time" } }
        try await waitUntil { lane.load.waiting == 2 }
        running.release()
        do {
            _ = try await late.value
            XCTFail("a request that waited 3 s in a lane with a 2 s deadline was served")
        } catch let error as LaneFullError {
            XCTAssertEqual(error, LaneFullError(lane: "test work", retryAfterSeconds: 1))
        }
        let served = try await onTime.value
        XCTAssertEqual(served, "on time")
        XCTAssertEqual(lane.load.refused, 1)
        XCTAssertEqual(lane.load.running, 0)
    }

    func testAWaiterThatIsCancelledLeavesTheLine() async throws {
        let lane = WorkLane(name: "test work", concurrency: 1, queueLimit: 1)
        let running = try await lane.hold()
        let waiter = Task { try await lane.run { "ran" } }
        try await waitUntil { lane.load.waiting == 1 }
        waiter.cancel()
        do {
            _ = try await waiter.value
            XCTFail("a cancelled waiter ran")
        } catch is CancellationError {}
        XCTAssertEqual(lane.load.waiting, 0, "its place in line is free again")
        let next = Task { try await lane.run { "next" } }
        try await waitUntil { lane.load.waiting == 1 }
        running.release()
        let ran = try await next.value
        XCTAssertEqual(ran, "next")
        XCTAssertEqual(lane.load.running, 0)
    }

    func testBlockingAndAsyncWorkRunWithinTheLimit() async throws {
        let lane = WorkLane(name: "test work", concurrency: 2, queueLimit: 100)
        let peak = PeakCounter()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for value in 0..<40 {
                group.addTask {
                    value.isMultiple(of: 2)
                        ? try await lane.run { peak.enter(); defer { peak.leave() }; return value }
                        : try await lane.run { () async -> Int in peak.enter(); await Task.yield(); peak.leave(); return value }
                }
            }
            var sum = 0
            for try await value in group { sum += value }
            XCTAssertEqual(sum, (0..<40).reduce(0, +))
        }
        XCTAssertLessThanOrEqual(peak.highest, 2, "never more than the lane's places at once")
        XCTAssertEqual(lane.load.running, 0)
        XCTAssertEqual(lane.load.refused, 0)
    }

    private func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
        while !condition() {
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

private final class OrderRecorder: Sendable {
    private let recorded = Mutex<[Int]>([])
    func append(_ value: Int) { recorded.withLock { $0.append(value) } }
    var values: [Int] { recorded.withLock { $0 } }
}

private final class PeakCounter: Sendable {
    private let counts = Mutex<(now: Int, highest: Int)>((0, 0))
    func enter() { counts.withLock { $0.now += 1; $0.highest = max($0.highest, $0.now) } }
    func leave() { counts.withLock { $0.now -= 1 } }
    var highest: Int { counts.withLock { $0.highest } }
}

/// A clock the test moves by hand.
private final class ManualClock: Sendable {
    private let time = Mutex(Duration.zero)
    var now: @Sendable () -> Duration { { [self] in time.withLock { $0 } } }
    func advance(_ by: Duration) { time.withLock { $0 += by } }
}
