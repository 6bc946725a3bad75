import Foundation
import Logging
import PostgresNIO

/// Bulk cancel, retry and purge by filter (table `bulk_actions`): previewed, begun, stepped in
/// batches by a ``BulkActionRunner`` (`SQL/atelier_bulk_step.sql`), stopped and resumed.
/// Reached as `queue.bulkActions`.
public struct BulkActions: QueueStatements {
    package let client: PostgresClient
    public let logger: Logger
    /// Whether a retried job is tagged for fair share (the queue's setting).
    let fairShare: Bool

    init(_ queue: JobQueue) {
        (client, logger, fairShare) = (queue.client, queue.logger, queue.fairShare)
    }
}

extension JobQueue {
    /// Bulk actions by filter: ``BulkActions``.
    public var bulkActions: BulkActions { BulkActions(self) }
}

/// What one batch of a bulk action did.
package struct BulkStep: Sendable {
    /// The action's state after the batch (`done` after the last one).
    package var state: BulkAction.State
    package var acted: Int
    package var stopping: Int
    /// The jobs a purge deleted, whose files the caller removes.
    package var purged: [UUID]
}

extension BulkActions {
    /// How many jobs `action` would act on now, with up to `sampleSize` of them (newest first):
    /// a dry run. Changes nothing.
    public func preview(_ action: BulkActionKind, _ criteria: JobCriteria, sampleSize: Int = 10) async throws -> BulkPreview {
        var binds = PostgresBindings()
        binds.append(action.rawValue)
        let matches = criteria.condition(alias: "j", binds: &binds)
        let filter = "FROM jobs j WHERE atelier_bulk_acts_on($1::text, j.state, j.cancel_requested, j.finished_at, now()) AND " + matches
        let count = try await scalar(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint " + filter, binds: binds), as: Int64.self) ?? 0
        let rows = try await client.query(PostgresQuery(
            unsafeSQL: "SELECT \(Job.columns) \(filter) ORDER BY j.id DESC LIMIT \(max(0, min(sampleSize, 100)))", binds: binds), logger: logger)
        var sample: [Job] = []
        for try await row in rows { sample.append(try Job(row: row)) }
        return BulkPreview(count: count, sample: sample)
    }

    /// Records a new bulk action (and its line in the audit log) and returns it; nothing is acted
    /// on until its batches run (``BulkActionRunner``). `matched` is counted in the same snapshot.
    public func begin(_ action: BulkActionKind, _ criteria: JobCriteria, actor: String,
                          batchSize: Int = 1_000) async throws -> BulkAction {
        guard (1...10_000).contains(batchSize) else { throw QueueError.invalidArgument("the batch size must be between 1 and 10000") }
        // The filter's values ($1–$9) serve both the count and the row's columns.
        var binds = PostgresBindings()
        let matches = criteria.condition(alias: "j", binds: &binds)
        for value in [action.rawValue, criteria.text, actor] { binds.append(value) }
        binds.append(batchSize)
        let rows = try await client.query(PostgresQuery(unsafeSQL: """
            WITH inserted AS (
                INSERT INTO bulk_actions (action, filter, kinds, states, queues, owner, created_after, created_before,
                                          finished_after, finished_before, error_contains, actor, batch_size, matched)
                SELECT $10, $11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $12, $13,
                       (SELECT count(*) FROM jobs j
                         WHERE atelier_bulk_acts_on($10::text, j.state, j.cancel_requested, j.finished_at, now()) AND \(matches))
                RETURNING *
            ), audit AS (
                INSERT INTO audit_log (actor, action, target, detail)
                SELECT actor, 'bulk ' || action, 'bulk:' || id, filter || ' (' || matched || ' matching)' FROM inserted
            )
            SELECT \(BulkAction.columns) FROM inserted
            """, binds: binds), logger: logger)
        for try await row in rows { return try BulkAction(row: row) }
        throw QueueError.conflict("the bulk action was not recorded")
    }

    /// Runs the next batch of bulk action `id` (`atelier_bulk_step`): one
    /// transaction, committed before it returns. A stopped or finished action takes no batch.
    package func step(_ id: Int64) async throws -> BulkStep {
        // Its own transaction: the step's COMMIT is confirmed before the counts are reported
        // (docs/reliability.md, "A commit the caller can trust").
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query("SELECT state, acted, stopping, purged FROM atelier_bulk_step(\(id), \(fairShare))", logger: logger)
            for try await (state, acted, stopping, purged) in rows.decode((String, Int32, Int32, [UUID]).self) {
                return BulkStep(state: BulkAction.State(rawValue: state) ?? .running, acted: Int(acted),
                                stopping: Int(stopping), purged: purged)
            }
            throw QueueError.jobNotFound("no bulk action \(id)")
        }
    }

    /// One bulk action.
    public func find(id: Int64) async throws -> BulkAction {
        let rows = try await client.query("SELECT \(unescaped: BulkAction.columns) FROM bulk_actions WHERE id = \(id)", logger: logger)
        for try await row in rows { return try BulkAction(row: row) }
        throw QueueError.jobNotFound("no bulk action \(id)")
    }

    /// The newest bulk actions first.
    public func list(limit: Int = 50) async throws -> [BulkAction] {
        let rows = try await client.query("""
            SELECT \(unescaped: BulkAction.columns) FROM bulk_actions ORDER BY id DESC LIMIT \(max(1, min(limit, 1_000)))
            """, logger: logger)
        var actions: [BulkAction] = []
        for try await row in rows { actions.append(try BulkAction(row: row)) }
        return actions
    }

    /// Stops a running action before its next batch (what was done stays done); a stopped one is
    /// left as it is. Refuses a finished one. Returns the action.
    @discardableResult
    public func stop(id: Int64, actor: String) async throws -> BulkAction {
        try await setBulkState(id: id, to: .stopped, from: [.running, .stopped], actor: actor)
    }

    /// Lets a stopped action take batches again (a runner must then run it). Returns the action.
    @discardableResult
    public func resume(id: Int64, actor: String) async throws -> BulkAction {
        try await setBulkState(id: id, to: .running, from: [.running, .stopped], actor: actor)
    }

    private func setBulkState(id: Int64, to state: BulkAction.State, from: [BulkAction.State], actor: String) async throws -> BulkAction {
        let allowed = from.map(\.rawValue)
        let verb = state == .stopped ? "stop" : "resume"
        let rows = try await client.query("""
            WITH target AS (SELECT id, state FROM bulk_actions WHERE id = \(id) FOR UPDATE),
                 changed AS (UPDATE bulk_actions b SET state = \(state.rawValue), updated_at = now()
                               FROM target t WHERE b.id = t.id AND t.state = ANY (\(allowed)::text[]) AND t.state <> \(state.rawValue)
                             RETURNING b.id),
                 audit AS (INSERT INTO audit_log (actor, action, target) SELECT \(actor), \("bulk " + verb), 'bulk:' || id FROM changed)
            SELECT t.state FROM target t
            """, logger: logger)
        for try await before in rows.decode(String.self) {
            guard allowed.contains(before) else {
                throw QueueError.conflict("bulk action \(id) is \(before); there is nothing to \(verb)")
            }
            return try await find(id: id)
        }
        throw QueueError.jobNotFound("no bulk action \(id)")
    }

    /// Running actions no batch has moved for `idleFor`: their runner died (a killed CLI, a
    /// restarted API); the maintenance leader continues them.
    package func abandoned(idleFor: Duration) async throws -> [Int64] {
        let rows = try await client.query("""
            SELECT id FROM bulk_actions
             WHERE state = 'running' AND updated_at < now() - \(idleFor.milliseconds) * interval '1 millisecond'
             ORDER BY id
            """, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }
}
