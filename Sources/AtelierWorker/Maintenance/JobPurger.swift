import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// Deletes finished jobs past their retention, with their events and their blob folders
/// (inputs and results). Run by the maintenance leader, and by `atelier jobs purge`.
package struct JobPurger: Sendable {
    let queue: JobQueue
    let blobs: (any BlobStore)?
    let logger: Logger

    package init(queue: JobQueue, blobs: (any BlobStore)?, logger: Logger) {
        self.queue = queue
        self.blobs = blobs
        self.logger = logger
    }

    /// Purges the jobs that finished more than `olderThan` ago and removes their folders;
    /// returns the ids purged.
    package func purge(olderThan: Duration) async throws -> [UUID] {
        let purged = try await queue.maintenance.purgeFinished(olderThan: olderThan)
        await Self.removeBlobs(of: purged, from: blobs, logger: logger)
        return purged
    }

    /// Removes the blob folders of purged jobs (``BlobStore/removeFolders(ofDeletedJobs:logger:)``).
    package static func removeBlobs(of jobs: [UUID], from blobs: (any BlobStore)?, logger: Logger) async {
        await blobs?.removeFolders(ofDeletedJobs: jobs, logger: logger)
    }
}
