import AtelierQueue
import Foundation
import Synchronization

/// The attempts this worker process is running, with their stop signals.
final class RunningJobs: Sendable {
    private struct Entry {
        var lease: HeldLease
        var signal: StopSignal
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    var count: Int { entries.withLock { $0.count } }

    var leases: [HeldLease] { entries.withLock { $0.values.map(\.lease) } }

    func add(_ job: ClaimedJob, signal: StopSignal) {
        entries.withLock { $0[job.id] = Entry(lease: HeldLease(jobID: job.id, attempt: job.attempt), signal: signal) }
    }

    /// Removes a finished attempt; returns how many were running before.
    @discardableResult
    func remove(_ id: UUID) -> Int {
        entries.withLock { entries in
            let before = entries.count
            entries.removeValue(forKey: id)
            return before
        }
    }

    func stop(_ id: UUID, reason: StopReason) {
        entries.withLock { $0[id]?.signal }?.stop(reason)
    }

    func stopAll(reason: StopReason) {
        for signal in entries.withLock({ $0.values.map(\.signal) }) { signal.stop(reason) }
    }
}
