import Logging
import PostgresNIO

/// What a type of the queue needs to run its statements: the pool's client and a logger. The
/// queue (`JobQueue`) conforms, and so does each type it hands out for one mechanism —
/// ``Schedules``, ``OwnerWeights``, ``Limits``, ``BulkActions``, ``QueueMaintenance`` — so each
/// mechanism's statements live in its own type and folder.
protocol QueueStatements: Sendable {
    var client: PostgresClient { get }
    var logger: Logger { get }
}

extension QueueStatements {
    /// Runs a statement and drops its rows.
    func execute(_ query: PostgresQuery) async throws {
        let rows = try await client.query(query, logger: logger)
        for try await _ in rows {}
    }

    /// Runs a statement and returns its first row's single column.
    func scalar<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type) async throws -> T? {
        let rows = try await client.query(query, logger: logger)
        var result: T?
        for try await row in rows where result == nil {
            result = try row.decode(T.self)
        }
        return result
    }
}
