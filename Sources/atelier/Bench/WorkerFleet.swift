import AtelierDatabase
import AtelierQueue
import Foundation

/// Worker processes started by a benchmark: each is `atelier work --processes 1`, exactly as an
/// operator runs it, so the measurement includes the real claim loop, notifier and completer.
final class WorkerFleet {
    private(set) var processes: [Process] = []

    /// Starts `count` workers on `url` running the diagnostic kinds with `concurrency` slots each.
    init(count: Int, concurrency: Int, url: DatabaseURL, environment extra: [String: String] = [:]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["ATELIER_LOG_LEVEL"] = environment["ATELIER_LOG_LEVEL"] ?? "warning"
        environment["ATELIER_DIAGNOSTIC_KINDS"] = "true"   // noop and sleep are diagnostic kinds
        environment.merge(extra) { _, new in new }
        for _ in 0..<count {
            let process = Process()
            process.executableURL = WorkCommand.executableURL
            process.arguments = ["work", "--processes", "1", "--concurrency", String(concurrency),
                                 "--kinds", "noop,sleep", "--database-url", url.text]
            process.environment = environment
            try process.run()
            processes.append(process)
        }
    }

    deinit { for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits until every process has registered and holds its liveness lock.
    func waitUntilRegistered(_ queue: JobQueue, timeout: Duration = .seconds(30)) async throws {
        let pids = Set(processes.map { Int($0.processIdentifier) })
        try await poll(timeout: timeout, what: "\(processes.count) worker processes to register") {
            try self.requireRunning()
            let live = try await queue.workers().filter { $0.alive && pids.contains($0.pid) }
            return live.count == pids.count
        }
    }

    /// Throws if a worker has exited: a benchmark waiting on its jobs would otherwise wait forever.
    func requireRunning() throws {
        if let gone = processes.first(where: { !$0.isRunning }) {
            throw BenchError("a worker process exited with status \(gone.terminationStatus) (see its output above)")
        }
    }

    /// SIGTERM to all (drain), then waits for them to exit.
    func stop(timeout: Duration = .seconds(30)) async {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        try? await poll(timeout: timeout, what: "workers to exit") { !self.processes.contains { $0.isRunning } }
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Re-checks `condition` every `interval` until it holds; throws after `timeout`.
func poll(timeout: Duration, interval: Duration = .milliseconds(20), what: String,
          _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw BenchError("timed out after \(timeout) waiting for \(what)") }
        try await Task.sleep(for: interval)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
