import AtelierQueue
import AtelierStorage
import Foundation
import Logging
import Synchronization

/// Database-wide chores, done by one elected worker process at a time (the maintenance
/// leader, ``LeaderLock``) while the others stand by:
///
/// - every tick: rescue the jobs of dead workers (or fail poison pills, `crashLimit`);
/// - every 30 s: prune the worker registry, purge finished jobs past retention with their blobs;
/// - every `sweepInterval`: the orphan sweep (``sweepOrphans(now:)``).
///
/// Every worker calls ``tick()`` each `rescueInterval`; only the lock's holder does anything.
public final class Maintenance: Sendable {
    /// What one tick did.
    public struct Report: Sendable, Equatable {
        public var led = false
        public var rescued = 0
        public var purged = 0
        public var sweep: SweepReport?

        public init() {}
    }

    /// What one orphan sweep removed.
    public struct SweepReport: Sendable, Equatable {
        /// Job folders whose job does not exist (purged, or never inserted).
        public var orphanFolders: [String] = []
        /// Leftovers of interrupted writes.
        public var abandonedWrites = 0

        public init() {}
    }

    private struct Schedule {
        var lastHousekeeping: ContinuousClock.Instant?
        var lastSweep: ContinuousClock.Instant?
    }

    private let queue: JobQueue
    private let configuration: WorkerConfiguration
    private let blobs: (any BlobStore)?
    private let logger: Logger
    private let leader: LeaderLock
    private let schedule = Mutex(Schedule())
    static let housekeepingInterval = Duration.seconds(30)

    public init(queue: JobQueue, configuration: WorkerConfiguration, blobs: (any BlobStore)?, logger: Logger) {
        self.queue = queue
        self.configuration = configuration
        self.blobs = blobs
        self.logger = logger
        self.leader = LeaderLock(url: queue.url, logger: logger)
    }

    /// One round: take or confirm the lead, then do what is due. A standby returns at once.
    @discardableResult
    public func tick() async -> Report {
        var report = Report()
        guard await leader.tryLead() else { return report }
        report.led = true
        do {
            report.rescued = try await queue.rescueLostJobs(crashLimit: configuration.crashLimit)
            if report.rescued > 0 { logger.warning("rescued jobs of stopped workers", metadata: ["jobs": "\(report.rescued)"]) }
            if due(\.lastHousekeeping, every: Self.housekeepingInterval) {
                try await queue.pruneWorkers(staleAfter: configuration.pruneWorkersAfter)
                if let retention = configuration.retention {
                    let purged = try await queue.purgeFinished(olderThan: retention)
                    report.purged = purged.count
                    if !purged.isEmpty { logger.info("purged finished jobs", metadata: ["jobs": "\(purged.count)"]) }
                    // A folder whose removal fails now is unreferenced from here on: the orphan
                    // sweep removes it later, so no purged job's files are forgotten.
                    await Worker.removeBlobs(of: purged, from: blobs, logger: logger)
                }
            }
            if configuration.orphanGrace != nil, blobs != nil, due(\.lastSweep, every: configuration.sweepInterval) {
                report.sweep = try await sweepOrphans()
            }
        } catch {
            logger.warning("maintenance failed", metadata: ["error": "\(DatabaseErrorText.describe(error))"])
        }
        return report
    }

    /// Removes the blob folders of jobs that do not exist and leftovers of interrupted writes,
    /// when older than the grace period (`orphanGrace`). A young folder may belong to an
    /// upload whose job row is being inserted right now, so it is left alone.
    public func sweepOrphans(now: Date = Date()) async throws -> SweepReport {
        guard let blobs, let grace = configuration.orphanGrace else { return SweepReport() }
        let cutoff = now.addingTimeInterval(-grace.seconds)
        var report = SweepReport()
        report.abandonedWrites = try await blobs.removeAbandonedWrites(olderThan: cutoff)
        let folders = try await blobs.folders(under: "jobs", changedBefore: cutoff)
        var byID: [UUID: String] = [:]
        for folder in folders {
            // Only folders named by a job id are the queue's to judge; anything else stays.
            if let id = UUID(uuidString: String(folder.dropFirst("jobs/".count))) { byID[id] = folder }
        }
        let ids = Array(byID.keys)
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            let missing = try await queue.missingJobs(Array(ids[start..<min(start + 1_000, ids.count)]))
            for id in missing {
                guard let folder = byID[id] else { continue }
                do {
                    try await blobs.deleteAll(under: folder)
                    report.orphanFolders.append(folder)
                } catch {
                    logger.warning("could not remove an orphaned job folder; the next sweep tries again",
                                   metadata: ["folder": "\(folder)", "error": "\(error)"])
                }
            }
        }
        report.orphanFolders.sort()
        if !report.orphanFolders.isEmpty || report.abandonedWrites > 0 {
            logger.info("swept orphaned blobs", metadata: [
                "job_folders": "\(report.orphanFolders.count)", "abandoned_writes": "\(report.abandonedWrites)"])
        }
        return report
    }

    /// Gives the lead to another process (on shutdown).
    public func resign() async {
        await leader.resign()
    }

    public var isLeader: Bool {
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
