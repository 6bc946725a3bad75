import AtelierDatabase
import AtelierHandlers
import AtelierQueue
import AtelierWorker
import Foundation
import PostgresNIO

/// The queue benchmark scenarios (issue 2). Each starts from an empty, migrated database and uses
/// the same shapes as the peer scripts in `ops/bench/peers/`; `ops/bench/queue` runs them all.
struct QueueScenarios {
    let queue: JobQueue
    let url: DatabaseURL

    /// Jobs not yet finished; the drain and sustained scenarios watch this from outside, as the
    /// peer scripts watch their own tables.
    private func unfinished() async throws -> Int {
        try await queue.countJobs(in: [.queued, .running])
    }

    private func enqueueNoops(_ count: Int, chunk: Int = 5_000) async throws {
        var left = count
        while left > 0 {
            let n = min(chunk, left)
            try await queue.enqueue(Array(repeating: NewJob(kind: "noop"), count: n))
            left -= n
        }
    }

    /// N no-op jobs inserted first, then W worker processes start; seconds from the first job
    /// leaving the queue to the last one finishing (polled every 50 ms).
    func drain(jobs: Int, workers: Int, concurrency: Int) async throws -> BenchReport {
        try await enqueueNoops(jobs)
        let fleet = try WorkerFleet(count: workers, concurrency: concurrency, url: url)
        var started: ContinuousClock.Instant?
        try await poll(timeout: .seconds(900), interval: .milliseconds(50), what: "the queue to drain") {
            try fleet.requireRunning()
            let left = try await unfinished()
            if started == nil && left < jobs { started = .now }
            return left == 0
        }
        let seconds = (ContinuousClock.now - started!).seconds
        await fleet.stop()
        var report = BenchReport(scenario: "drain")
        report["jobs"] = jobs
        report["workers"] = workers
        report["concurrency"] = concurrency
        report["seconds"] = Percentiles.round(seconds)
        report["jobs_per_second"] = Percentiles.round(Double(jobs) / seconds)
        return report
    }

    /// W workers run while P producers enqueue batches of `batch` no-op jobs for `seconds`;
    /// throughput is the jobs finished within the window.
    func sustained(seconds: Int, workers: Int, concurrency: Int, batch: Int, producers: Int) async throws -> BenchReport {
        let fleet = try WorkerFleet(count: workers, concurrency: concurrency, url: url)
        try await fleet.waitUntilRegistered(queue)
        let end = ContinuousClock.now + .seconds(seconds)
        let enqueued = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<producers {
                group.addTask {
                    var count = 0
                    let jobs = Array(repeating: NewJob(kind: "noop"), count: batch)
                    while ContinuousClock.now < end {
                        try await queue.enqueue(jobs)
                        count += batch
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        let completed = try await queue.countJobs(in: [.succeeded])
        await fleet.stop()
        var report = BenchReport(scenario: "sustained")
        report["seconds"] = seconds
        report["workers"] = workers
        report["concurrency"] = concurrency
        report["enqueued"] = enqueued
        report["completed"] = completed
        report["jobs_per_second"] = Percentiles.round(Double(completed) / Double(seconds))
        return report
    }

    /// Single jobs `interval` apart to one idle worker; latency from just before the enqueue call
    /// to the handler's first line (the diagnostic log's wall-clock stamp).
    func pickup(jobs: Int, interval: Duration, workers: Int, concurrency: Int) async throws -> BenchReport {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-bench-pickup-\(getpid()).log")
        try? FileManager.default.removeItem(at: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let fleet = try WorkerFleet(count: workers, concurrency: concurrency, url: url,
                                    environment: ["ATELIER_DIAGNOSTIC_LOG": log.path])
        try await fleet.waitUntilRegistered(queue)
        try await Task.sleep(for: .seconds(1))  // let the workers settle into their idle wait

        var enqueuedAt: [String: Int64] = [:]
        let start = ContinuousClock.now
        for index in 0..<jobs {
            try await Task.sleep(until: start + interval * index)
            let stamp = wallClockNanoseconds()
            let job = try await queue.enqueue(NewJob(kind: "noop"))
            enqueuedAt[job.id.uuidString.lowercased()] = stamp
        }
        var starts: [ExecutionLog.Entry] = []
        try await poll(timeout: .seconds(60), what: "every pickup job to start") {
            try fleet.requireRunning()
            starts = ExecutionLog(path: log.path).entries()
            return starts.count >= jobs
        }
        await fleet.stop()
        let latencies = starts.compactMap { start in enqueuedAt[start.job].map { Double(start.startedNanoseconds - $0) / 1e6 } }
        let percentiles = Percentiles(latencies)
        var report = BenchReport(scenario: "pickup")
        report["jobs"] = latencies.count
        report["p50_ms"] = percentiles(50)
        report["p95_ms"] = percentiles(95)
        report["p99_ms"] = percentiles(99)
        report["max_ms"] = percentiles.max
        return report
    }

    /// Two workers; the one running a 5 s job is SIGKILLed; seconds until the job starts again
    /// on the other, with default settings.
    func crash(workers: Int) async throws -> BenchReport {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-bench-crash-\(getpid()).log")
        try? FileManager.default.removeItem(at: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let fleet = try WorkerFleet(count: workers, concurrency: 8, url: url, environment: ["ATELIER_DIAGNOSTIC_LOG": log.path])
        try await fleet.waitUntilRegistered(queue)
        try await queue.enqueue(NewJob(kind: "sleep", payload: #"{"ms": 5000}"#))
        var runs: [ExecutionLog.Entry] = []
        try await poll(timeout: .seconds(30), what: "the job to start") {
            runs = ExecutionLog(path: log.path).entries()
            return !runs.isEmpty
        }
        kill(pid_t(runs[0].pid), SIGKILL)
        let killedAt = wallClockNanoseconds()
        try await poll(timeout: .seconds(180), what: "the job to run again") {
            runs = ExecutionLog(path: log.path).entries()
            return runs.count >= 2
        }
        await fleet.stop()
        var report = BenchReport(scenario: "crash")
        report["seconds_to_rerun"] = Percentiles.round(Double(runs[1].startedNanoseconds - killedAt) / 1e9)
        report["note"] = "default settings: rescuer every 1s; a killed worker's liveness lock goes with its connection"
        return report
    }

    /// The insert path alone, no workers: for each shape — `batch` jobs per enqueue call (a batch
    /// of 1 goes through the single-job call, the API's path) from `producers` concurrent
    /// producers, each on a connection of its own — about `jobs` no-op jobs are inserted as fast
    /// as the producers can, and the report is jobs inserted per second. Every shape starts from
    /// an empty jobs table, after an untimed round (every producer's connection has prepared the
    /// insert). Same shapes as `enqueue` in ops/bench/peers/harness.py.
    func enqueue(jobs: Int, batches: [Int], producers: [Int]) async throws -> [BenchReport] {
        var reports: [BenchReport] = []
        for batch in batches {
            for producerCount in producers {
                let calls = max(1, jobs / (producerCount * batch))
                try await emptyJobs()
                _ = try await produce(producers: producerCount, calls: 2, batch: batch)
                try await emptyJobs()
                let began = ContinuousClock.now
                let inserted = try await produce(producers: producerCount, calls: calls, batch: batch)
                let seconds = (ContinuousClock.now - began).seconds
                let counted = try await queue.countJobs(in: [.queued])
                guard counted == inserted else { throw BenchError("inserted \(inserted) jobs but \(counted) are queued") }
                var report = BenchReport(scenario: "enqueue")
                report["batch"] = batch
                report["producers"] = producerCount
                report["jobs"] = inserted
                report["seconds"] = Percentiles.round(seconds)
                report["jobs_per_second"] = Percentiles.round(Double(inserted) / seconds)
                reports.append(report)
            }
        }
        return reports
    }

    /// `producers` concurrent tasks, each making `calls` enqueue calls of `batch` no-op jobs;
    /// returns the jobs inserted.
    private func produce(producers: Int, calls: Int, batch: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<producers {
                group.addTask {
                    let jobs = Array(repeating: NewJob(kind: "noop"), count: batch)
                    for _ in 0..<calls {
                        if batch == 1 {
                            try await queue.enqueue(jobs[0])
                        } else {
                            try await queue.enqueue(jobs)
                        }
                    }
                    return calls * batch
                }
            }
            return try await group.reduce(0, +)
        }
    }

    private func emptyJobs() async throws {
        try await queue.client.query("TRUNCATE jobs CASCADE", logger: queue.logger)
    }

    /// Claim latency (one job per claim, as an idle worker does) with the queue holding
    /// `depth` jobs, for growing depths: a flat line means the claim does not scan the backlog.
    func claimLatency(depths: [Int], samples: Int) async throws -> [BenchReport] {
        var reports: [BenchReport] = []
        var queued = 0
        for depth in depths.sorted() {
            try await enqueueNoops(depth + samples - queued, chunk: 10_000)
            queued = depth + samples
            var timings: [Double] = []
            for _ in 0..<samples {
                let began = ContinuousClock.now
                let claimed = try await queue.claim(worker: "bench", queues: ["default"], kinds: ["noop"], limit: 1, lease: .seconds(30))
                timings.append((ContinuousClock.now - began).seconds * 1000)
                guard let job = claimed.first else { throw BenchError("the queue ran dry at depth \(depth)") }
                _ = try await queue.complete([Completion(job: job, outcome: .succeeded(result: nil))], worker: "bench")
            }
            queued -= samples
            let percentiles = Percentiles(timings)
            var report = BenchReport(scenario: "claim-latency")
            report["queued"] = depth
            report["samples"] = samples
            report["p50_ms"] = percentiles(50)
            report["p99_ms"] = percentiles(99)
            reports.append(report)
        }
        return reports
    }
}
