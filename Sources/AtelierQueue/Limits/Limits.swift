import Foundation
import Logging
import PostgresNIO

/// Per-kind limits (table `kind_limits`): concurrency overall and per owner, a rate, a timeout,
/// read by every claim. Reached as `queue.limits`.
public struct Limits: QueueStatements {
    package let client: PostgresClient
    public let logger: Logger

    init(_ queue: JobQueue) {
        (client, logger) = (queue.client, queue.logger)
    }
}

extension JobQueue {
    /// Per-kind limits: ``Limits``.
    public var limits: Limits { Limits(self) }
}

/// Limits per kind as operators manage them; the claim (`atelier_claim`) is what
/// keeps them. Each change writes one audit row (`target`: `kind:<name>`).
extension Limits {
    /// Every kind's limits, by kind.
    public func list() async throws -> [KindLimits] {
        let rows = try await client.query("""
            SELECT kind, concurrency, owner_concurrency, rate, rate_period_ms, timeout_ms, updated_at, updated_by
              FROM kind_limits ORDER BY kind
            """, logger: logger)
        return try await Self.decodeKindLimits(rows)
    }

    /// Applies `change` to its kind's limits and returns what they are now (nil: none left).
    @discardableResult
    public func set(_ change: KindLimitsChange, actor: String) async throws -> KindLimits? {
        try change.validate()
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(change.kind)
        func append<T>(_ field: KindLimitsChange.Field<T>, _ encode: (T) -> Int64) {
            switch field {
            case .keep: bindings.append(true); bindings.append(Int64?.none)
            case .remove: bindings.append(false); bindings.append(Int64?.none)
            case .set(let value): bindings.append(false); bindings.append(encode(value))
            }
        }
        append(change.concurrency) { Int64($0) }
        append(change.ownerConcurrency) { Int64($0) }
        append(change.rate) { Int64($0.count) }
        switch change.rate {
        case .set(let rate): bindings.append(rate.periodMilliseconds)
        case .keep, .remove: bindings.append(Int64?.none)
        }
        append(change.timeout) { $0.milliseconds }
        bindings.append(actor)
        let rows = try await client.query(PostgresQuery(unsafeSQL: EmbeddedAssets.setKindLimitsSql, binds: bindings),
                                          logger: logger)
        return try await Self.decodeKindLimits(rows).first
    }

    /// Removes every limit of `kind`; false if it had none.
    @discardableResult
    public func clear(kind: String, actor: String) async throws -> Bool {
        let removed = try await scalar("""
            WITH removed AS (DELETE FROM kind_limits WHERE kind = \(kind) RETURNING kind), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'clear limits', 'kind:' || kind FROM removed
            ) SELECT count(*)::int FROM removed
            """, as: Int.self) ?? 0
        return removed > 0
    }

    private static func decodeKindLimits(_ rows: PostgresRowSequence) async throws -> [KindLimits] {
        var limits: [KindLimits] = []
        for try await (kind, concurrency, ownerConcurrency, rate, periodMilliseconds, timeoutMilliseconds, updatedAt, updatedBy)
            in rows.decode((String, Int?, Int?, Int?, Int64?, Int?, Date, String).self) {
            var rateLimit: RateLimit?
            if let rate, let periodMilliseconds {
                rateLimit = try RateLimit(count: rate, period: .milliseconds(periodMilliseconds))
            }
            limits.append(KindLimits(kind: kind, concurrency: concurrency, ownerConcurrency: ownerConcurrency, rate: rateLimit,
                                     timeout: timeoutMilliseconds.map { .milliseconds($0) }, updatedAt: updatedAt,
                                     updatedBy: updatedBy))
        }
        return limits
    }
}
