import AtelierAPI
import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation

/// A succeeded analysis's HTML report: the blob its result names (`result_blob`).
enum MondrianReport {
    /// The report's text, or nil when the job has no report (not an analysis, not finished) or
    /// the blob is gone (purged).
    static func html(of job: Job, blobs: any BlobStore) async throws -> String? {
        guard job.kind == AnalysisJob.kind, job.state == .succeeded, let result = job.result,
              let report = try? ContractJSON.decode(AnalysisJob.Result.self, from: result),
              let key = try? BlobKey(report.resultBlob), try await blobs.info(key) != nil else { return nil }
        return String(decoding: try await blobs.read(key), as: UTF8.self)
    }
}
