import AtelierQueue

/// Removes the registry rows of workers that are gone — no liveness lock, no heartbeat for
/// `staleAfter` — so `atelier workers` lists the fleet that exists.
struct WorkerPruner: Sendable {
    let queue: JobQueue
    let staleAfter: Duration

    func prune() async throws {
        try await queue.pruneWorkers(staleAfter: staleAfter)
    }
}
