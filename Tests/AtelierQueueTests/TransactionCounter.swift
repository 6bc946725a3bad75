import AtelierTestSupport
import AtelierQueue
import Foundation
import PostgresNIO

extension DatabaseTestCase {
    /// Heap rows fetched through an index on jobs, as this backend counts them.
    static let jobsRowsFetched = "SELECT coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables WHERE relname = 'jobs'"

    /// Blocks of `index` read (from shared buffers or disk), as this backend counts them.
    static func blocksRead(of index: String) -> String {
        "SELECT pg_stat_get_xact_blocks_fetched('\(index)'::regclass)"
    }

    /// How much `counter` (a query of one bigint from PostgreSQL's per-backend statistics) grew
    /// while `sql` ran, both in one transaction. Read before and after: the counter also holds
    /// this backend's earlier transactions not yet flushed to the shared statistics.
    func increase(of counter: String, during sql: String) async throws -> Int64 {
        try await queue.client.withTransaction(logger: queue.logger) { connection -> Int64 in
            var before: Int64 = -1, after: Int64 = -1
            for try await n in try await connection.query(PostgresQuery(unsafeSQL: counter), logger: queue.logger).decode(Int64.self) { before = n }
            for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: queue.logger) {}
            for try await n in try await connection.query(PostgresQuery(unsafeSQL: counter), logger: queue.logger).decode(Int64.self) { after = n }
            return after - before
        }
    }
}
