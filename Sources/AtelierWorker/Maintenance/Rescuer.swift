import AtelierQueue
import Logging

/// Returns the jobs of dead workers to the queue, marked to run alone, or fails those that keep
/// killing their workers as poison pills (`crashLimit` crashes in a row, each while running
/// alone). The statement and its rules are
/// ``JobQueue/rescueLostJobs(restartGrace:crashLimit:)``; the maintenance leader runs it every tick.
/// Why crashes are counted apart from failures: docs/reliability.md; the rescue in a job's life:
/// docs/architecture.md §2.6.
struct Rescuer: Sendable {
    let queue: JobQueue
    let crashLimit: Int
    let logger: Logger

    /// Rescues what is lost now; returns how many jobs it rescued or failed.
    func rescue() async throws -> Int {
        let rescued = try await queue.maintenance.rescueLostJobs(crashLimit: crashLimit)
        if rescued > 0 { logger.warning("rescued jobs of stopped workers", metadata: ["jobs": "\(rescued)"]) }
        return rescued
    }
}
