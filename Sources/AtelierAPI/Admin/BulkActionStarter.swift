import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// Runs bulk actions started over HTTP (the admin API, the console) in a task of the API
/// process, which the request does not wait for: the caller follows the action's row. The tasks
/// are children of ``tasks``' `run()`, a background service of the API: on shutdown they stop
/// between batches and the service waits for them. The maintenance leader continues an action
/// this process left a minute later.
package struct BulkActionStarter: Sendable {
    let queue: JobQueue
    let blobs: any BlobStore
    let logger: Logger
    package let tasks: BulkRunnerTasks

    package init(queue: JobQueue, blobs: any BlobStore, logger: Logger) {
        self.queue = queue
        self.blobs = blobs
        self.logger = logger
        self.tasks = BulkRunnerTasks(logger: logger)
    }

    /// Starts running action `id` in the background (not while the API is stopping: the leader
    /// continues it then).
    package func start(_ id: Int64) {
        let runner = BulkActionRunner(queue: queue, logger: logger) { [blobs, logger] purged in
            await blobs.removeFolders(ofDeletedJobs: purged, logger: logger)
        }
        let logger = self.logger
        tasks.start {
            do {
                let action = try await runner.run(id)
                logger.info("bulk action ended", metadata: ["bulk_action": "\(id)", "state": "\(action.state.rawValue)",
                                                             "acted": "\(action.acted)"])
            } catch {
                logger.warning("bulk action interrupted; the maintenance leader continues it",
                               metadata: ["bulk_action": "\(id)", "error": "\(DatabaseErrorText.describe(error))"])
            }
        }
    }
}
