import Synchronization

/// A bounded lane for one kind of costly work a request can ask for — probing an uploaded
/// image's header, checking a password (scrypt: 32 MiB each, and the CPU of BENCHMARKS.md,
/// "Accounts"), embedding a search query, a chat model's answer. At most `concurrency` items
/// run at once and at most `queueLimit` wait for a turn, in order; one more is refused at once
/// with ``LaneFullError`` (the API's `503` with `Retry-After`), so a burst of one kind of work —
/// one tenant's, or an attacker's — never makes another request wait behind it, and a waiting
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
    /// What a refusal tells the client to wait, in seconds.
    package let retryAfterSeconds: Int
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var waiting: [(id: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        var refused = 0
    }

    /// `concurrency` ≥ 1 items at once, `queueLimit` ≥ 0 waiting.
    package init(name: String, concurrency: Int, queueLimit: Int, retryAfterSeconds: Int = 1) {
        precondition(concurrency >= 1 && queueLimit >= 0 && retryAfterSeconds >= 1)
        self.name = name
        self.concurrency = concurrency
        self.queueLimit = queueLimit
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Runs blocking `work` on the lanes' own threads once the lane has room; ``LaneFullError``
    /// at once when it has none.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await LaneThreads.run(work)
    }

    /// Runs async `work` in this task once the lane has room; ``LaneFullError`` at once when it
    /// has none.
    package func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await work()
    }

    /// ``LaneFullError`` when the lane has no place and no room in its line now (counted as a
    /// refusal), else nothing: for work that is costly to even hand over — an upload's body is
    /// not read only to be refused.
    package func refuseIfFull() throws(LaneFullError) {
        let full = state.withLock { state in
            guard state.running >= concurrency && state.waiting.count >= queueLimit else { return false }
            state.refused += 1
            return true
        }
        if full { throw LaneFullError(lane: name, retryAfterSeconds: retryAfterSeconds) }
    }

    /// Items running and waiting now, and refusals since the process started (for /metrics).
    package var load: (running: Int, waiting: Int, refused: Int) {
        state.withLock { ($0.running, $0.waiting.count, $0.refused) }
    }

    /// Takes one of the lane's places until ``Hold/release()``: for tests that need a full lane
    /// without a request that happens to be slow.
    package func hold() async throws -> Hold {
        try await enter()
        return Hold(lane: self)
    }

    package final class Hold: Sendable {
        private let lane: WorkLane
        private let released = Mutex(false)
        fileprivate init(lane: WorkLane) { self.lane = lane }

        package func release() {
            guard released.withLock({ let was = $0; $0 = true; return !was }) else { return }
            lane.leave()
        }
    }

    // MARK: Admission

    private enum Entry {
        case go
        case wait(UInt64)
        case refuse
    }

    private func enter() async throws {
        let entry: Entry = state.withLock { state in
            if state.running < concurrency {
                state.running += 1
                return .go
            }
            if state.waiting.count < queueLimit {
                state.nextID += 1
                return .wait(state.nextID)
            }
            state.refused += 1
            return .refuse
        }
        switch entry {
        case .go:
            return
        case .refuse:
            throw LaneFullError(lane: name, retryAfterSeconds: retryAfterSeconds)
        case .wait(let id):
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
                        state.waiting.append((id, turn))
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
        }
    }

    /// Hands the place to the first in line, or frees it.
    fileprivate func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().turn
        }
        next?.resume()
    }
}
