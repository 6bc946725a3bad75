import Foundation
import Logging
import PostgresNIO

/// Owners' weights in fair share (table `owner_weights`): an owner of weight 2 is served twice
/// as often as one of weight 1 when both wait. Reached as `queue.ownerWeights`; the fair-share
/// decision itself is SQL (`SQL/atelier_fair_tag.sql`, `SQL/atelier_fair_tags.sql`, and the
/// promotion in `SQL/atelier_claim.sql`), docs/queue.md.
public struct OwnerWeights: QueueStatements {
    package let client: PostgresClient
    public let logger: Logger

    init(_ queue: JobQueue) {
        (client, logger) = (queue.client, queue.logger)
    }
}

extension JobQueue {
    /// Owners' weights in fair share: ``OwnerWeights``.
    public var ownerWeights: OwnerWeights { OwnerWeights(self) }
}

/// Owners' weights in fair share, as operators manage them (`atelier weights`). Each change
/// writes one audit row (`target`: `owner:<name>`).
///
/// Fair share itself is decided in SQL, in `Sources/AtelierQueue/SQL/`: a job's turn is
/// `atelier_fair_tag.sql` (a batch's, `atelier_fair_tags.sql`), given by the enqueue, by a retry
/// (`atelier_retry_jobs.sql`) and by the claim's promotion of jobs whose time has come; the claim
/// (`atelier_claim.sql`) serves the lowest turns first and moves the clock. docs/architecture.md,
/// "Fair share", explains the rule.
extension OwnerWeights {
    package func list() async throws -> [OwnerWeight] {
        let rows = try await client.query(
            "SELECT owner, weight, updated_at, updated_by FROM owner_weights ORDER BY owner", logger: logger)
        var weights: [OwnerWeight] = []
        for try await (owner, weight, updatedAt, updatedBy) in rows.decode((String, Double, Date, String).self) {
            weights.append(OwnerWeight(owner: owner, weight: weight, updatedAt: updatedAt, updatedBy: updatedBy))
        }
        return weights
    }

    /// Gives `owner` the weight `weight` (0.01…100) for the jobs tagged from now on.
    package func set(owner: String, weight: Double, actor: String) async throws {
        guard !owner.isEmpty, owner.utf8.count <= 200 else { throw QueueError.invalidArgument("an owner is 1–200 characters") }
        guard weight.isFinite, OwnerWeight.range.contains(weight) else {
            throw QueueError.invalidArgument("a weight must be within 0.01…100, got \(weight)")
        }
        try await execute("""
            WITH saved AS (
                INSERT INTO owner_weights (owner, weight, updated_by) VALUES (\(owner), \(weight), \(actor))
                ON CONFLICT (owner) DO UPDATE SET weight = EXCLUDED.weight, updated_at = now(), updated_by = EXCLUDED.updated_by
                RETURNING owner, weight
            )
            INSERT INTO audit_log (actor, action, target, detail)
            SELECT \(actor), 'set weight', 'owner:' || owner, 'weight ' || weight FROM saved
            """)
    }

    /// Gives `owner` the default weight (1) again; false if it had none.
    @discardableResult
    package func clear(owner: String, actor: String) async throws -> Bool {
        let removed = try await scalar("""
            WITH removed AS (DELETE FROM owner_weights WHERE owner = \(owner) RETURNING owner), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'clear weight', 'owner:' || owner FROM removed
            ) SELECT count(*)::int FROM removed
            """, as: Int.self) ?? 0
        return removed > 0
    }
}
