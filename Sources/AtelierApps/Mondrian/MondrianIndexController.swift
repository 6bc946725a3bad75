import AtelierAPI
import AtelierEmbeddings
import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird

/// Mondrian's `POST /index {job_id, image_path: "source/<filename>"}` (docs/clients.md §2) →
/// `{success, id, caption, embedding_dim: 384}`: indexes the image of one of the caller's
/// uploads for `/search`, with the caption the analysis wrote (or the vision provider's, for an
/// upload kept without analysis).
///
/// `image_path` must be the upload's own (`source/` + the `filename` `/upload` answered); `..`
/// or any other path is a 400, another owner's job a 404. The work is an `index` job (a child
/// of the upload): one already chained by `auto_index`, or still running, is waited for
/// rather than repeated; a finished one is answered at once. The route waits on the job's
/// completion notification for up to `ATELIER_CAPTION_TIMEOUT`, then answers 504 — the job
/// goes on, and calling `/index` again answers its result.
struct MondrianIndexController: Sendable {
    let queue: JobQueue
    let intake: JobIntake
    let waiter: JobCompletionWaiter
    let signer: URLSigner
    let encoder: MiniLMEncoder?
    let timeout: Duration

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("index", use: index)
    }

    struct Answer: Encodable {
        var success = true
        var id: String
        var caption: String
        var embedding_dim: Int
    }

    @Sendable func index(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let object = try await JSONBody.object(
            request, limit: 16 * 1024,
            refusal: .validation("the body must be JSON: {\"job_id\": \"…\", \"image_path\": \"source/<filename>\"}", field: "body"))
        if let unknown = JSONBody.unknownField(in: object, allowed: ["job_id", "image_path"]) {
            throw APIError.validation("unknown field '\(unknown.prefix(40))'; send job_id and image_path", field: unknown)
        }
        guard let jobText = object["job_id"]?.string, !jobText.isEmpty else {
            throw APIError.validation("job_id is required: the job_id /upload answered", field: "job_id")
        }
        guard let imagePath = object["image_path"]?.string, !imagePath.isEmpty else {
            throw APIError.validation("image_path is required: \"source/\" + the filename /upload answered", field: "image_path")
        }
        guard !imagePath.contains(".."), !imagePath.hasPrefix("/"), !imagePath.contains("\\") else {
            throw APIError.validation("image_path must be source/<filename> (no '..', no absolute paths)", field: "image_path")
        }
        guard let jobID = UUID(uuidString: jobText) else { throw APIError.notFound("no job with id '\(jobText.prefix(64))'") }
        let job: Job
        do {
            job = try await queue.job(id: jobID, owner: principal.owner)
        } catch QueueError.jobNotFound {
            throw APIError.jobNotFound(jobID)
        }
        guard let upload = MondrianUpload(job) else {
            // A job of the caller's that is not an upload: there is no upload with that id.
            throw APIError.notFound("no upload with id \(jobText.lowercased()): job_id must be the job_id /upload answered")
        }
        let ownPath = upload.imagePath(signer)
        guard imagePath == ownPath else {
            // Well formed, but no image of this upload is there.
            throw APIError.notFound("no image at that image_path for this upload; it is \(ownPath)")
        }
        guard encoder != nil, intake.kinds[IndexJob.kind] != nil else {
            throw APIError.unavailable("indexing is not available: ATELIER_MODEL_DIR is not set on this API process")
        }
        var indexJob = try await currentIndexJob(of: job)
        if indexJob == nil {
            let admission = try await intake.admit(owner: job.owner)
            indexJob = try await intake.enqueue(IndexJob.self, .image(ofJob: job.id, imagePath: imagePath), admitted: admission,
                                                requestID: context.requestID, priority: Priority.interactive, parentID: job.id)
        }
        guard let indexJob else { throw APIError.internal(context.requestID) }
        guard let finished = try await waiter.finished(indexJob, timeout: timeout) else {
            throw APIError(.gatewayTimeout, "TimeoutError",
                           "indexing is still running (job \(indexJob.uuidString.lowercased())); call /index again for its result")
        }
        guard finished.state == .succeeded, let text = finished.result,
              let result = try? ContractJSON.decode(IndexJob.Result.self, from: text) else {
            throw APIError(.badGateway, "IndexError", "the image could not be indexed: \(finished.error ?? "the index job was \(finished.state.rawValue)")")
        }
        return try JSONResponse.encode(Answer(id: result.id.lowercased(), caption: result.text, embedding_dim: result.embeddingDim))
    }

    /// The upload's newest index job that succeeded or is still under way, if any.
    private func currentIndexJob(of job: Job) async throws -> UUID? {
        let children = try await queue.children(of: job.id).filter { $0.kind == IndexJob.kind }
        return children.last(where: { $0.state == .succeeded || !$0.state.isFinished })?.id
    }
}
