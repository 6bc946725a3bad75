import Synchronization

/// How a running attempt ends, decided once: its handler returned, or it was told to stop and
/// did not return within its grace (``JobExecutor``). Whichever comes first wins; the other is
/// ignored — an abandoned handler that returns later changes nothing.
final class AttemptEnding: Sendable {
    enum End: Sendable {
        case returned(Result<JobResult, any Error>)
        case abandoned
    }

    private struct State {
        var end: End?
        var waiter: CheckedContinuation<End, Never>?
        var grace: Task<Void, Never>?
    }

    private let state = Mutex(State())

    func finish(_ end: End) {
        let waiter = state.withLock { state -> CheckedContinuation<End, Never>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: end)
    }

    /// The attempt is abandoned `grace` from now unless its handler returns first.
    func startGrace(_ grace: Duration) {
        let timer = Task {
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            self.finish(.abandoned)
        }
        let superseded = state.withLock { state -> Task<Void, Never>? in
            // The stop signal's action can run twice when a stop races with its registration.
            if state.end != nil || state.grace != nil { return timer }
            state.grace = timer
            return nil
        }
        superseded?.cancel()
    }

    func cancelGrace() {
        state.withLock { $0.grace }?.cancel()
    }

    /// The end, once there is one. Call once.
    func wait() async -> End {
        await withCheckedContinuation { continuation in
            let end = state.withLock { state -> End? in
                if let end = state.end { return end }
                state.waiter = continuation
                return nil
            }
            if let end { continuation.resume(returning: end) }
        }
    }
}
