import AtelierDatabase
import AtelierQueue
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Elects one process to do a database-wide chore (rescue, purge, the orphan sweep) while the
/// others stand by: the leader is whoever holds the session advisory lock
/// `(Schema.lockNamespace, key)` on its own connection.
///
/// The lock lives exactly as long as that connection: a leader that is killed, partitioned or
/// cut off by a database restart loses it at once, and the next standby to call ``tryLead()``
/// takes over. Nothing depends on timing: two processes can never both hold the lock.
actor LeaderLock {
    /// The key of the maintenance leader's lock (the migration lock is −1; worker liveness
    /// locks are positive `workers.lock_key`s).
    static let maintenanceKey: Int32 = -2

    private let url: DatabaseURL
    private let key: Int32
    private let logger: Logger
    private var connection: PostgresConnection?
    private var held = false

    init(url: DatabaseURL, key: Int32 = LeaderLock.maintenanceKey, logger: Logger) {
        self.url = url
        self.key = key
        self.logger = logger
    }

    /// Whether this process leads now. Takes the lock when it is free; when it was already
    /// taken, proves the connection holding it is still alive. Never waits for the lock.
    func tryLead() async -> Bool {
        do {
            let connection: PostgresConnection
            if let open = self.connection {
                connection = open
            } else {
                let (url, logger) = (self.url, self.logger)
                connection = try await Self.bounded { try await PostgresConnection.connect(
                    configuration: url.connectionConfiguration(), id: 3, logger: logger) }
                self.connection = connection
                held = false
            }
            let (key, logger) = (self.key, self.logger)
            if held {
                // The lock is as alive as the connection that holds it.
                try await Self.bounded {
                    for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                }
                return true
            }
            let acquired = try await Self.bounded {
                var acquired = false
                let rows = try await connection.query(
                    "SELECT pg_try_advisory_lock(\(Schema.lockNamespace), \(key))", logger: logger)
                for try await value in rows.decode(Bool.self) { acquired = value }
                return acquired
            }
            held = acquired
            if held { logger.info("took the maintenance lead") }
            return held
        } catch {
            if held {
                logger.warning("lost the maintenance lead", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
            }
            await dropConnection()
            return false
        }
    }

    /// Lets another process lead: closes the connection, which releases the lock.
    func resign() async {
        if held { logger.info("gave up the maintenance lead") }
        await dropConnection()
    }

    var isLeader: Bool { held }

    private func dropConnection() async {
        held = false
        if let connection {
            self.connection = nil
            // Bounded: a connection the server cut off may never answer a goodbye either.
            _ = try? await Self.bounded { try await connection.close() }
        }
    }

    /// Runs `work`, giving up after `timeout`: a connection the server terminated (a database
    /// restart, `pg_terminate_backend`) can leave a query waiting forever, and the maintenance
    /// loop must never wait forever. On a timeout the work is cancelled and left behind.
    static func bounded<T: Sendable>(_ timeout: Duration = .seconds(5),
                                     _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once()
        return try await withCheckedThrowingContinuation { continuation in
            let running = Task {
                do {
                    let value = try await work()
                    if once.claim() { continuation.resume(returning: value) }
                } catch {
                    if once.claim() { continuation.resume(throwing: error) }
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                if once.claim() {
                    running.cancel()
                    continuation.resume(throwing: QueueError.unreachable("the maintenance connection did not answer within \(timeout)"))
                }
            }
        }
    }
}

/// True for the first caller only.
private final class Once: Sendable {
    private let done = Atomic<Bool>(false)
    func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }
}
