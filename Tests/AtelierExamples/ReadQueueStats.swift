import AtelierHandlers
import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Read the queue's state as an operator: `JobQueue.stats()` is what `atelier queue stats`
/// prints — jobs by kind and state; per queue, whether it is paused and how many jobs are ready,
/// scheduled for later or running, and the oldest ready job's age; finished jobs per minute.
/// `workers()` lists the live worker processes (`atelier workers`).
final class ReadQueueStats: DatabaseTestCase {
    func testStatsOfAPausedQueueThenOfItsDrain() async throws {
        try await queue.pause(queue: "reports", actor: "example")
        _ = try await queue.enqueue([
            NewJob(kind: "noop", queue: "reports"),
            NewJob(kind: "noop", queue: "reports"),
            NewJob(kind: "noop", queue: "reports", delay: .seconds(3600)),
        ])

        let paused = try await queue.stats()
        XCTAssertEqual(paused.counts.map { "\($0.kind) \($0.state) \($0.count)" }, ["noop queued 3"])
        let reports = try XCTUnwrap(paused.queues.first { $0.queue == "reports" })
        XCTAssertTrue(reports.paused)
        XCTAssertEqual([reports.ready, reports.scheduled, reports.running], [2, 1, 0])

        // Resume the queue and let a worker drain what is ready.
        try await queue.resume(queue: "reports", actor: "example")
        var configuration = WorkerConfiguration.example
        configuration.queues = ["reports"]
        let worker = try Worker(queue: queue, handlers: HandlerRegistry(DiagnosticHandlers.all(environment: [:])),
                                configuration: configuration, logger: logger)
        start(worker)
        try await db.eventually("the ready jobs run") {
            try await queue.stats().counts.contains { $0.kind == "noop" && $0.state == .succeeded && $0.count == 2 }
        }

        let drained = try await queue.stats()
        let after = try XCTUnwrap(drained.queues.first { $0.queue == "reports" })
        XCTAssertFalse(after.paused)
        XCTAssertEqual([after.ready, after.scheduled, after.running], [0, 1, 0], "the delayed job waits for its time")
        XCTAssertEqual(drained.throughput.map(\.succeeded).reduce(0, +), 2, "both finished within the last minutes")
        let workers = try await queue.workers()
        XCTAssertEqual(workers.map(\.queues), [["reports"]])
        XCTAssertEqual(workers.map(\.alive), [true])
    }
}
