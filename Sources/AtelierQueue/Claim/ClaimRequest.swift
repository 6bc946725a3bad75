import Foundation

/// What a worker asks a claim for: up to `limit` jobs of `kinds` from `queues`, leased to
/// `worker` for `lease` (``JobQueue/claim(_:)``). A completion flush may carry one
/// (``JobQueue/complete(_:thenClaim:)``), so that the worker claims its next batch in the round
/// trip that records the last one.
package struct ClaimRequest: Sendable, Equatable {
    package var worker: String
    package var queues: [String]
    package var kinds: [String]
    /// Jobs at most: the worker's free slots it reserved for this claim.
    package var limit: Int
    package var lease: Duration
    /// See ``JobQueue/defaultIsolationWait``.
    package var isolationWait: Duration

    package init(worker: String, queues: [String], kinds: [String], limit: Int, lease: Duration,
                 isolationWait: Duration = JobQueue.defaultIsolationWait) {
        self.worker = worker
        self.queues = queues
        self.kinds = kinds
        self.limit = limit
        self.lease = lease
        self.isolationWait = isolationWait
    }

    /// Nothing to ask: no slot, queue or kind.
    var isEmpty: Bool { limit <= 0 || queues.isEmpty || kinds.isEmpty }
}
