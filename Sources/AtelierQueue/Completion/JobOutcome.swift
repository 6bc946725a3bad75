import Foundation

/// How one attempt of a job ended, as the worker reports it.
package enum JobOutcome: Sendable, Equatable {
    /// Done; `result` is JSON object text (or nil for none).
    case succeeded(result: String?)
    /// A transient failure: run again after `delay`.
    case retry(error: String, delay: Duration)
    /// A permanent failure, or the last attempt failed. `result` (JSON object text, or nil) is
    /// what the handler said of the failure for the API to act on (an input that never decoded),
    /// kept as the failed job's `result`; clients' views do not show it.
    case failed(error: String, result: String? = nil)
    /// Stopped because someone cancelled it.
    case cancelled(reason: String)
    /// The worker is shutting down before the job finished: back to the queue at once,
    /// and this attempt does not count.
    case released
    /// Something the job needs is down (the blob store): back to the queue until `delay` has
    /// passed, and this attempt does not count (it is one of the job's `snoozes`); `reason` is
    /// the job's error meanwhile. The delay grows with each snooze in a row (``SnoozePolicy``).
    case snoozed(reason: String, delay: Duration)

    var code: String {
        switch self {
        case .succeeded: return "succeeded"
        case .retry: return "retry"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .released: return "released"
        case .snoozed: return "snoozed"
        }
    }
}

/// The outcome of one claimed attempt, fenced on (job id, attempt, lease owner).
package struct Completion: Sendable, Equatable {
    package var jobID: UUID
    package var attempt: Int
    package var outcome: JobOutcome

    package init(jobID: UUID, attempt: Int, outcome: JobOutcome) {
        self.jobID = jobID
        self.attempt = attempt
        self.outcome = outcome
    }

    package init(job: ClaimedJob, outcome: JobOutcome) {
        self.init(jobID: job.id, attempt: job.attempt, outcome: outcome)
    }
}
