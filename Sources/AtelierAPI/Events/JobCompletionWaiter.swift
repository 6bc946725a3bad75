import AtelierQueue
import Foundation

/// Waits for a job to finish for routes that answer with its outcome (`/api/generateCaption`,
/// Mondrian's `/index`): woken by the job's event notifications through ``EventHub``, with the
/// hub's periodic tick as a safety net — no polling loop.
package struct JobCompletionWaiter: Sendable {
    let queue: JobQueue
    let hub: EventHub

    package init(queue: JobQueue, hub: EventHub) {
        (self.queue, self.hub) = (queue, hub)
    }

    /// The job once it has finished, or nil when `timeout` passes first.
    package func finished(_ id: UUID, timeout: Duration) async throws -> Job? {
        let signals = hub.subscribe(id)
        let job = try await queue.job(id: id)
        if job.state.isFinished { return job }
        let queue = self.queue
        return try await withThrowingTaskGroup(of: Job?.self) { group in
            group.addTask {
                for await _ in signals {
                    let job = try await queue.job(id: id)
                    if job.state.isFinished { return job }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
