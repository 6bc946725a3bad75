import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierWorker
import Foundation

/// Handlers every worker has, for smoke tests, the test suite and `atelier bench`:
/// `noop` does nothing, `sleep` waits (cancellably), `fail` fails as told, `crash` kills its
/// process (a poison pill).
///
/// If `ATELIER_DIAGNOSTIC_LOG` names a file, each run appends one line
/// `job_id attempt pid started_unix_ns` to it (a single O_APPEND write, atomic across processes),
/// written as the handler starts: the test suite proves with it that every job ran exactly once,
/// and `atelier bench queue pickup` measures enqueue → handler-start latency.
package enum DiagnosticHandlers {
    package static func all(environment: [String: String] = ProcessInfo.processInfo.environment,
                           blobs: (any BlobStore)? = nil) -> [any JobHandler] {
        let log = environment["ATELIER_DIAGNOSTIC_LOG"].flatMap { $0.isEmpty ? nil : ExecutionLog(path: $0) }
        var handlers: [any JobHandler] = [NoopHandler(log: log), SleepHandler(log: log), FailHandler(log: log),
                                          CrashHandler(log: log)]
        if let blobs { handlers.append(EchoHandler(blobs: blobs, log: log)) }
        return handlers
    }
}

/// Appends one line per execution to a file shared by processes, and reads them back.
package struct ExecutionLog: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// One handler start, as recorded.
    package struct Entry: Sendable {
        package var job: String
        package var attempt: Int
        package var pid: Int
        /// Wall clock (CLOCK_REALTIME) at handler start, in nanoseconds since 1970.
        package var startedNanoseconds: Int64
    }

    /// Every complete line written so far, in the order written.
    package func entries() -> [Entry] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let attempt = Int(parts[1]), let pid = Int(parts[2]), let started = Int64(parts[3]) else { return nil }
            return Entry(job: String(parts[0]), attempt: attempt, pid: pid, startedNanoseconds: started)
        }
    }

    func record(_ job: ClaimedJob) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let line = "\(job.id.uuidString.lowercased()) \(job.attempt) \(getpid()) \(nanoseconds)\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }
}

/// `noop`: succeeds at once with `{}`. Payload ignored.
struct NoopHandler: JobHandler {
    let kind = NoopJob.kind
    let log: ExecutionLog?

    func run(_ context: JobContext) async throws -> JobResult {
        log?.record(context.job)
        return .none
    }
}

/// `sleep`: `{"ms": 250}` waits that long, checking for cancellation; result `{"slept_ms": N}`.
struct SleepHandler: JobHandler {
    let kind = SleepJob.kind
    let log: ExecutionLog?

    func run(_ context: JobContext) async throws -> JobResult {
        log?.record(context.job)
        let ms = try context.payload(as: SleepJob.Payload.self).duration()
        let steps = max(1, ms / 100)
        for step in 1...steps {
            try await Task.sleep(for: .milliseconds(ms / steps))
            try context.checkCancellation()
            if steps >= 10 && step % (steps / 10) == 0 {
                try await context.progress(step * 100 / steps, step: "sleeping")
            }
        }
        return try .encode(SleepJob.Result(sleptMs: ms))
    }
}

/// `fail`: `{"message": "…", "permanent": false, "succeed_on_attempt": 3}` fails with that message
/// (permanently or not) until `succeed_on_attempt`, if given.
struct FailHandler: JobHandler {
    let kind = FailJob.kind
    let log: ExecutionLog?
    var retryPolicy: RetryPolicy {
        RetryPolicy(base: .milliseconds(200), factor: 2, maxDelay: .seconds(5), jitter: 0.25)
    }

    func run(_ context: JobContext) async throws -> JobResult {
        log?.record(context.job)
        let payload = try context.payload(as: FailJob.Payload.self)
        if let success = payload.succeedOnAttempt, context.job.attempt >= success {
            return try .encode(FailJob.Result(succeededOnAttempt: context.job.attempt))
        }
        let message = payload.message ?? "failed on purpose"
        throw payload.permanent == true ? JobFailure.permanent(message) : JobFailure.transient(message)
    }
}
