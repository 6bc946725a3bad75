import Foundation
import PostgresNIO
import Synchronization

/// Group commit for single-job enqueues: while an insert is on its way to PostgreSQL, the
/// enqueues that arrive meanwhile wait and then go together, as one multi-row INSERT (one round
/// trip, one commit, one NOTIFY). A lone enqueue goes at once, so nothing waits that did not have
/// to; under load — many API requests creating jobs at the same moment — the commits, which are
/// most of an insert's cost on the server, are shared.
///
/// At most ``maxInFlight`` statements (2) run at a time, each with at most ``maxBatch`` jobs. When a
/// batch is refused by PostgreSQL (a constraint one of its jobs breaks), its jobs are sent again
/// one by one, so each caller gets its own answer: nothing a caller sees depends on who else was
/// enqueueing. A batch that fails for any other reason (the connection) fails every caller in it,
/// as a single insert would have.
final class EnqueueCoalescer: Sendable {
    typealias Insert = @Sendable (_ ids: [UUID], _ jobs: [NewJob]) async throws -> [EnqueuedJob]

    /// Statements sent at once, and jobs per statement.
    let maxInFlight: Int
    let maxBatch: Int

    init(maxInFlight: Int = 2, maxBatch: Int = 500) {
        precondition(maxInFlight >= 1 && maxBatch >= 1)
        (self.maxInFlight, self.maxBatch) = (maxInFlight, maxBatch)
    }

    private struct Waiting {
        var id: UUID
        var job: NewJob
        var answer: OneShot
    }

    private struct State {
        var waiting: [Waiting] = []
        var inFlight = 0
    }

    private let state = Mutex(State())

    /// Enqueues waiting for a statement (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func enqueue(_ job: NewJob, id: UUID, insert: @escaping Insert) async throws -> EnqueuedJob {
        let answer = OneShot()
        let flushes = state.withLock { state -> Bool in
            state.waiting.append(Waiting(id: id, job: job, answer: answer))
            guard state.inFlight < maxInFlight else { return false }
            state.inFlight += 1
            return true
        }
        // The flush runs in a task of its own: a caller whose request is cancelled must not
        // cancel the insert of the others' jobs that went in the same batch.
        if flushes { Task { await self.flush(insert) } }
        return try await answer.value
    }

    /// Sends what is waiting, batch after batch, until nothing is.
    private func flush(_ insert: Insert) async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.waiting.prefix(maxBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.inFlight -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            await send(batch, insert)
        }
    }

    private func send(_ batch: [Waiting], _ insert: Insert) async {
        do {
            let results = try await insert(batch.map(\.id), batch.map(\.job))
            for (waiting, result) in zip(batch, results) { waiting.answer.resolve(.success(result)) }
        } catch where batch.count > 1 && DatabaseErrorText.isRefusedStatement(error) {
            // PostgreSQL refused the statement (it rolled back whole): find whose job it was. A
            // server going away refuses every job alike, and they fail together below.
            for waiting in batch { await send([waiting], insert) }
        } catch {
            for waiting in batch { waiting.answer.resolve(.failure(error)) }
        }
    }
}

/// A value set once and awaited once.
private final class OneShot: Sendable {
    private struct State {
        var result: Result<EnqueuedJob, any Error>?
        var continuation: CheckedContinuation<EnqueuedJob, any Error>?
    }

    private let state = Mutex(State())

    func resolve(_ result: Result<EnqueuedJob, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<EnqueuedJob, any Error>? in
            if let continuation = state.continuation {
                state.continuation = nil
                return continuation
            }
            state.result = result
            return nil
        }
        continuation?.resume(with: result)
    }

    var value: EnqueuedJob {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<EnqueuedJob, any Error>? in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
