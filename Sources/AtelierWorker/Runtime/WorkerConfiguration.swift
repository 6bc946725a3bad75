import AtelierQueue

/// How a worker process claims and runs jobs. Defaults suit production; tests shorten the timings.
public struct WorkerConfiguration: Sendable {
    /// Queues to claim from.
    public var queues: [String] = ["default"]
    /// Jobs run at once in this process.
    public var concurrency: Int = 8
    /// A claimed job's lease; the worker renews it every `heartbeatInterval`. A worker that stops
    /// renewing (hung, partitioned) loses its jobs after this long.
    public var lease: Duration = .seconds(30)
    public var heartbeatInterval: Duration = .seconds(5)
    /// Fallback when no notification arrives (a lost NOTIFY, a delayed job coming due).
    public var pollInterval: Duration = .seconds(1)
    /// How often the maintenance leader looks for jobs of dead workers (killed processes are
    /// seen within one tick), and how often standby processes try to take the lead.
    public var rescueInterval: Duration = .seconds(1)
    /// A job that loses its worker this many times in a row while running alone is failed as a
    /// poison pill. Those attempts never count against the job's `max_attempts`.
    public var crashLimit: Int = QueueMaintenance.defaultCrashLimit
    /// A job whose worker died under it runs alone next: an idle worker takes it. When one has
    /// waited this long, busy workers stop claiming until one of them is idle and takes it.
    public var isolationWait: Duration = JobQueue.defaultIsolationWait
    /// The orphan sweep removes blob folders of jobs that do not exist (purged, or never
    /// inserted) and leftovers of interrupted writes once they are this old; nil turns it off.
    public var orphanGrace: Duration? = .seconds(3600)
    /// How often the maintenance leader sweeps for orphans.
    public var sweepInterval: Duration = .seconds(600)
    /// On SIGTERM/SIGINT: how long running jobs may take to finish before they are stopped and released.
    public var drainTimeout: Duration = .seconds(20)
    /// Finished jobs older than this are purged by maintenance; nil keeps them.
    public var retention: Duration? = .seconds(7 * 24 * 3600)
    /// Registry rows of workers gone (no liveness lock) for this long are removed.
    public var pruneWorkersAfter: Duration = .seconds(30)
    /// A handler told to stop (its timeout passed, its job was cancelled or its lease lost) that
    /// has not returned this long after is abandoned: its attempt is recorded as if it had
    /// stopped, and the process drains and exits to be replaced (``WorkerRecycled``).
    public var stopGrace: Duration = .seconds(30)
    /// If a handler ignores cancellation past drain, release its job in the database and exit the process.
    public var exitIfDrainHangs: Bool = true
    /// While the queue has a backlog, the flush that records finished jobs claims the next ones
    /// in the same round trip (`atelier_complete_and_claim`); off, the claim loop alone claims, in a round trip
    /// of its own (`ATELIER_CLAIM_WITH_COMPLETIONS=off`: the behaviour before, for comparison).
    public var claimWithCompletions: Bool = true
    /// How long the worker waits for one of its claims, lease renewals or completions before it
    /// gives the statement up and makes it again (``StatementDeadline``). Below the lease, so a
    /// renewal given up is made again before the lease runs out.
    package var statementDeadline = StatementDeadline(.seconds(20))
    public var version: String = "dev"
    /// The application's own maintenance chores, run by the maintenance leader with its
    /// housekeeping (``MaintenanceChore``).
    public var chores: [MaintenanceChore] = []

    public init() {}

    public func validate() throws(QueueError) {
        guard (1...1000).contains(concurrency) else { throw .invalidArgument("concurrency must be between 1 and 1000, got \(concurrency)") }
        guard !queues.isEmpty else { throw .invalidArgument("a worker needs at least one queue") }
        guard crashLimit >= 1 else { throw .invalidArgument("the crash limit must be at least 1, got \(crashLimit)") }
        guard isolationWait >= .zero else { throw .invalidArgument("the isolation wait must not be negative") }
        guard stopGrace > .zero else { throw .invalidArgument("the stop grace must be positive") }
        guard sweepInterval > .zero else { throw .invalidArgument("the sweep interval must be positive") }
        guard heartbeatInterval < lease else {
            throw .invalidArgument("the heartbeat interval (\(heartbeatInterval)) must be shorter than the lease (\(lease))")
        }
    }
}
