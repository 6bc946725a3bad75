import Foundation
import PostgresNIO

/// The figures `/metrics` exports, read in one round of cheap queries.
public struct MetricsSnapshot: Sendable {
    public struct JobCount: Sendable { public var kind: String; public var state: String; public var count: Int }
    public struct QueueDepth: Sendable { public var queue: String; public var count: Int }
    public struct RunTime: Sendable { public var kind: String; public var p50: Double; public var p95: Double }

    /// Every (kind, state) pair of the kinds present, zeros included.
    public var jobCounts: [JobCount] = []
    public var queueDepths: [QueueDepth] = []
    public var runTimes: [RunTime] = []
}

extension JobQueue {
    public func metricsSnapshot() async throws -> MetricsSnapshot {
        var snapshot = MetricsSnapshot()
        let counts = try await client.query("""
            SELECT k.kind, s.state, count(j.id)::int
              FROM (SELECT DISTINCT kind FROM jobs) k
             CROSS JOIN unnest(ARRAY['queued','running','succeeded','failed','cancelled']) AS s(state)
              LEFT JOIN jobs j ON j.kind = k.kind AND j.state = s.state
             GROUP BY k.kind, s.state ORDER BY 1, 2
            """, logger: logger)
        for try await (kind, state, count) in counts.decode((String, String, Int).self) {
            snapshot.jobCounts.append(.init(kind: kind, state: state, count: count))
        }
        let depths = try await client.query("""
            SELECT queue, count(*)::int FROM jobs WHERE state = 'queued' AND run_at <= now() GROUP BY queue ORDER BY 1
            """, logger: logger)
        for try await (queue, count) in depths.decode((String, Int).self) {
            snapshot.queueDepths.append(.init(queue: queue, count: count))
        }
        let times = try await client.query("""
            SELECT kind,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float8
              FROM jobs
             WHERE finished_at > now() - interval '15 minutes' AND started_at IS NOT NULL AND state = 'succeeded'
             GROUP BY kind ORDER BY 1
            """, logger: logger)
        for try await (kind, p50, p95) in times.decode((String, Double, Double).self) {
            snapshot.runTimes.append(.init(kind: kind, p50: p50, p95: p95))
        }
        return snapshot
    }
}
