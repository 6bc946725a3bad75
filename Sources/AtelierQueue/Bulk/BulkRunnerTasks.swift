import Logging

/// The bulk actions a long-running process (the API, a worker's maintenance) runs in the
/// background, as children of one task: ``run()``, which the process's service group or
/// maintenance loop owns. Cancelling it cancels every runner between batches (the actions stay
/// `running`, for the maintenance leader to continue) and returns once all of them have ended, so
/// shutdown waits for them instead of closing the pool under them.
package final class BulkRunnerTasks: Sendable {
    private let work: AsyncStream<@Sendable () async -> Void>
    private let starts: AsyncStream<@Sendable () async -> Void>.Continuation
    private let logger: Logger

    package init(logger: Logger) {
        (work, starts) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.logger = logger
    }

    /// Runs `body` as a child of ``run()``. Returns false, without running it, once the tasks
    /// are shut down (``finish()`` or the end of ``run()``).
    @discardableResult
    package func start(_ body: @escaping @Sendable () async -> Void) -> Bool {
        if case .enqueued = starts.yield(body) { return true }
        logger.info("a bulk action was not started: this process is stopping")
        return false
    }

    /// Runs what ``start(_:)`` is given until cancelled or finished, then waits for it to end.
    /// A cancelled task's stream ends at once, and its children are cancelled with it.
    package func run() async {
        await withDiscardingTaskGroup { group in
            for await body in work {
                group.addTask { await body() }
            }
        }
        starts.finish()
    }

    /// Takes no more work; ``run()`` returns once the runners it holds have ended.
    package func finish() {
        starts.finish()
    }
}
