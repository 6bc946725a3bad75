import Foundation
import Logging
import Synchronization

/// Batches completions from many concurrently running jobs into few statements.
///
/// Group commit: when nothing is being written, a completion is written at once (lowest
/// latency); while a write is in flight, the completions that arrive meanwhile wait and go
/// together in the next one (highest throughput). Each caller learns whether its own
/// completion landed or was refused by the lease fence.
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
    private let state = Mutex(State())

    package init(queue: JobQueue, worker: String, maxBatch: Int = 500) {
        self.queue = queue
        self.worker = worker
        self.maxBatch = maxBatch
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
            let batch = state.withLock { state -> [Pending] in
                let count = min(state.pending.count, maxBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                if batch.isEmpty { state.flushing = false }
                return batch
            }
            if batch.isEmpty { return }
            let landed = await write(batch.map(\.completion))
            for item in batch {
                item.continuation.resume(returning: landed.contains(item.completion.jobID))
            }
        }
    }

    /// Writes one batch, retrying for a while if the database is briefly unavailable.
    /// Giving up is safe: the leases expire and the jobs run again elsewhere.
    private func write(_ completions: [Completion]) async -> Set<UUID> {
        var delay = Duration.milliseconds(100)
        for attempt in 1...8 {
            do {
                return try await queue.complete(completions, worker: worker)
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
}
