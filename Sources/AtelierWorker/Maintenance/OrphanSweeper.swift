import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// Removes the blob folders of jobs that do not exist (purged, or never inserted) and
/// leftovers of interrupted writes, once they are older than the grace period. A young folder
/// may belong to an upload whose job row is being inserted right now, so it is left alone.
struct OrphanSweeper: Sendable {
    /// What one sweep removed.
    struct Report: Sendable, Equatable {
        /// Job folders whose job does not exist (purged, or never inserted).
        var orphanFolders: [String] = []
        /// Leftovers of interrupted writes.
        var abandonedWrites = 0
    }

    let queue: JobQueue
    let blobs: any BlobStore
    let grace: Duration
    let logger: Logger

    func sweep(now: Date = Date()) async throws -> Report {
        let cutoff = now.addingTimeInterval(-grace.seconds)
        var report = Report()
        report.abandonedWrites = try await blobs.removeAbandonedWrites(olderThan: cutoff)
        let folders = try await blobs.folders(under: "jobs", changedBefore: cutoff)
        var byID: [UUID: String] = [:]
        for folder in folders {
            // Only folders named by a job id are the queue's to judge; anything else stays.
            if let id = UUID(uuidString: String(folder.dropFirst("jobs/".count))) { byID[id] = folder }
        }
        let ids = Array(byID.keys)
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            let missing = try await queue.maintenance.missingJobs(Array(ids[start..<min(start + 1_000, ids.count)]))
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
}
