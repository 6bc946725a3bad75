import Foundation
import PostgresNIO

/// What `atelier queue stats` shows.
public struct QueueStats: Sendable, Equatable {
    public struct Count: Sendable, Equatable {
        public var kind: String
        public var state: JobState
        public var count: Int
    }

    public struct QueueDepth: Sendable, Equatable {
        public var queue: String
        public var paused: Bool
        /// Jobs claimable now.
        public var ready: Int
        /// Jobs waiting for their `run_at` (delayed or backing off).
        public var scheduled: Int
        public var running: Int
        /// Age of the oldest claimable job, in seconds (0 when none).
        public var oldestReadyAgeSeconds: Double
    }

    public struct Minute: Sendable, Equatable {
        /// Start of the minute.
        public var minute: Date
        public var succeeded: Int
        public var failed: Int
    }

    public var counts: [Count]
    public var queues: [QueueDepth]
    /// Finished jobs per minute over the last `minutes`, oldest first, current minute last.
    public var throughput: [Minute]
}

extension JobQueue {
    public func stats(minutes: Int = 5) async throws -> QueueStats {
        let counts = try await jobCounts()
        // Queue depths from the same counts plus an index walk of the scheduled jobs only
        // (queue_depths.sql): the cost does not grow with the finished jobs the table keeps.
        var queues: [QueueStats.QueueDepth] = []
        for try await (queue, paused, ready, scheduled, running, age) in try await client.query(
            PostgresQuery(unsafeSQL: EmbeddedAssets.queueDepthsSql), logger: logger
        ).decode((String, Bool, Int, Int, Int, Double).self) {
            queues.append(.init(queue: queue, paused: paused, ready: ready, scheduled: scheduled,
                                running: running, oldestReadyAgeSeconds: age))
        }

        var throughput: [QueueStats.Minute] = []
        for try await (minute, succeeded, failed) in try await client.query("""
            SELECT m.minute,
                   count(j.id) FILTER (WHERE j.state = 'succeeded')::int,
                   count(j.id) FILTER (WHERE j.state = 'failed')::int
              FROM generate_series(date_trunc('minute', now()) - (\(max(1, minutes)) - 1) * interval '1 minute',
                                   date_trunc('minute', now()), interval '1 minute') AS m(minute)
              LEFT JOIN jobs j ON j.finished_at >= m.minute AND j.finished_at < m.minute + interval '1 minute'
             GROUP BY m.minute ORDER BY m.minute
            """, logger: logger).decode((Date, Int, Int).self) {
            throughput.append(.init(minute: minute, succeeded: succeeded, failed: failed))
        }
        return QueueStats(counts: counts, queues: queues, throughput: throughput)
    }

    /// Jobs by kind and state (pairs counting zero left out), from the counts kept with the jobs
    /// (`job_counts.sql`, docs/architecture.md §2.7b): exact, and as quick at ten million jobs as
    /// at ten.
    package func jobCounts() async throws -> [QueueStats.Count] {
        var counts: [QueueStats.Count] = []
        for try await (kind, state, count) in try await client.query(
            PostgresQuery(unsafeSQL: EmbeddedAssets.jobCountsSql), logger: logger
        ).decode((String, String, Int).self) {
            counts.append(.init(kind: kind, state: JobState(rawValue: state) ?? .failed, count: count))
        }
        return counts
    }
}
