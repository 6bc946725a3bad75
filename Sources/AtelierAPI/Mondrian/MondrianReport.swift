import AtelierQueue
import AtelierStorage
import Foundation

/// A succeeded analysis's HTML report: the blob its result names (`result_blob`).
enum MondrianReport {
    /// The report's text, or nil when the job has no report (not an analysis, not finished) or
    /// the blob is gone (purged).
    static func html(of job: Job, blobs: any BlobStore) async throws -> String? {
        guard job.kind == "analysis", job.state == .succeeded, let result = job.result,
              let object = MondrianJobData.object(result), let path = object["result_blob"] as? String,
              let key = try? BlobKey(path), try await blobs.info(key) != nil else { return nil }
        return String(decoding: try await blobs.read(key), as: UTF8.self)
    }
}
