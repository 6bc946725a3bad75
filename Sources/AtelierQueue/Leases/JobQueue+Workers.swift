import AtelierDatabase
import Foundation
import PostgresNIO

extension JobQueue {
    /// Adds (or refreshes) `worker` in the registry; returns its liveness lock key.
    ///
    /// `lockKey`: the key this worker already holds the liveness lock on, when it registers again
    /// because its row was pruned (it was unreachable for longer than the prune threshold and came
    /// back). The row is made with that same key: with a new one, the lock the worker holds would
    /// name no row, every rescue would take its running jobs for a dead worker's, and each would
    /// count as a crash toward the poison-pill limit.
    package func register(_ worker: WorkerRegistration, lockKey: Int32? = nil) async throws -> Int32 {
        let key: Int32?
        if let lockKey {
            key = try await scalar("""
                INSERT INTO workers (id, host, pid, queues, kinds, concurrency, version, lock_key) OVERRIDING SYSTEM VALUE
                VALUES (\(worker.id), \(worker.host), \(worker.pid), \(worker.queues)::text[], \(worker.kinds)::text[],
                        \(worker.concurrency), \(worker.version), \(lockKey))
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                RETURNING lock_key
                """, as: Int32.self)
        } else {
            key = try await scalar("""
                INSERT INTO workers (id, host, pid, queues, kinds, concurrency, version)
                VALUES (\(worker.id), \(worker.host), \(worker.pid), \(worker.queues)::text[], \(worker.kinds)::text[],
                        \(worker.concurrency), \(worker.version))
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                RETURNING lock_key
                """, as: Int32.self)
        }
        guard let key else { throw QueueError.conflict("worker registration returned no lock key") }
        return key
    }

    /// Records a worker heartbeat. Returns `false` if the row is gone (pruned as dead): re-register.
    package func heartbeat(worker: String, running: Int, processed: Int64) async throws -> Bool {
        let count = try await scalar("""
            WITH w AS (
                UPDATE workers SET heartbeat_at = now(), running = \(running), processed = \(processed)
                 WHERE id = \(worker) RETURNING 1
            ) SELECT count(*)::int FROM w
            """, as: Int.self)
        return count == 1
    }

    /// Removes a worker that is shutting down cleanly.
    package func deregister(worker: String) async throws {
        try await execute("DELETE FROM workers WHERE id = \(worker)")
    }

    /// Removes registry rows of workers that are gone: no liveness lock and no heartbeat for `staleAfter`.
    @discardableResult
    package func pruneWorkers(staleAfter: Duration) async throws -> Int {
        try await scalar("""
            WITH gone AS (
                DELETE FROM workers
                 WHERE heartbeat_at < now() - \(staleAfter.milliseconds) * interval '1 millisecond'
                   AND id NOT IN (SELECT id FROM atelier_live_workers)
                RETURNING 1
            ) SELECT count(*)::int FROM gone
            """, as: Int.self) ?? 0
    }

    /// The registry, live workers first.
    public func workers() async throws -> [WorkerInfo] {
        let rows = try await client.query("""
            SELECT id, host, pid, queues, kinds, concurrency, version, running, processed, started_at, heartbeat_at,
                   id IN (SELECT id FROM atelier_live_workers) AS alive
              FROM workers ORDER BY alive DESC, started_at
            """, logger: logger)
        var result: [WorkerInfo] = []
        for try await (id, host, pid, queues, kinds, concurrency, version, running, processed, startedAt, heartbeatAt, alive)
            in rows.decode((String, String, Int, [String], [String], Int, String, Int, Int64, Date, Date, Bool).self) {
            result.append(WorkerInfo(
                id: id, host: host, pid: pid, queues: queues, kinds: kinds, concurrency: concurrency, version: version,
                running: running, processed: processed, startedAt: startedAt, heartbeatAt: heartbeatAt, alive: alive))
        }
        return result
    }
}
