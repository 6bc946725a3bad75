import AtelierQueue
import AtelierStorage
import Foundation
import Logging
import Synchronization

/// The maintenance service: database-wide chores, done by one elected worker process at a
/// time (the maintenance leader, ``LeaderLock``) while the others stand by.
///
/// Every worker process runs it (``run()``: a ``tick()`` as it starts, then each
/// `rescueInterval`); in a tick the lock's holder does what is due, and a standby does nothing:
///
/// - every tick: the job counts' fold (the deltas the jobs' triggers appended, added to
///   `job_counts`: `QueueMaintenance.foldJobCounts`), the ``Rescuer`` (jobs of dead workers back to the
///   queue, poison pills failed) and the ``ScheduleTicker`` (the jobs of cron schedules whose
///   tick has come);
/// - every 30 s: the ``WorkerPruner`` (registry rows of gone workers), the ``JobPurger``
///   (finished jobs past retention, with their blobs), the ``BulkResumer`` (bulk actions whose
///   runner died) and the application's own chores (``WorkerConfiguration/chores``: `atelier
///   work` registers the accounts' sign-in purge);
/// - every `sweepInterval`: the ``OrphanSweeper`` (blob folders no job owns).
final class Maintenance: Sendable {
    /// What one tick did.
    struct Report: Sendable, Equatable {
        var led = false
        var folded = 0
        var rescued = 0
        var scheduled = 0
        var purged = 0
        /// What each of the application's chores reported, by name.
        var chores: [String: Int] = [:]
        var bulkResumed: [Int64] = []
        var sweep: OrphanSweeper.Report?

        init() {}
    }

    private struct Schedule {
        var lastHousekeeping: ContinuousClock.Instant?
        var lastSweep: ContinuousClock.Instant?
    }

    private let configuration: WorkerConfiguration
    private let logger: Logger
    private let queue: JobQueue
    private let leader: LeaderLock
    private let rescuer: Rescuer
    private let ticker: ScheduleTicker
    private let pruner: WorkerPruner
    private let purger: JobPurger
    private let bulk: BulkResumer
    /// Nil when there is no blob store or the sweep is turned off (`orphanGrace` nil).
    private let sweeper: OrphanSweeper?
    private let schedule = Mutex(Schedule())
    static let housekeepingInterval = Duration.seconds(30)

    init(queue: JobQueue, configuration: WorkerConfiguration, blobs: (any BlobStore)?, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.queue = queue
        self.leader = LeaderLock(url: queue.url, logger: logger)
        self.rescuer = Rescuer(queue: queue, crashLimit: configuration.crashLimit, logger: logger)
        self.ticker = ScheduleTicker(queue: queue, logger: logger)
        self.pruner = WorkerPruner(queue: queue, staleAfter: configuration.pruneWorkersAfter)
        self.purger = JobPurger(queue: queue, blobs: blobs, logger: logger)
        self.bulk = BulkResumer(queue: queue, blobs: blobs, logger: logger)
        if let blobs, let grace = configuration.orphanGrace {
            self.sweeper = OrphanSweeper(queue: queue, blobs: blobs, grace: grace, logger: logger)
        } else {
            self.sweeper = nil
        }
    }

    /// Until the task is cancelled: a tick at once, then one every `rescueInterval` (±20 %, so
    /// that standbys do not all knock at once); then gives the lead away.
    ///
    /// The first tick does not wait: a process that starts is often the replacement of one that
    /// died, whose jobs (and whose lead) are waiting for it. Waiting a whole interval first meant
    /// that a fleet whose processes are killed about once a second (`./ops/chaos --kill-every
    /// 0.5` with two processes) rescued almost nothing: few processes lived to their first tick.
    /// The bulk actions it continues run as children of this task: on cancellation they stop
    /// between batches, and the lead is given away only once they have.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [bulk] in await bulk.tasks.run() }
            while !Task.isCancelled {
                await tick()
                let jitter = Double.random(in: 0.8...1.2)
                try? await Task.sleep(for: configuration.rescueInterval * jitter)
            }
            bulk.tasks.finish()
        }
        await resign()
    }

    /// One round: take or confirm the lead, then do what is due. A standby returns at once.
    /// `now` is the schedules' clock: nil, the database's (tests pass the time they choose).
    @discardableResult
    func tick(now: Date? = nil) async -> Report {
        var report = Report()
        guard await leader.tryLead() else { return report }
        report.led = true
        do {
            // First, so that no other chore's failure leaves the deltas to pile up: readers sum
            // the ones not folded yet, so their cost is the deltas since the last fold.
            report.folded = try await queue.maintenance.foldJobCounts()
            report.rescued = try await rescuer.rescue()
            report.scheduled = try await ticker.run(now: now)
            if due(\.lastHousekeeping, every: Self.housekeepingInterval) {
                try await pruner.prune()
                for chore in configuration.chores {
                    report.chores[chore.name] = try await chore.run(queue)
                }
                report.bulkResumed = try await bulk.resume()
                if let retention = configuration.retention {
                    // A folder whose removal fails now is unreferenced from here on: the orphan
                    // sweep removes it later, so no purged job's files are forgotten.
                    let purged = try await purger.purge(olderThan: retention)
                    report.purged = purged.count
                    if !purged.isEmpty { logger.info("purged finished jobs", metadata: ["jobs": "\(purged.count)"]) }
                }
            }
            if let sweeper, due(\.lastSweep, every: configuration.sweepInterval) {
                report.sweep = try await sweeper.sweep()
            }
        } catch {
            logger.warning("maintenance failed", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
        }
        return report
    }

    /// One orphan sweep now, whoever leads (an empty report when the sweep is off).
    func sweepOrphans(now: Date = Date()) async throws -> OrphanSweeper.Report {
        guard let sweeper else { return OrphanSweeper.Report() }
        return try await sweeper.sweep(now: now)
    }

    /// Runs the bulk actions ``tick()`` continues, until cancelled: what ``run()`` does beside
    /// its ticks, for a caller that drives the ticks itself (the tests).
    func runBulkActions() async {
        await bulk.tasks.run()
    }

    /// Gives the lead to another process (on shutdown).
    func resign() async {
        await leader.resign()
    }

    var isLeader: Bool {
        get async { await leader.isLeader }
    }

    private func due(_ last: WritableKeyPath<Schedule, ContinuousClock.Instant?>, every interval: Duration) -> Bool {
        schedule.withLock { schedule in
            let now = ContinuousClock.now
            if let previous = schedule[keyPath: last], now - previous < interval { return false }
            schedule[keyPath: last] = now
            return true
        }
    }
}
