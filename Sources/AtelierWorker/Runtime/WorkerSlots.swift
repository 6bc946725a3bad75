import AtelierQueue
import Foundation
import Synchronization

/// A worker process's job slots and the two paths that fill them.
///
/// - The claim loop claims for free slots itself: at once while the queue runs dry, in batches of
///   `refillThreshold` or more while it has a backlog (``Worker``).
/// - While it has a backlog, a completion flush claims for them too, in the round trip that
///   records the batch that freed them (``JobCompleter``, ``JobQueue/complete(_:thenClaim:)``):
///   one round trip and one commit per batch instead of two.
///
/// Both reserve the free slots here before they claim, so together they never hold more than
/// `concurrency` jobs. Jobs a flush claimed are counted as running at once (heartbeats renew
/// their leases) and wait in ``takeDelivered()`` until the claim loop starts them: every job
/// runs as a child task of the claim loop, so that the drain waits for each one's completion.
final class WorkerSlots: CompletionRefill, Sendable {
    private struct State {
        /// Slots promised to claims in flight.
        var reserved = 0
        /// Claimed by a flush, not started yet.
        var delivered: [(ClaimedJob, StopSignal)] = []
        /// The last claim filled every slot it asked for: the queue has more.
        var backlog = false
        /// A job marked to run alone is running (or its completion is being written): claim nothing.
        var runningAlone = false
        /// Stopping: no new claims.
        var closed = false
    }

    /// The attempts running here, those delivered but not started included.
    let running = RunningJobs()
    let concurrency: Int
    /// Free slots that make a busy worker claim again: half its concurrency.
    let refillThreshold: Int
    /// The completer claims for these slots while there is a backlog
    /// (``WorkerConfiguration/claimWithCompletions``).
    let refillsOnCompletion: Bool
    private let template: ClaimRequest
    private let doorbell: Doorbell
    private let state = Mutex(State())

    /// `template` is every claim's request but its limit; `doorbell` wakes the claim loop.
    init(concurrency: Int, template: ClaimRequest, doorbell: Doorbell, refillsOnCompletion: Bool) {
        self.concurrency = concurrency
        self.refillThreshold = max(1, concurrency / 2)
        self.template = template
        self.doorbell = doorbell
        self.refillsOnCompletion = refillsOnCompletion
    }

    var backlog: Bool { state.withLock { $0.backlog } }

    /// A completion flush will claim for the slot a job with an outcome frees.
    var flushRefills: Bool { refillsOnCompletion && backlog }

    /// Slots neither running nor reserved.
    var free: Int { state.withLock { concurrency - running.count - $0.reserved } }

    /// Reserves every free slot for one claim if there are at least `minimum`; nil otherwise, or
    /// while a job runs alone, or once stopping.
    func reserve(atLeast minimum: Int) -> ClaimRequest? {
        reserve(atLeast: minimum, onlyWithBacklog: false)
    }

    private func reserve(atLeast minimum: Int, onlyWithBacklog: Bool) -> ClaimRequest? {
        state.withLock { state in
            guard !state.closed, !state.runningAlone, state.backlog || !onlyWithBacklog else { return nil }
            let free = concurrency - running.count - state.reserved
            guard free >= max(1, minimum) else { return nil }
            state.reserved += free
            var request = template
            request.limit = free
            return request
        }
    }

    /// Counts what `request`'s claim took as running and frees its other slots; returns each job
    /// with the signal that stops it.
    func fill(_ jobs: [ClaimedJob], for request: ClaimRequest) -> [(ClaimedJob, StopSignal)] {
        state.withLock { fill(jobs, for: request, in: &$0) }
    }

    private func fill(_ jobs: [ClaimedJob], for request: ClaimRequest, in state: inout State) -> [(ClaimedJob, StopSignal)] {
        state.reserved -= request.limit
        state.backlog = jobs.count == request.limit
        if jobs.contains(where: \.runAlone) { state.runningAlone = true }
        return jobs.map { job in
            let signal = StopSignal()
            running.add(job, signal: signal)
            return (job, signal)
        }
    }

    /// `request`'s claim failed: its slots are free again.
    func release(_ request: ClaimRequest) {
        state.withLock { $0.reserved -= request.limit }
    }

    /// The jobs flushes claimed since the last call, for the claim loop to start.
    func takeDelivered() -> [(ClaimedJob, StopSignal)] {
        state.withLock { state in
            defer { state.delivered = [] }
            return state.delivered
        }
    }

    /// `job`'s handler returned: its slot is free. Returns how many ran before.
    func finished(_ job: ClaimedJob) -> Int {
        running.remove(job.id)
    }

    /// The completion of a job that ran alone was written: the worker may claim again.
    func aloneJobEnded() {
        state.withLock { $0.runningAlone = false }
    }

    /// Claims nothing more (the worker is stopping); flushes still in flight hand their jobs back.
    func close() {
        state.withLock { $0.closed = true }
    }

    // MARK: CompletionRefill

    /// Only while the queue has a backlog, and for as many slots as the claim loop would wait for:
    /// the claim rides on the flush instead of following it, and its batches stay as large.
    func reserveClaim() -> ClaimRequest? {
        guard refillsOnCompletion else { return nil }
        return reserve(atLeast: refillThreshold, onlyWithBacklog: true)
    }

    /// Once the worker is stopping, the jobs go back (the claim loop may have started its drain
    /// already and would not start them); before, they are counted and queued for the claim loop
    /// in one step, so a stop sees them in ``takeDelivered()``.
    func deliver(_ jobs: [ClaimedJob], for request: ClaimRequest) -> [ClaimedJob] {
        let refused = state.withLock { state -> [ClaimedJob] in
            guard !state.closed else {
                state.reserved -= request.limit
                return jobs
            }
            state.delivered.append(contentsOf: fill(jobs, for: request, in: &state))
            return []
        }
        if !jobs.isEmpty && refused.isEmpty { doorbell.ring() }
        return refused
    }

    func cancel(_ request: ClaimRequest) {
        release(request)
        doorbell.ring()
    }
}
