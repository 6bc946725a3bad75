import Foundation
import PostgresNIO

/// One operator action: who (`actor`), what (`action`: pause, resume, retry, cancel, purge), to
/// which queue or job (`target`: `queue:<name>`, `job:<id>`), when.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var action: String
    public var target: String
    public var detail: String?
}

extension JobQueue {
    /// Records an operator's action (the audit log is append-only).
    public func audit(actor: String, action: String, target: String, detail: String? = nil) async throws {
        try await execute("""
            INSERT INTO audit_log (actor, action, target, detail) VALUES (\(actor), \(action), \(target), \(detail))
            """)
    }

    /// The newest entries first, optionally only those about `target`.
    public func auditLog(target: String? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        let rows = try await client.query("""
            SELECT id, at, actor, action, target, detail FROM audit_log
             WHERE \(target)::text IS NULL OR target = \(target)::text
             ORDER BY at DESC, id DESC LIMIT \(limit)
            """, logger: logger)
        var entries: [AuditEntry] = []
        for try await (id, at, actor, action, target, detail) in rows.decode((Int64, Date, String, String, String, String?).self) {
            entries.append(AuditEntry(id: id, at: at, actor: actor, action: action, target: target, detail: detail))
        }
        return entries
    }
}
