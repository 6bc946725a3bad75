import Logging
import PostgresNIO

/// The maintenance statements the workers' leader runs (AtelierWorker's `Maintenance`): rescue
/// the jobs of dead workers, purge finished jobs past retention, fold the job counts, find the
/// jobs a blob's owner no longer has. Reached as `queue.maintenance`.
public struct QueueMaintenance: QueueStatements {
    package let client: PostgresClient
    public let logger: Logger

    init(_ queue: JobQueue) {
        (client, logger) = (queue.client, queue.logger)
    }
}

extension JobQueue {
    /// The maintenance leader's statements: ``QueueMaintenance``.
    public var maintenance: QueueMaintenance { QueueMaintenance(self) }
}
