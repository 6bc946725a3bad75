import Foundation
import PostgresNIO

extension QueueMaintenance {
    /// Folds the job-count deltas committed so far into `job_counts` (the migration's
    /// `atelier_fold_job_counts`), so that reading the counts stays as cheap as the number of
    /// groups. Run by the maintenance leader every tick; safe to run from anywhere at any time:
    /// two folds at once cannot count a delta twice. Returns the deltas folded.
    @discardableResult
    package func foldJobCounts() async throws -> Int {
        try await scalar("SELECT atelier_fold_job_counts()", as: Int.self) ?? 0
    }
}
