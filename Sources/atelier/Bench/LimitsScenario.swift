import AtelierQueue
import Foundation
import PostgresNIO

extension QueueScenarios {
    /// Limits per kind (issue 31): `jobs` sleep jobs of `jobMilliseconds` each, the kind limited to
    /// `concurrencyLimit` at once and `rate`, run by W worker processes. While they run, this
    /// process samples the number of the kind's jobs in state `running` — the database's view,
    /// the one the limit keeps — every 2 ms, and reports the highest seen. The rate is read from
    /// the jobs' start times (`started_at`, stamped by the database): overall, over the late half
    /// of the run (the sustained rate), and in the busiest one-second window (the burst).
    func limits(jobs: Int, jobMilliseconds: Int, concurrencyLimit: Int, rate: RateLimit,
                workers: Int, concurrency: Int) async throws -> BenchReport {
        try await queue.limits.set(KindLimitsChange(kind: "sleep", concurrency: .set(concurrencyLimit), rate: .set(rate)),
                                      actor: "bench")
        let payload = #"{"ms": \#(jobMilliseconds)}"#
        try await queue.enqueue(Array(repeating: NewJob(kind: "sleep", payload: payload), count: jobs))
        let started = ContinuousClock.now
        let fleet = try WorkerFleet(count: workers, concurrency: concurrency, url: url)
        var highest = 0, samples = 0
        while true {
            try fleet.requireRunning()
            let (running, done) = try await runningAndDone()
            highest = max(highest, running)
            samples += 1
            if done == jobs { break }
            guard ContinuousClock.now - started < .seconds(900) else { throw BenchError("timed out waiting for the jobs") }
            try await Task.sleep(for: .milliseconds(2))
        }
        let elapsed = ContinuousClock.now - started
        await fleet.stop()
        var starts: [Double] = []
        for try await at in try await queue.client.query(
            "SELECT extract(epoch FROM started_at)::float8 FROM jobs ORDER BY started_at", logger: queue.logger).decode(Double.self) {
            starts.append(at)
        }
        var report = BenchReport(scenario: "limits")
        report["jobs"] = jobs
        report["job_ms"] = jobMilliseconds
        report["concurrency_limit"] = concurrencyLimit
        report["rate_limit"] = rate.description
        report["rate_limit_per_s"] = Percentiles.round(Double(rate.count) / rate.period.seconds)
        report["workers"] = workers
        report["concurrency"] = concurrency
        report["max_running_seen"] = highest
        report["samples"] = samples
        report["seconds"] = Percentiles.round(elapsed.seconds)
        if let first = starts.first, let last = starts.last, last > first {
            report["starts_per_s"] = Percentiles.round(Double(starts.count - 1) / (last - first))
        }
        // A token bucket lets N start at once and then N per period: over any window of T seconds
        // at most N + rate × T. The late half of the run, long after the first burst, shows the
        // sustained rate; the busiest one-second window shows the burst.
        if starts.count > 3 {
            let late = starts[(starts.count / 2)...]
            report["late_half_starts_per_s"] = Percentiles.round(Double(late.count - 1) / (late.last! - late.first!))
            var busiest = 0, lower = 0
            for upper in starts.indices {
                while starts[upper] - starts[lower] >= 1 { lower += 1 }
                busiest = max(busiest, upper - lower + 1)
            }
            report["busiest_second_starts"] = busiest
            // The bucket's promise, checked over every window [i, j]: starts − rate × length ≤ N.
            // (j − i + 1) − r(tⱼ − tᵢ) = (j − r·tⱼ) − (i − r·tᵢ) + 1: one pass, keeping the least
            // i − r·tᵢ seen so far.
            let perSecond = Double(rate.count) / rate.period.seconds
            var excess = 0.0, least = Double.infinity
            for (j, at) in starts.enumerated() {
                let here = Double(j) - perSecond * (at - starts[0])
                least = min(least, here)
                excess = max(excess, here - least + 1)
            }
            report["largest_excess_over_rate"] = Percentiles.round(excess)
        }
        return report
    }

    private func runningAndDone() async throws -> (Int, Int) {
        for try await row in try await queue.client.query("""
            SELECT (SELECT count(*)::int FROM jobs WHERE state = 'running' AND kind = 'sleep'),
                   (SELECT count(*)::int FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled'))
            """, logger: queue.logger).decode((Int, Int).self) { return row }
        return (0, 0)
    }
}
