import NIOCore
import Synchronization

/// A bounded lane for one kind of costly work a request can ask for — probing an uploaded
/// image's header, checking a password (scrypt: 32 MiB each, and the CPU of docs/benchmarks/accounts.md,
/// "Accounts"), embedding a search query, a chat model's answer. At most `concurrency` items
/// run at once; the others wait for a turn, in order.
///
/// A request is refused (``LaneFullError``, the API's `503` with `Retry-After`) only when it
/// would wait too long: when the lane's recent pace says its turn would come after `maxWait`
/// (the items ahead of it, divided among the places, times the mean time an item held its place
/// lately), or when `queueLimit` requests wait already (a bound on what waiting requests hold).
/// One that waited past `maxWait` anyway — the work got slower while it waited — is refused
/// when its turn comes rather than served late. So a burst the lane can serve within the
/// deadline is served whole, while a burst of one kind of work it cannot — one tenant's, or an
/// attacker's — is refused at once and never makes another request wait behind it; a waiting
/// request holds nothing but its place in line.
///
/// Blocking work (``run(_:)-(()throws->T)``) runs on ``LaneThreads``, threads kept for the lanes
/// alone (never Swift's cooperative pool, where it would hold up every other request's tasks,
/// nor NIO's shared pool, where it would queue behind other work); async work
/// (``run(_:)-(()async throws->T)``), such as a provider call, runs in the caller's task within
/// the lane's limits.
package final class WorkLane: Sendable {
    /// What the lane does, in words: "image probes". Named in the refusal and in the metrics.
    package let name: String
    package let concurrency: Int
    package let queueLimit: Int
    /// The longest a request should wait for a place (see the type's notes).
    package let maxWait: Duration
    /// What a refusal tells the client to wait, in seconds.
    package let retryAfterSeconds: Int
    private let now: @Sendable () -> Duration
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var waiting = CircularBuffer<Waiter>()
        var nextID: UInt64 = 0
        var refused = 0
        /// The mean time an item held its place, over the last items (an exponential moving
        /// average, each new item weighing 1/8); nil before the first item left.
        var meanHold: Duration?
    }

    private struct Waiter {
        var id: UInt64
        var since: Duration
        var turn: CheckedContinuation<Void, any Error>
    }

    /// `concurrency` ≥ 1 items at once, `queueLimit` ≥ 0 waiting, each for at most `maxWait`.
    /// `now` is the clock the lane measures waits and holds with (a monotonic one; tests pass
    /// their own).
    package init(name: String, concurrency: Int, queueLimit: Int, maxWait: Duration = .seconds(2), retryAfterSeconds: Int = 1,
                 now: @escaping @Sendable () -> Duration = WorkLane.monotonicNow) {
        precondition(concurrency >= 1 && queueLimit >= 0 && maxWait >= .zero && retryAfterSeconds >= 1)
        self.name = name
        self.concurrency = concurrency
        self.queueLimit = queueLimit
        self.maxWait = maxWait
        self.retryAfterSeconds = retryAfterSeconds
        self.now = now
    }

    /// The time since an arbitrary fixed point, from the monotonic clock.
    package static let monotonicNow: @Sendable () -> Duration = { processStart.duration(to: .now) }
    private static let processStart = ContinuousClock.now

    /// Runs blocking `work` on the lanes' own threads once the lane has room; ``LaneFullError``
    /// at once when it would wait too long.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let started = try await enter()
        defer { leave(heldSince: started) }
        return try await LaneThreads.run(work)
    }

    /// Runs async `work` in this task once the lane has room; ``LaneFullError`` at once when it
    /// would wait too long.
    package func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        let started = try await enter()
        defer { leave(heldSince: started) }
        return try await work()
    }

    /// ``LaneFullError`` when one more item would be refused now (counted as a refusal), else
    /// nothing: for work that is costly to even hand over — an upload's body is not read only to
    /// be refused.
    package func refuseIfFull() throws(LaneFullError) {
        let full = state.withLock { state in
            guard state.running >= concurrency && wouldWaitTooLong(state) else { return false }
            state.refused += 1
            return true
        }
        if full { throw refusal }
    }

    /// Items running and waiting now, and refusals since the process started (for /metrics).
    package var load: (running: Int, waiting: Int, refused: Int) {
        state.withLock { ($0.running, $0.waiting.count, $0.refused) }
    }

    /// How long one more item would wait now, by the lane's recent pace: zero while a place is
    /// free or before any item has left (what admission compares with `maxWait`; tests read it).
    package var expectedWait: Duration {
        state.withLock { state in state.running < concurrency ? .zero : expectedWait(state) }
    }

    /// Takes one of the lane's places until ``Hold/release()``: for tests that need a full lane
    /// without a request that happens to be slow.
    package func hold() async throws -> Hold {
        Hold(lane: self, since: try await enter())
    }

    package final class Hold: Sendable {
        private let lane: WorkLane
        private let since: Duration
        private let released = Mutex(false)
        fileprivate init(lane: WorkLane, since: Duration) { (self.lane, self.since) = (lane, since) }

        package func release() {
            guard released.withLock({ let was = $0; $0 = true; return !was }) else { return }
            lane.leave(heldSince: since)
        }
    }

    private var refusal: LaneFullError { LaneFullError(lane: name, retryAfterSeconds: retryAfterSeconds) }

    /// The wait of one more item behind those in line: each place frees, on average, once per
    /// mean hold, so the line moves `concurrency` items per mean hold.
    private func expectedWait(_ state: State) -> Duration {
        guard let meanHold = state.meanHold else { return .zero }
        return meanHold * (state.waiting.count + 1) / concurrency
    }

    private func wouldWaitTooLong(_ state: State) -> Bool {
        state.waiting.count >= queueLimit || expectedWait(state) > maxWait
    }

    // MARK: Admission

    private enum Entry {
        case go
        case wait(UInt64)
        case refuse
    }

    /// Waits for a place; returns when the item took it (for the mean hold).
    private func enter() async throws -> Duration {
        let entry: Entry = state.withLock { state in
            if state.running < concurrency {
                state.running += 1
                return .go
            }
            if !wouldWaitTooLong(state) {
                state.nextID += 1
                return .wait(state.nextID)
            }
            state.refused += 1
            return .refuse
        }
        switch entry {
        case .go:
            return now()
        case .refuse:
            throw refusal
        case .wait(let id):
            let since = now()
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                    // Under the lock, so a cancellation either is seen here or finds the waiter.
                    let outcome: Result<Bool, CancellationError> = state.withLock { state in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        // A place may have come free since: take it instead of waiting.
                        if state.running < concurrency {
                            state.running += 1
                            return .success(false)
                        }
                        state.waiting.append(Waiter(id: id, since: since, turn: turn))
                        return .success(true)
                    }
                    switch outcome {
                    case .failure(let cancelled): turn.resume(throwing: cancelled)
                    case .success(false): turn.resume()
                    case .success(true): break
                    }
                }
            } onCancel: {
                // Still waiting: leave the line. Already given its turn: it runs and leaves as usual.
                let turn = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiting.remove(at: index).turn
                }
                turn?.resume(throwing: CancellationError())
            }
            return now()
        }
    }

    /// Counts the item's hold into the mean, then hands the place to the first in line that has
    /// not waited past `maxWait` (those that have are refused), or frees it.
    fileprivate func leave(heldSince since: Duration) {
        let left = now()
        let held = left - since
        let (next, late) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
            state.meanHold = state.meanHold.map { $0 + (held - $0) / 8 } ?? held
            var late: [CheckedContinuation<Void, any Error>] = []
            while let first = state.waiting.first, left - first.since > maxWait {
                late.append(state.waiting.removeFirst().turn)
                state.refused += 1
            }
            if state.waiting.isEmpty {
                state.running -= 1
                return (nil, late)
            }
            return (state.waiting.removeFirst().turn, late)
        }
        for turn in late { turn.resume(throwing: refusal) }
        next?.resume()
    }
}
