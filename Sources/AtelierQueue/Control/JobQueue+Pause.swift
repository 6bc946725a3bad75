import Foundation
import PostgresNIO

/// A queue as operators see it.
public struct QueueInfo: Sendable, Equatable {
    public var name: String
    public var paused: Bool

    public init(name: String, paused: Bool) {
        self.name = name
        self.paused = paused
    }
}

extension JobQueue {
    /// Stops workers from claiming jobs of `queue`. Running jobs finish; enqueueing still works.
    /// `actor` (who asked) goes into the audit log in the same statement.
    public func pause(queue name: String, actor: String) async throws {
        try await execute("""
            WITH q AS (
                INSERT INTO queues (name, paused) VALUES (\(name), true)
                ON CONFLICT (name) DO UPDATE SET paused = true, updated_at = now()
                RETURNING name
            ) INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'pause', 'queue:' || name FROM q
            """)
    }

    /// Lets workers claim jobs of `queue` again, and wakes them; audited like ``pause(queue:actor:)``.
    public func resume(queue name: String, actor: String) async throws {
        try await execute("""
            WITH q AS (
                INSERT INTO queues (name, paused) VALUES (\(name), false)
                ON CONFLICT (name) DO UPDATE SET paused = false, updated_at = now()
                RETURNING name
            ), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'resume', 'queue:' || name FROM q
            ) SELECT pg_notify('atelier_jobs', name) FROM q
            """)
    }

    /// Every queue that has jobs or a pause setting.
    public func queues() async throws -> [QueueInfo] {
        let rows = try await client.query("""
            SELECT n.name, coalesce(q.paused, false)
              FROM (SELECT DISTINCT queue AS name FROM jobs UNION SELECT name FROM queues) n
              LEFT JOIN queues q ON q.name = n.name
             ORDER BY n.name
            """, logger: logger)
        var result: [QueueInfo] = []
        for try await (name, paused) in rows.decode((String, Bool).self) {
            result.append(QueueInfo(name: name, paused: paused))
        }
        return result
    }
}
