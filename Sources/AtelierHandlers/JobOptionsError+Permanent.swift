import AtelierJobs
import AtelierWorker

/// A payload its kind's contract refuses (written some other way than through the API, which
/// checks the same): retrying cannot make it good, so the job fails at once with the contract's
/// message.
extension JobOptionsError: PermanentError {}
