import AtelierHandlers
import AtelierQueue
import AtelierTestSupport
@testable import AtelierWorker
import Foundation
import Logging

/// A ``Worker`` running inside the test process, with test-speed timings.
struct InProcessWorker {
    let worker: Worker
    let task: Task<Void, any Error>

    static func start(_ db: TestDatabase, handlers: [any JobHandler] = DiagnosticHandlers.all(environment: [:]),
                      configure: (inout WorkerConfiguration) -> Void = { _ in }) throws -> InProcessWorker {
        var configuration = WorkerConfiguration()
        configuration.concurrency = 4
        configuration.pollInterval = .milliseconds(200)
        configuration.heartbeatInterval = .milliseconds(300)
        configuration.lease = .seconds(5)
        configuration.rescueInterval = .milliseconds(300)
        configuration.drainTimeout = .seconds(5)
        configuration.exitIfDrainHangs = false
        configure(&configuration)
        var logger = Logger(label: "test-worker")
        logger.logLevel = .error
        let worker = try Worker(queue: db.queue, handlers: HandlerRegistry(handlers), configuration: configuration, logger: logger)
        let task = Task { try await worker.run() }
        return InProcessWorker(worker: worker, task: task)
    }

    /// Drains and stops, as SIGTERM would.
    func stop() async throws {
        worker.stop()
        try await task.value
    }
}
