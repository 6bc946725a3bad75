import Foundation
import Logging

/// Runs a bulk action's batches one after another until it is done or stopped: what the CLI
/// runs in the foreground, the API and console in a task of their own, and the maintenance leader
/// for an action whose runner died. Two runners of one action take turns (each batch locks the
/// action's row) and never act on a job twice.
package struct BulkActionRunner: Sendable {
    let queue: JobQueue
    /// Removes the files of jobs a purge deleted (their blob folders). A failure is the callee's
    /// to log: the orphan sweep removes what is left.
    let removeFiles: @Sendable ([UUID]) async -> Void
    let logger: Logger
    /// The share of its time the action spends in batches: after a batch that took `t`, it waits
    /// `t × (1 / share − 1)` before the next. A batch is a busy database statement; on a small
    /// machine one running back to back takes a core from the workers. 1 runs without a pause.
    let share: Double

    /// 0.25: a batch, then three times its length of quiet (docs/benchmarks/queue.md, "Bulk actions").
    package static let defaultShare = 0.25

    package init(queue: JobQueue, logger: Logger, share: Double = BulkActionRunner.defaultShare,
                 removeFiles: @escaping @Sendable ([UUID]) async -> Void) {
        self.queue = queue
        self.logger = logger
        self.share = min(1, max(0.01, share))
        self.removeFiles = removeFiles
    }

    /// Takes batches until the action is done or stopped (paced by `share`), calling `progress` after each; returns
    /// the action as it ended. Task cancellation ends the loop between batches (the action stays
    /// `running`, for `atelier jobs bulk resume` or the leader). A batch that deadlocks or times
    /// out on a lock (pass 2 waits on the workers' rows) is rolled back and taken again.
    @discardableResult
    package func run(_ id: Int64, progress: @Sendable (BulkAction) async -> Void = { _ in }) async throws -> BulkAction {
        var transientFailures = 0
        while true {
            try Task.checkCancellation()
            let step: BulkStep
            let began = ContinuousClock.now
            do {
                step = try await queue.bulkActions.step(id)
                transientFailures = 0
            } catch where Self.isTransient(error) && transientFailures < 10 {
                transientFailures += 1
                logger.info("a bulk action's batch met a lock conflict; taking it again", metadata: ["bulk_action": "\(id)"])
                try await Task.sleep(for: .milliseconds(50 * transientFailures))
                continue
            }
            if !step.purged.isEmpty { await removeFiles(step.purged) }
            let action = try await queue.bulkActions.find(id: id)
            await progress(action)
            if step.state != .running { return action }
            if share < 1 {
                try await Task.sleep(for: (ContinuousClock.now - began) * (1 / share - 1))
            }
        }
    }

    /// Deadlock detected or serialization failure: the batch rolled back whole.
    static func isTransient(_ error: any Error) -> Bool {
        guard let code = DatabaseErrorText.sqlState(error) else { return false }
        return code == "40P01" || code == "40001" || code == "55P03"
    }
}
