import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

/// The durable job queue on PostgreSQL. One instance per process, shared by every task.
///
/// A job's own operations live in extensions named after the mechanism they implement:
/// `Enqueue/`, `Claim/`, `Completion/`, `Leases/`, `Control/`, `Inspection/`. The mechanisms
/// with tables of their own are types of their own, reached from the queue and sharing its pool:
/// ``schedules`` (`Schedules/`), ``limits`` (`Limits/`), ``ownerWeights`` (`FairShare/`),
/// ``bulkActions`` (`Bulk/`) and ``maintenance`` (`Maintenance/`).
/// It runs its statements on a ``Database`` (the process's pool), its own or one it shares with
/// the application's stores; the pool must be running: call ``run()`` in a task (or a
/// ServiceGroup's service) for as long as the queue is used.
///
/// Public: what producers and operators use — enqueue; read jobs, their events and children;
/// cancel, retry, pause and resume; stats, metrics and the worker list. The worker's side —
/// claim, lease renewal and progress, completion, worker registration and heartbeats, and the
/// maintenance statements (rescue, prune, purge, orphans) — is `package`: only this package's
/// own targets (the worker, the executable, the tests) call it.
///
/// A job's way through these operations, step by step: docs/architecture.md §2.
public final class JobQueue: QueueStatements {
    /// The pool the queue's statements run on.
    public let database: Database
    public let logger: Logger
    /// Whether this process's enqueues and claims share the queue out by owner (the default) or
    /// keep strict FIFO within a priority (`ATELIER_FAIR_SHARE=off`). Set it the same on every
    /// process: an enqueue and a claim tag jobs by it (`atelier_fair_tag`, docs/queue.md).
    public let fairShare: Bool
    /// Single-job enqueues made at the same moment go as one insert.
    let coalescer = EnqueueCoalescer()

    /// A queue on `database`, the pool it shares with the application's stores.
    public init(database: Database, fairShare: Bool = true, logger: Logger? = nil) {
        self.database = database
        self.fairShare = fairShare
        self.logger = logger ?? database.logger
    }

    /// A queue on a pool of its own.
    public convenience init(url: DatabaseURL, applicationName: String = "atelier", maxConnections: Int = 10,
                            fairShare: Bool = true, logger: Logger) {
        self.init(database: Database(url: url, applicationName: applicationName, maxConnections: maxConnections, logger: logger),
                  fairShare: fairShare, logger: logger)
    }

    /// The pool's client, for the queue's own statements (and this package's tests).
    package var client: PostgresClient { database.client }
    /// Where the database is: the notifier's own connection and the workers' lock sessions go there.
    public var url: DatabaseURL { database.url }

    /// Runs the database's pool (``Database/run()``) until the surrounding task is cancelled.
    public func run() async {
        await database.run()
    }

    /// Opens one connection and closes it: a fast, clear failure when the database is not there.
    public static func checkReachable(_ url: DatabaseURL, logger: Logger, timeout: Duration = .seconds(5)) async throws(QueueError) {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(
                        configuration: url.connectionConfiguration(), id: 0, logger: logger)
                    try await connection.close()
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw QueueError.unreachable("timed out after \(timeout) connecting to \(url)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .unreachable("cannot reach the database at \(url): \(DatabaseErrorText.describe(error)). "
                + "Is PostgreSQL running? (./ops/run starts one; ATELIER_DATABASE_URL says where to look)")
        }
    }

    /// Runs `body` with a queue whose pool runs for exactly as long as `body` does.
    public static func withQueue<T: Sendable>(
        url: DatabaseURL, applicationName: String = "atelier", maxConnections: Int = 4, fairShare: Bool = true,
        logger: Logger, _ body: @Sendable (JobQueue) async throws -> T
    ) async throws -> T {
        try await checkReachable(url, logger: logger)
        let queue = JobQueue(url: url, applicationName: applicationName, maxConnections: maxConnections,
                             fairShare: fairShare, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await queue.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(queue)
        }
    }
}

extension JobQueue {
    /// One trivial round trip: is the database answering now?
    public func ping() async throws {
        _ = try await scalar("SELECT 1", as: Int.self)
    }
}
