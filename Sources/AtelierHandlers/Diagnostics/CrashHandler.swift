import AtelierJobs
import AtelierWorker
import Foundation

/// `crash`: waits `after_ms` (cancellably), then SIGKILLs its own process, as the out-of-memory
/// killer would stop a worker that one job ran out of memory. Whatever else the process was
/// running is lost with it; the rescuer sorts out which job was to blame (docs/reliability.md).
/// It takes the whole process down: never give it to a worker inside a test runner.
struct CrashHandler: JobHandler {
    let kind = CrashJob.kind
    let log: ExecutionLog?

    func run(_ context: JobContext) async throws -> JobResult {
        log?.record(context.job)
        let ms = try context.payload(as: CrashJob.Payload.self).delay()
        if ms > 0 { try await Task.sleep(for: .milliseconds(ms)) }
        try context.checkCancellation()
        kill(getpid(), SIGKILL)
        _exit(128 + SIGKILL)   // not reached: SIGKILL to oneself is delivered before kill returns
    }
}
