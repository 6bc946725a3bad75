import AtelierQueue
import AtelierStorage
import Foundation
import Logging
import Synchronization

/// Continues bulk actions whose runner died (a killed `atelier jobs cancel --where …`, a
/// restarted API): a running action no batch has moved for `idleFor` is run again here, as a
/// child of ``tasks`` (whose `run()` the maintenance loop owns and awaits on shutdown), so the
/// tick does not wait for it. Its batches pick up at its cursor; a batch the dead runner had
/// begun was rolled back with it.
final class BulkResumer: Sendable {
    let queue: JobQueue
    let blobs: (any BlobStore)?
    let idleFor: Duration
    let logger: Logger
    /// The actions this process runs now, so a slow one is not started twice.
    private let running = Mutex(Set<Int64>())
    let tasks: BulkRunnerTasks

    static let defaultIdle = Duration.seconds(60)

    init(queue: JobQueue, blobs: (any BlobStore)?, idleFor: Duration = BulkResumer.defaultIdle, logger: Logger) {
        self.queue = queue
        self.blobs = blobs
        self.idleFor = idleFor
        self.logger = logger
        self.tasks = BulkRunnerTasks(logger: logger)
    }

    /// Starts a runner for each abandoned action; returns their ids.
    @discardableResult
    func resume() async throws -> [Int64] {
        let abandoned = try await queue.bulkActions.abandoned(idleFor: idleFor)
        var started: [Int64] = []
        for id in abandoned where running.withLock({ $0.insert(id).inserted }) {
            let runner = BulkActionRunner(queue: queue, logger: logger) { [blobs, logger] purged in
                await blobs?.removeFolders(ofDeletedJobs: purged, logger: logger)
            }
            logger.info("continuing an abandoned bulk action", metadata: ["bulk_action": "\(id)"])
            let began = tasks.start { [self, logger] in
                defer { self.running.withLock { _ = $0.remove(id) } }
                do {
                    try await runner.run(id)
                } catch {
                    logger.warning("bulk action interrupted", metadata: ["bulk_action": "\(id)", "error": "\(DatabaseErrorText.describe(error))"])
                }
            }
            if began {
                started.append(id)
            } else {
                running.withLock { _ = $0.remove(id) }
            }
        }
        return started
    }
}
