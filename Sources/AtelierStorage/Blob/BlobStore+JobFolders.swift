import Foundation
import Logging

extension BlobStore {
    /// Removes the folders (inputs and results) of jobs that were deleted: a purge's second half.
    /// A failure is logged, not thrown: the folder belongs to no job now, so the maintenance
    /// leader's orphan sweep removes it later.
    package func removeFolders(ofDeletedJobs jobs: [UUID], logger: Logger) async {
        for id in jobs {
            do {
                try await deleteAll(under: BlobKey.jobFolder(id))
            } catch {
                logger.warning("could not remove a purged job's files", metadata: ["job": "\(id)", "error": "\(error)"])
            }
        }
    }
}
