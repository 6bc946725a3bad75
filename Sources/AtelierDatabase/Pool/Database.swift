import Logging
import PostgresNIO

/// The process's connection pool on its database: one per process, shared by the queue
/// (`JobQueue`) and every store that keeps data of its own (accounts, tokens, documents, vectors).
/// It must be running: call ``run()`` in a task, or a ServiceGroup's service, for as long as it
/// is used.
public final class Database: Sendable {
    /// The pool. Statements go through it; a transaction takes one of its connections.
    public let client: PostgresClient
    public let url: DatabaseURL
    public let logger: Logger

    /// A pool of at most `maxConnections` connections, each named `applicationName` in
    /// `pg_stat_activity`.
    public init(url: DatabaseURL, applicationName: String = "atelier", maxConnections: Int = 10, logger: Logger) {
        var configuration = url.clientConfiguration(applicationName: applicationName)
        configuration.options.maximumConnections = maxConnections
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.url = url
        self.logger = logger
    }

    /// Runs the pool until the surrounding task is cancelled (or, in a ServiceGroup, shut down
    /// gracefully), and beside it the ``DeadConnectionDetector`` that makes the pool's
    /// connections — and every other connection this process holds to the database — notice a
    /// database that went away without a word.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            group.addTask { await DeadConnectionDetector(databasePort: self.url.port).run() }
            await group.next()  // the pool has stopped: the detector stops with it
            group.cancelAll()
        }
    }
}
