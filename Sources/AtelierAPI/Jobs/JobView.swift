import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation

/// A job as clients see it. `status` is exactly docs/clients.md §3.2's `pending|succeeded|failed`
/// (queued and running are pending; cancelled is failed, with an error); `state` is the
/// queue's own state for clients that want more. Absent values are `null`, never omitted.
struct JobView: Encodable {
    var id: String
    var kind: String
    var status: String
    var state: String
    var progress: Int
    @NullWhenAbsent var progressStep: String?
    /// The job's result as its handler wrote it (each kind's `Result` in AtelierJobs), passed through.
    @NullWhenAbsent var result: JSONValue?
    @NullWhenAbsent var resultURL: String?
    /// A signed variant URL of the job's image result, or else of its uploaded photo: 512 px
    /// square, cropped around its subject, AVIF, WebP or JPEG by the request's `Accept`
    /// (``VariantParameters/thumbnail``); null when the job has neither.
    @NullWhenAbsent var thumbnailURL: String?
    /// The ThumbHash placeholder (base64) of the image `thumbnail_url` shows, once a worker has
    /// made it (the result's `thumbhash`); null before.
    @NullWhenAbsent var thumbhash: String?
    @NullWhenAbsent var error: String?
    var attempt: Int
    var maxAttempts: Int
    @NullWhenAbsent var requestID: String?
    @NullWhenAbsent var parentID: String?
    var createdAt: Date
    @NullWhenAbsent var startedAt: Date?
    @NullWhenAbsent var finishedAt: Date?
    var statusURL: String
    var streamURL: String

    enum CodingKeys: String, CodingKey {
        case id, kind, status, state, progress, result, error, attempt
        case progressStep = "progress_step", resultURL = "result_url", thumbnailURL = "thumbnail_url", thumbhash, maxAttempts = "max_attempts"
        case requestID = "request_id", parentID = "parent_id", createdAt = "created_at", startedAt = "started_at"
        case finishedAt = "finished_at", statusURL = "status_url", streamURL = "stream_url"
    }

    init(_ job: Job, baseURL: String, links: DownloadLinks, now: Date = Date()) {
        let id = job.id.uuidString.lowercased()
        self.id = id
        kind = job.kind
        state = job.state.rawValue
        switch job.state {
        case .queued, .running: status = "pending"
        case .succeeded: status = "succeeded"
        case .failed, .cancelled: status = "failed"
        }
        progress = job.progress
        progressStep = job.progressStep
        // A failed job's result is what its handler said of the failure, for the API alone.
        result = job.state == .failed ? nil : job.result.flatMap { try? JSONValue.parse(Data($0.utf8)) }
        let fields = ResultFields.of(result: job.result)
        let resultKey = job.state == .succeeded ? fields?.resultBlob.flatMap { try? BlobKey($0) } : nil
        if let resultKey { resultURL = links.url(for: resultKey, apiBase: baseURL, now: now) }
        // The result when it is an image, else the photo the job was given (analysis, caption…),
        // unless that photo never decoded: its job failed saying so.
        let inputKey = fields?.inputUnreadable == true ? nil : BlobInput.of(payload: job.payload).flatMap { try? BlobKey($0.blob) }
        if let photo = [resultKey, inputKey].compactMap({ $0 }).first(where: { VariantsController.jobFolder(of: $0) != nil }) {
            thumbnailURL = baseURL + links.signer.signedVariantPath(for: photo, parameters: VariantParameters.thumbnail.canonical, now: now)
            thumbhash = job.state == .succeeded ? fields?.thumbhash : nil
        }
        switch job.state {
        case .failed: error = job.error ?? "the job failed"
        case .cancelled: error = job.error.map { $0 == "cancelled" ? "the job was cancelled" : "the job was cancelled: \($0)" } ?? "the job was cancelled"
        default: error = nil
        }
        attempt = job.attempt
        maxAttempts = job.maxAttempts
        requestID = job.requestID
        parentID = job.parentID?.uuidString.lowercased()
        createdAt = job.createdAt
        startedAt = job.startedAt
        finishedAt = job.finishedAt
        statusURL = "\(baseURL)/v1/jobs/\(id)"
        streamURL = "\(baseURL)/v1/jobs/\(id)/events"
    }
}
