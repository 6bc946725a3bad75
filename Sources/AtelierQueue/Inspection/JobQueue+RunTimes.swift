import Foundation
import PostgresNIO

/// How long one kind's jobs ran (claim to finish, succeeded and failed alike), in seconds.
public struct RunTimes: Sendable, Equatable {
    public var kind: String
    public var finished: Int
    public var p50: Double
    public var p99: Double
}

extension JobQueue {
    /// Run time percentiles by kind of the jobs that finished in the last `minutes`.
    public func runTimes(minutes: Int = 60) async throws -> [RunTimes] {
        let rows = try await client.query("""
            SELECT kind, count(*)::int,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8
              FROM jobs
             WHERE finished_at > now() - \(max(1, minutes)) * interval '1 minute' AND started_at IS NOT NULL
               AND state IN ('succeeded', 'failed')
             GROUP BY kind ORDER BY kind
            """, logger: logger)
        var result: [RunTimes] = []
        for try await (kind, finished, p50, p99) in rows.decode((String, Int, Double, Double).self) {
            result.append(RunTimes(kind: kind, finished: finished, p50: p50, p99: p99))
        }
        return result
    }
}
