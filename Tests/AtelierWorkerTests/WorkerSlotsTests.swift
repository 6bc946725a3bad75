@testable import AtelierQueue
@testable import AtelierWorker
import Foundation
import XCTest

/// A worker's slots (``WorkerSlots``, migration 0023): the claim loop and the completion
/// flushes both reserve before they claim, so together they never hold more than the
/// worker's concurrency; a flush claims only while there is a backlog and for at least the
/// refill threshold.
final class WorkerSlotsTests: XCTestCase {
    private let template = ClaimRequest(worker: "w1", queues: ["default"], kinds: ["noop"], limit: 0, lease: .seconds(30))

    private func slots(_ concurrency: Int = 8, refills: Bool = true) -> (WorkerSlots, Doorbell) {
        let doorbell = Doorbell()
        return (WorkerSlots(concurrency: concurrency, template: template, doorbell: doorbell, refillsOnCompletion: refills),
                doorbell)
    }

    private func jobs(_ count: Int, runAlone: Bool = false) -> [ClaimedJob] {
        (0..<count).map { _ in
            ClaimedJob(id: UUID(), kind: "noop", queue: "default", priority: 0, owner: "o", payload: "{}", attempt: 1,
                       maxAttempts: 5, requestID: nil, createdAt: Date(), leaseOwner: "w1", runAlone: runAlone)
        }
    }

    func testReservationsNeverExceedTheConcurrency() {
        let (slots, _) = slots(8)
        let first = slots.reserve(atLeast: 1)
        XCTAssertEqual(first?.limit, 8, "every free slot")
        XCTAssertEqual(first?.worker, "w1")
        XCTAssertNil(slots.reserve(atLeast: 1), "all reserved")
        XCTAssertNil(slots.reserveClaim(), "a flush finds none either")

        let started = slots.fill(jobs(5), for: first!)
        XCTAssertEqual(started.count, 5)
        XCTAssertEqual(slots.running.count, 5)
        XCTAssertFalse(slots.backlog, "5 of 8: the queue ran dry")
        XCTAssertEqual(slots.free, 3)
        XCTAssertNil(slots.reserve(atLeast: 4))
        XCTAssertEqual(slots.reserve(atLeast: 1)?.limit, 3)
        XCTAssertEqual(slots.free, 0)
    }

    func testAFlushClaimsOnlyWithABacklogAndAtLeastTheThreshold() {
        let (slots, _) = slots(8)
        XCTAssertNil(slots.reserveClaim(), "no claim yet filled its slots: no backlog known")
        let request = slots.reserve(atLeast: 1)!
        let started = slots.fill(jobs(8), for: request)
        XCTAssertTrue(slots.backlog)
        XCTAssertTrue(slots.flushRefills)

        for (job, _) in started.prefix(3) { _ = slots.finished(job) }
        XCTAssertNil(slots.reserveClaim(), "3 free: below the threshold of 4")
        _ = slots.finished(started[3].0)
        let refill = slots.reserveClaim()
        XCTAssertEqual(refill?.limit, 4)
        XCTAssertEqual(slots.free, 0, "reserved for the flush: the claim loop finds none")
        XCTAssertNil(slots.reserve(atLeast: 1))

        XCTAssertEqual(slots.deliver(jobs(2), for: refill!), [])
        XCTAssertEqual(slots.running.count, 6, "delivered jobs count as running at once")
        XCTAssertFalse(slots.backlog, "2 of 4")
        XCTAssertEqual(slots.takeDelivered().count, 2)
        XCTAssertEqual(slots.takeDelivered().count, 0)
        XCTAssertEqual(slots.free, 2)
    }

    func testAFailedFlushClaimGivesItsSlotsBack() async {
        let (slots, doorbell) = slots(4)
        _ = slots.fill(jobs(4), for: slots.reserve(atLeast: 1)!).map { slots.finished($0.0) }
        let refill = slots.reserveClaim()!
        XCTAssertEqual(slots.free, 0)
        slots.cancel(refill)
        XCTAssertEqual(slots.free, 4)
        await doorbell.wait(timeout: .seconds(600))   // rung by cancel: the claim loop tries itself
    }

    func testAJobRunningAloneAndAStopClaimNothing() {
        let (slots, _) = slots(4)
        let alone = slots.fill(jobs(1, runAlone: true), for: slots.reserve(atLeast: 1)!)
        XCTAssertNil(slots.reserve(atLeast: 1), "a job runs alone")
        _ = slots.finished(alone[0].0)
        XCTAssertNil(slots.reserve(atLeast: 1), "its completion is not written yet")
        slots.aloneJobEnded()
        XCTAssertEqual(slots.reserve(atLeast: 1)?.limit, 4)

        let (stopping, _) = self.slots(4)
        stopping.close()
        XCTAssertNil(stopping.reserve(atLeast: 1))
        XCTAssertNil(stopping.reserveClaim())
    }

    /// A flush that reserved before the stop and returns after it: its jobs are refused (the
    /// completer hands them back), not left counted as running for a drain that has ended.
    func testJobsDeliveredAfterTheStopAreRefused() {
        let (slots, _) = slots(4)
        let started = slots.fill(jobs(4), for: slots.reserve(atLeast: 1)!)
        for (job, _) in started { _ = slots.finished(job) }
        let refill = slots.reserveClaim()!
        slots.close()
        let late = jobs(4)
        XCTAssertEqual(slots.deliver(late, for: refill).map(\.id), late.map(\.id))
        XCTAssertEqual(slots.running.count, 0)
        XCTAssertEqual(slots.takeDelivered().count, 0)
        XCTAssertEqual(slots.free, 4, "the reservation is released")
    }

    func testWithoutRefillOnCompletionFlushesNeverClaim() {
        let (slots, _) = slots(4, refills: false)
        let started = slots.fill(jobs(4), for: slots.reserve(atLeast: 1)!)
        for (job, _) in started { _ = slots.finished(job) }
        XCTAssertTrue(slots.backlog)
        XCTAssertFalse(slots.flushRefills)
        XCTAssertNil(slots.reserveClaim(), "4 free and a backlog, but flushes do not claim")
        XCTAssertEqual(slots.reserve(atLeast: 2)?.limit, 4, "the claim loop does")
    }
}
