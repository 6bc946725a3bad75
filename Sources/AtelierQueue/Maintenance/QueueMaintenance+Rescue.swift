import Foundation
import PostgresNIO

extension QueueMaintenance {
    /// How many times in a row a job may lose its worker before the rescuer fails it as a
    /// poison pill (`ATELIER_CRASH_LIMIT`).
    public static let defaultCrashLimit = 5

    /// Returns the jobs of dead workers to the queue, or fails those that look like poison pills:
    /// `atelier_rescue_lost_jobs` (`Sources/AtelierQueue/SQL/atelier_rescue_lost_jobs.sql` says
    /// how a lost job is found, judged and requeued). A lost attempt is a crash, not a handler
    /// failure; a job that keeps killing the workers it runs alone in is failed once its crash
    /// streak reaches `crashLimit`. Liveness locks are ignored for `restartGrace` after the
    /// database started. Returns how many jobs it rescued.
    @discardableResult
    package func rescueLostJobs(restartGrace: Duration = .seconds(15), crashLimit: Int = defaultCrashLimit) async throws -> Int {
        guard crashLimit >= 1 else { throw QueueError.invalidArgument("the crash limit must be at least 1, got \(crashLimit)") }
        return try await scalar(
            "SELECT atelier_rescue_lost_jobs(\(restartGrace.milliseconds)::bigint, \(crashLimit)::integer)", as: Int.self) ?? 0
    }
}
