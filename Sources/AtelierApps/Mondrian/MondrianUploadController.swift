import AtelierAPI
import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierVision
import Foundation
import Hummingbird
import NIOCore

/// Mondrian's `POST /upload` (docs/clients.md §2), multipart: `image` (file), `advisor` (an id,
/// `all`, `random`, or ids separated by commas), `auto_analyze` (default `true`), and
/// `auto_index` (default `false`: the app indexes with `POST /index` after the analysis).
///
/// With `auto_analyze=true` the image becomes an `analysis` job; with `false` an `upload` job
/// keeps it for later (`/index`, `/image/source/…`). `auto_index=true` chains an `index` job
/// that is enqueued when that job succeeds and reuses the analysis's caption (a follow-up: see
/// ``FollowUp``). Answers `{job_id, filename, advisor, advisors_used, status: "queued",
/// status_url, stream_url}` with absolute URLs; `filename` is the signed name the image is
/// served under. `Idempotency-Key` is honoured as on `/v1/jobs`.
struct MondrianUploadController: Sendable {
    let queue: JobQueue
    let intake: JobIntake
    let signer: URLSigner
    let base: PublicBaseURL
    let maxUploadBytes: Int

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("upload", use: upload)
    }

    struct Answer: Encodable {
        var job_id: String
        var filename: String
        var advisor: String
        var advisors_used: [String]
        var status: String
        var status_url: String
        var stream_url: String
    }

    static let fields: Set<String> = ["advisor", "auto_analyze", "auto_index"]

    @Sendable func upload(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        try intake.refuseUploadIfProbesFull(request)
        let body = try await RequestBodies.collect(request, limit: maxUploadBytes)
        guard JobSubmission.isMultipartForm(request.headers[.contentType]) else {
            throw APIError.unsupportedMediaType("send the image as multipart/form-data with an 'image' file part")
        }
        let form = try JobSubmission.parse(contentType: request.headers[.contentType], body: body)
        var unknownFields = form.options.keys.filter { !Self.fields.contains($0) }.sorted()
        if form.kind != nil { unknownFields.insert("kind", at: 0) }
        if let unknown = unknownFields.first {
            throw APIError.validation("unknown field '\(unknown.prefix(40))'; send image, advisor, auto_analyze and auto_index", field: unknown)
        }
        guard let image = form.image, !image.isEmpty else {
            throw APIError.validation("image is required: a JPEG, PNG, HEIC or WebP file part named 'image'", field: "image")
        }
        guard let advisor = form.options["advisor"]?.string?.trimmingCharacters(in: .whitespaces), !advisor.isEmpty else {
            throw APIError.validation("advisor is required: an advisor id, all, random, or ids separated by commas", field: "advisor")
        }
        let analyze = try Self.flag(form.options["auto_analyze"], name: "auto_analyze", default: true)
        let index = try Self.flag(form.options["auto_index"], name: "auto_index", default: false)
        let format = try await intake.probe(image).format
        let id = JobID.make()
        let stem = MondrianFilename.stem(fromClientName: form.imageFilename)
        let imagePath = "source/" + MondrianFilename(stem: stem, jobID: id, fileExtension: format.fileExtension).text(signedBy: signer)
        var followUps: [FollowUp] = []
        if index, intake.kinds[IndexJob.kind] != nil {
            followUps.append(try intake.followUp(IndexJob.self, .image(ofJob: id, imagePath: imagePath)))
        }
        var options: JSONObject = ["source_name": .string(stem)]
        let chosen: [String]
        do {
            chosen = try AnalysisJob(roster: Advisor.all.map(\.id)).advisors(choosing: .string(advisor))
        } catch {
            throw APIError.validation(error)
        }
        if analyze {
            options["advisor"] = .string(chosen.joined(separator: ","))
        }
        let accepted = try await intake.accept(JobSubmission(kind: analyze ? "analysis" : "upload", options: options, image: image),
                                               owner: principal.owner, anonymous: principal.isAnonymous,
                                               idempotencyKey: request.headers[.idempotencyKey],
                                               requestID: context.requestID, logger: context.logger, id: id, followUps: followUps)
        let job = try await queue.job(id: accepted.id, owner: principal.owner)
        guard let upload = MondrianUpload(job) else {
            throw APIError.conflict("the Idempotency-Key names an earlier job that has no uploaded image")
        }
        let jobID = job.id.uuidString.lowercased()
        let base = self.base.value(for: request)
        var response = try JSONResponse.encode(Answer(
            job_id: jobID, filename: upload.filename(signer), advisor: advisor,
            advisors_used: analyze || !accepted.created ? upload.advisors : chosen,
            status: "queued", status_url: "\(base)/status/\(jobID)", stream_url: "\(base)/stream/\(jobID)"))
        response.headers[.location] = "\(base)/status/\(jobID)"
        if !accepted.created { response.headers[.idempotentReplayed] = "true" }
        return response
    }

    /// `true`/`false` (also 1/0, yes/no, on/off); absent → `fallback`.
    static func flag(_ value: JSONValue?, name: String, default fallback: Bool) throws -> Bool {
        guard let value else { return fallback }
        switch value.string?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        case "": return fallback
        default: throw APIError.validation("\(name) must be true or false", field: name)
        }
    }
}
