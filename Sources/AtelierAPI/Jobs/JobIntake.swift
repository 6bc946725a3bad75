import AtelierImaging
import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// Turns a checked submission into a stored input blob and a queued job, as one unit: the job
/// id names the blob, the blob is written first, and if the insert fails the blob is removed.
/// An idempotent replay stores nothing and answers the first job.
struct JobIntake: Sendable {
    let queue: JobQueue
    let blobs: any BlobStore
    let kinds: JobKindCatalog
    let imageLimits: ImageLimits
    var quotas = OwnerQuotas.off

    struct Accepted {
        var id: UUID
        var kind: String
        /// False when an earlier request with the same Idempotency-Key created the job.
        var created: Bool
    }

    /// `id` names the new job (callers that derive names from it make it first); `followUps`
    /// are enqueued when the job succeeds.
    func accept(_ submission: JobSubmission, owner: String, idempotencyKey: String?, requestID: String,
                logger: Logger, id: UUID = JobID.make(), followUps: [FollowUp] = []) async throws -> Accepted {
        let (kind, options, image) = try validate(submission)
        if let idempotencyKey {
            guard !idempotencyKey.isEmpty, idempotencyKey.utf8.count <= 255 else {
                throw APIError.validation("Idempotency-Key must be 1–255 characters", field: "Idempotency-Key")
            }
            if let existing = try await queue.job(owner: owner, idempotencyKey: idempotencyKey) {
                return Accepted(id: existing.id, kind: existing.kind, created: false)
            }
        }
        try await quotas.check(owner: owner, incomingBytes: image?.0.count ?? 0, queue: queue)
        var payload = options
        var stored: BlobKey?
        if let (bytes, format) = image.map({ ($0.0, $0.1) }) {
            let key = BlobKey.jobInput(id, fileExtension: format.fileExtension)
            try await blobs.put(Data(bytes), at: key)
            stored = key
            payload["input"] = ["blob": key.path, "format": format.rawValue, "content_type": format.mimeType, "bytes": bytes.count]
        }
        do {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), as: UTF8.self)
            let result = try await queue.enqueue(NewJob(
                id: id, kind: kind.name, payload: json, queue: kind.queue, priority: kind.priority, owner: owner,
                maxAttempts: kind.maxAttempts, idempotencyKey: idempotencyKey, requestID: requestID, followUps: followUps))
            if !result.inserted {
                // Lost a race with an identical request: keep its job, drop our blob.
                if stored != nil { try? await blobs.deleteAll(under: BlobKey.jobFolder(id)) }
                return Accepted(id: result.id, kind: kind.name, created: false)
            }
            return Accepted(id: id, kind: kind.name, created: true)
        } catch {
            if stored != nil {
                do {
                    try await blobs.deleteAll(under: BlobKey.jobFolder(id))
                } catch {
                    logger.error("could not remove the input of a job that was not created", metadata: [
                        "job": "\(id)", "error": "\(error)"])
                }
            }
            throw error
        }
    }

    /// Format, size and limits from the header alone: a 100000×100000 PNG or a damaged file
    /// is refused before anything is stored, without decoding a pixel.
    static func probe(_ bytes: [UInt8], limits: ImageLimits) throws -> ImageInfo {
        do {
            return try ImageCodec.probe(bytes, limits: limits)
        } catch .unsupportedFormat(let message) {
            throw APIError.unsupportedMediaType(message + " (checked from its bytes; JPEG, PNG, HEIC and WebP are accepted)")
        } catch .tooLarge(let message) {
            throw APIError(.contentTooLarge, "PayloadTooLargeError", message,
                           details: ["field": "image", "max_pixels": String(limits.maxPixels), "max_side": String(limits.maxDimension)])
        } catch {
            throw APIError.validation(error.message, field: "image")
        }
    }

    private func validate(_ submission: JobSubmission) throws -> (JobKind, [String: Any], ([UInt8], ImageFormat)?) {
        guard let name = submission.kind ?? (submission.options["style_id"] != nil ? "stylize" : nil), !name.isEmpty else {
            throw APIError.validation("kind is required; one of: \(kinds.names.joined(separator: ", "))", field: "kind")
        }
        guard let kind = kinds[name] else {
            throw APIError.validation("unknown kind '\(name.prefix(64))'; one of: \(kinds.names.joined(separator: ", "))", field: "kind")
        }
        var image: ([UInt8], ImageFormat)?
        if let bytes = submission.image {
            guard !bytes.isEmpty else { throw APIError.validation("the image is empty", field: "image") }
            image = (bytes, try Self.probe(bytes, limits: imageLimits).format)
        }
        switch kind.image {
        case .required where image == nil:
            throw APIError.validation("a \(kind.name) job needs an image", field: "image")
        case .none where image != nil:
            throw APIError.validation("a \(kind.name) job takes no image", field: "image")
        default:
            break
        }
        if submission.options["input"] != nil {
            throw APIError.validation("'input' is reserved for the uploaded image", field: "options.input")
        }
        let size = (try? JSONSerialization.data(withJSONObject: submission.options).count) ?? 0
        guard size <= JobSubmission.maxOptionsBytes else {
            throw APIError.validation("options are larger than \(JobSubmission.maxOptionsBytes) bytes", field: "options")
        }
        try kind.validate(submission.options)
        try kind.validateWithImage?(submission.options, image != nil)
        return (kind, try kind.prepare?(submission.options) ?? submission.options, image)
    }
}
