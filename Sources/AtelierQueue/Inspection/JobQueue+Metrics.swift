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
        // Every state of every kind that has a job, zeros included, from the counts kept with
        // the jobs; the depth of each queue with ready jobs from the queue depths (QueueStats).
        var counts: [String: [String: Int]] = [:]
        for count in try await jobCounts() { counts[count.kind, default: [:]][count.state.rawValue] = count.count }
        for (kind, byState) in counts.sorted(by: { $0.key < $1.key }) {
            for state in JobState.allCases.map(\.rawValue).sorted() {
                snapshot.jobCounts.append(.init(kind: kind, state: state, count: byState[state] ?? 0))
            }
        }
        for try await (queue, _, ready, _, _, _) in try await client.query(
            PostgresQuery(unsafeSQL: EmbeddedAssets.queueDepthsSql), logger: logger
        ).decode((String, Bool, Int, Int, Int, Double).self) where ready > 0 {
            snapshot.queueDepths.append(.init(queue: queue, count: ready))
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
