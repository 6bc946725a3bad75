import Synchronization

/// Where a running attempt is: in the handler's own code, writing progress, waiting for a thread
/// of the worker's pool or running on one; and the last step the handler reported. Read only
/// when a handler does not stop when told (``JobExecutor``), so that the log says where it hangs.
final class AttemptActivity: Sendable {
    enum Place: String, Sendable {
        case handlerCode = "in the handler's own code"
        case writingProgress = "writing progress to the database"
        case waitingForPoolThread = "waiting for a thread of the worker's pool"
        case onPoolThread = "running on a thread of the worker's pool"
    }

    private let state = Mutex<(place: Place, step: String?, since: ContinuousClock.Instant)>(
        (.handlerCode, nil, ContinuousClock.now))

    func enter(_ place: Place) {
        state.withLock { $0 = (place, $0.step, ContinuousClock.now) }
    }

    func step(_ step: String) {
        state.withLock { $0.step = step }
    }

    /// "running on a thread of the worker's pool for 95 s, at step decoding".
    var description: String {
        let (place, step, since) = state.withLock { $0 }
        let seconds = (ContinuousClock.now - since).components.seconds
        return "\(place.rawValue) for \(seconds) s" + (step.map { ", at step \($0)" } ?? "")
    }
}
