import Foundation
import Logging
import Synchronization

/// Batches completions from many concurrently running jobs into few statements.
///
/// Group commit: when nothing is being written, a completion is written at once (lowest
/// latency); while a write is in flight, the completions that arrive meanwhile wait and go
/// together in the next one (highest throughput). Each caller learns whether its own
/// completion landed or was refused by the lease fence.
///
/// Refill: when the worker has slots to fill (``CompletionRefill``), a flush
/// claims its next jobs in the same statement and commit, so a busy worker spends one round trip
/// per batch instead of a completion and a claim.
package final class JobCompleter: Sendable {
    private struct Pending {
        var completion: Completion
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var pending: [Pending] = []
        var flushing = false
    }

    private let queue: JobQueue
    private let worker: String
    private let maxBatch: Int
    private let refill: (any CompletionRefill)?
    private let deadline: StatementDeadline
    private let state = Mutex(State())

    package init(queue: JobQueue, worker: String, maxBatch: Int = 500, refill: (any CompletionRefill)? = nil,
                 deadline: StatementDeadline = StatementDeadline()) {
        self.queue = queue
        self.worker = worker
        self.maxBatch = maxBatch
        self.refill = refill
        self.deadline = deadline
    }

    /// Records `completion`; returns `true` if it landed, `false` if the fence refused it
    /// (the job was rescued from this worker) or the database could not be reached.
    package func complete(_ completion: Completion) async -> Bool {
        await withCheckedContinuation { continuation in
            let startFlush = state.withLock { state -> Bool in
                state.pending.append(Pending(completion: completion, continuation: continuation))
                if state.flushing { return false }
                state.flushing = true
                return true
            }
            if startFlush {
                Task { await self.flushLoop() }
            }
        }
    }

    private func flushLoop() async {
        while true {
            // Let the jobs that finished with this one reach `complete` first: a batch of jobs
            // finishing together then goes in one flush, not one alone and the rest after it.
            await Task.yield()
            let batch = state.withLock { state -> [Pending] in
                let count = min(state.pending.count, maxBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                if batch.isEmpty { state.flushing = false }
                return batch
            }
            if batch.isEmpty { return }
            let landed = await write(batch.map(\.completion), claim: refill?.reserveClaim())
            for item in batch {
                item.continuation.resume(returning: landed.contains(item.completion.jobID))
            }
        }
    }

    /// Writes one batch, with `claim` if there is one, retrying for a while if the database is
    /// briefly unavailable. Giving up is safe: the leases expire and the jobs run again
    /// elsewhere. The claim rides on the first try only: after an error its slots go back to
    /// the worker (whose own claim loop then fills them) and the retries write completions alone.
    private func write(_ completions: [Completion], claim: ClaimRequest?) async -> Set<UUID> {
        var claim = claim
        var delay = Duration.milliseconds(100)
        for attempt in 1...8 {
            do {
                let (queue, worker) = (self.queue, self.worker)
                guard let request = claim else {
                    return try await deadline.run("a completion") { try await queue.complete(completions, worker: worker) }
                }
                claim = nil
                do {
                    let (landed, claimed) = try await deadline.run("a completion") {
                        try await queue.complete(completions, thenClaim: request)
                    }
                    if let refused = refill?.deliver(claimed, for: request), !refused.isEmpty {
                        await handBack(refused)
                    }
                    return landed
                } catch {
                    refill?.cancel(request)
                    throw error
                }
            } catch let error as QueueError {
                queue.logger.error("refused job completions", metadata: ["error": "\(error.message)"])
                return []
            } catch {
                queue.logger.warning("could not record job completions", metadata: [
                    "attempt": "\(attempt)", "jobs": "\(completions.count)",
                    "error": "\(DatabaseErrorText.describe(error))"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        return []
    }

    /// Jobs a flush claimed for a worker that has begun to stop: back to the queue at once, the
    /// attempt given back (``JobOutcome/released``), as its drain hands back a job it stops. If
    /// even that fails, their leases expire and they are rescued.
    private func handBack(_ jobs: [ClaimedJob]) async {
        do {
            _ = try await queue.complete(jobs.map { Completion(job: $0, outcome: .released) }, worker: worker)
        } catch {
            queue.logger.warning("could not hand back jobs claimed while stopping", metadata: [
                "jobs": "\(jobs.count)", "error": "\(DatabaseErrorText.describe(error))"])
        }
    }
}

/// A worker's free slots, as a completion flush sees them: it may claim for them in its own round
/// trip (``JobQueue/complete(_:thenClaim:)``).
package protocol CompletionRefill: Sendable {
    /// A claim to send with the next flush, its limit the free slots now reserved for it; nil:
    /// send none (no backlog, too few slots free, the worker is stopping).
    func reserveClaim() -> ClaimRequest?
    /// What that claim took (possibly nothing); the slots it did not fill are free again.
    /// Returns the jobs the worker will not run (it has begun to stop): the completer hands them
    /// back to the queue.
    func deliver(_ jobs: [ClaimedJob], for request: ClaimRequest) -> [ClaimedJob]
    /// The claim failed (nothing of the flush was written): its slots are free again.
    func cancel(_ request: ClaimRequest)
}
