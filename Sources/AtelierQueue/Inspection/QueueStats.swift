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
        var counts: [QueueStats.Count] = []
        for try await (kind, state, count) in try await client.query("""
            SELECT kind, state, count(*)::int FROM jobs GROUP BY kind, state ORDER BY kind, state
            """, logger: logger).decode((String, String, Int).self) {
            counts.append(.init(kind: kind, state: JobState(rawValue: state) ?? .failed, count: count))
        }

        var queues: [QueueStats.QueueDepth] = []
        // Queued and running rows are read through their partial indexes (jobs_claim_idx,
        // jobs_running_idx), one state at a time: `state IN (…)` made PostgreSQL scan the whole
        // table, slower the more jobs it holds (BENCHMARKS.md, "Operator console").
        for try await (queue, paused, ready, scheduled, running, age) in try await client.query("""
            WITH active AS (
                SELECT queue, state, run_at FROM jobs WHERE state = 'queued'
                UNION ALL
                SELECT queue, state, run_at FROM jobs WHERE state = 'running'
            )
            SELECT n.name, coalesce(q.paused, false),
                   count(a.queue) FILTER (WHERE a.state = 'queued' AND a.run_at <= now())::int,
                   count(a.queue) FILTER (WHERE a.state = 'queued' AND a.run_at > now())::int,
                   count(a.queue) FILTER (WHERE a.state = 'running')::int,
                   coalesce(extract(epoch FROM now() - min(a.run_at) FILTER (
                       WHERE a.state = 'queued' AND a.run_at <= now())), 0)::float8
              FROM (SELECT DISTINCT queue AS name FROM active UNION SELECT name FROM queues) n
              LEFT JOIN queues q ON q.name = n.name
              LEFT JOIN active a ON a.queue = n.name
             GROUP BY n.name, q.paused ORDER BY n.name
            """, logger: logger).decode((String, Bool, Int, Int, Int, Double).self) {
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
}
