import AtelierQueue

/// What an operator can do to one job from the console.
enum JobAction: String, CaseIterable, Sendable {
    case retry, cancel, purge

    var title: String {
        switch self {
        case .retry: "Retry"
        case .cancel: "Cancel"
        case .purge: "Purge"
        }
    }

    func allowed(for state: JobState) -> Bool {
        switch self {
        case .retry: state == .failed || state == .cancelled
        case .cancel: state == .queued || state == .running
        case .purge: state.isFinished
        }
    }

    /// What the confirmation says will happen.
    var consequence: String {
        switch self {
        case .retry: "The job goes back to its queue with a fresh set of attempts; its error history is kept."
        case .cancel: "A queued job is cancelled at once; a running one is told to stop, and is cancelled when its worker has stopped it."
        case .purge: "The job, its events and its files (input and result) are deleted for good. Its owner will no longer find it."
        }
    }

    var doneMessage: String {
        switch self {
        case .retry: "The job is queued again."
        case .cancel: "The job is cancelled, or its worker has been told to stop it."
        case .purge: "The job was purged."
        }
    }
}
