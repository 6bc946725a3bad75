import Synchronization

/// A bound on how long a worker waits for one of its own statements (a claim, a lease renewal, a
/// completion): past it the wait ends with ``StatementUnanswered``, and the loop that made the
/// statement backs off and makes it again, as after a connection error. The API's health probes
/// use it too: they answer at their limit whatever the probe does.
///
/// A dead connection fails its statement within seconds (``DeadConnectionDetector``), but
/// PostgresNIO 1.33 can lose a statement outright: one written to a connection that has just
/// closed, before the pool learned that it closed, is never answered and ignores cancellation.
/// A worker whose claim was lost so never claimed again and never stopped. The statement left
/// behind is cancelled and not waited for; the work it may have done is what a worker that died
/// leaves (jobs under a lease that expires, rescued and run again). The limit is far above any
/// statement of a healthy database (milliseconds): it bounds a wait, it does not time a query.
package struct StatementDeadline: Sendable {
    package var limit: Duration

    package init(_ limit: Duration = .seconds(20)) {
        self.limit = limit
    }

    /// What `operation` returns or throws, if it does within ``limit``. Cancelling the caller
    /// cancels `operation` and still waits for it (or the limit).
    package func run<T: Sendable>(_ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiter = Waiter<T>()
        let limit = self.limit
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let work = Task {
                    do {
                        waiter.finish(.success(try await operation()))
                    } catch {
                        waiter.finish(.failure(error))
                    }
                }
                let alarm = Task {
                    try await Task.sleep(for: limit)
                    waiter.finish(.failure(StatementUnanswered(what: what, limit: limit)))
                }
                waiter.start(continuation, work: work, alarm: alarm)
            }
        } onCancel: {
            waiter.cancelWork()
        }
    }
}

/// A statement given up by a ``StatementDeadline``: it may have run or not.
package struct StatementUnanswered: Error, CustomStringConvertible {
    package var what: String
    package var limit: Duration
    package var description: String { "the database did not answer \(what) within \(limit)" }
}

/// The one continuation of a ``StatementDeadline/run(_:_:)``, resumed by whichever of the work
/// and the alarm comes first; the alarm is then cancelled, or the work left behind cancelled.
private final class Waiter<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var work: Task<Void, Never>?
        var alarm: Task<Void, any Error>?
        var workCancelled = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>, alarm: Task<Void, any Error>) {
        let (early, cancelled) = state.withLock { state -> (Result<T, any Error>?, Bool) in
            if let early = state.early { return (early, false) }
            state.continuation = continuation
            state.work = work
            state.alarm = alarm
            return (nil, state.workCancelled)
        }
        if cancelled { work.cancel() }
        guard let early else { return }
        alarm.cancel()
        if case .failure = early { work.cancel() }
        continuation.resume(with: early)
    }

    func finish(_ result: Result<T, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>, Task<Void, Never>?, Task<Void, any Error>?)? in
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            defer { state.continuation = nil; state.work = nil; state.alarm = nil }
            return (continuation, state.work, state.alarm)
        }
        guard let (continuation, work, alarm) = taken else { return }
        alarm?.cancel()
        if case .failure = result { work?.cancel() }
        continuation.resume(with: result)
    }

    func cancelWork() {
        let work = state.withLock { state -> Task<Void, Never>? in
            state.workCancelled = true
            return state.work
        }
        work?.cancel()
    }
}
