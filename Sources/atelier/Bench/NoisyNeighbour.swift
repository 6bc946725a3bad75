import AtelierQueue
import Foundation
import PostgresNIO

extension QueueScenarios {
    /// The noisy neighbour (issue 31): owner `tenant-a` enqueues `backlog` sleep jobs of
    /// `jobMilliseconds` each, W worker processes start on it, and once a tenth of it is done (the
    /// fleet at full speed) owner `tenant-b` enqueues `newcomers` jobs of the same length one at a
    /// time, `interval` apart — a small owner using its share. The result is B's wait per job, from
    /// its insert to its claim, both stamped by the database (`created_at`, `started_at`), so no
    /// clock of ours is in it. Fair share is whatever `ATELIER_FAIR_SHARE` says, for this process
    /// and the workers it starts; ops/bench/queue runs it both ways.
    func noisyNeighbour(backlog: Int, newcomers: Int, jobMilliseconds: Int, interval: Duration,
                        workers: Int, concurrency: Int) async throws -> BenchReport {
        let payload = #"{"ms": \#(jobMilliseconds)}"#
        var left = backlog
        while left > 0 {
            let n = min(5_000, left)
            try await queue.enqueue(Array(repeating: NewJob(kind: "sleep", payload: payload, owner: "tenant-a"), count: n))
            left -= n
        }
        let fleet = try WorkerFleet(count: workers, concurrency: concurrency, url: url)
        try await poll(timeout: .seconds(600), interval: .milliseconds(50), what: "a tenth of the backlog to finish") {
            try fleet.requireRunning()
            return try await queue.countJobs(in: [.succeeded]) >= backlog / 10
        }
        let start = ContinuousClock.now
        for index in 0..<newcomers {
            try await Task.sleep(until: start + interval * index)
            try await queue.enqueue(NewJob(kind: "sleep", payload: payload, owner: "tenant-b"))
        }
        try await poll(timeout: .seconds(900), interval: .milliseconds(20), what: "every newcomer job to start") {
            try fleet.requireRunning()
            return try await count("SELECT count(*)::int FROM jobs WHERE owner = 'tenant-b' AND started_at IS NOT NULL") == newcomers
        }
        let backlogLeft = try await count("SELECT count(*)::int FROM jobs WHERE owner = 'tenant-a' AND state = 'queued'")
        var waits: [Double] = []
        let rows = try await queue.client.query(
            "SELECT (extract(epoch FROM started_at - created_at) * 1000)::float8 FROM jobs WHERE owner = 'tenant-b'",
            logger: queue.logger)
        for try await wait in rows.decode(Double.self) { waits.append(wait) }
        await fleet.stop()
        let percentiles = Percentiles(waits)
        var report = BenchReport(scenario: "noisy-neighbour")
        report["fair_share"] = queue.fairShare
        report["backlog"] = backlog
        report["newcomers"] = newcomers
        report["job_ms"] = jobMilliseconds
        report["interval_ms"] = Int(interval.seconds * 1000)
        report["workers"] = workers
        report["concurrency"] = concurrency
        report["b_p50_ms"] = percentiles(50)
        report["b_p99_ms"] = percentiles(99)
        report["b_max_ms"] = percentiles.max
        report["b_p99_in_jobs"] = Percentiles.round(percentiles(99) / Double(jobMilliseconds))
        report["a_still_queued"] = backlogLeft
        return report
    }

    private func count(_ sql: PostgresQuery) async throws -> Int {
        for try await value in try await queue.client.query(sql, logger: queue.logger).decode(Int.self) { return value }
        return 0
    }
}
