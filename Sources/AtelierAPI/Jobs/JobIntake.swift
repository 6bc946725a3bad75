import AtelierImaging
import AtelierJobs
import AtelierLanes
import AtelierQueue
import AtelierStorage
import Crypto
import Foundation
import Hummingbird
import Logging

/// Turns a checked submission into a stored input blob and a queued job, as one unit: the job
/// id names the blob, the blob is written first, and if the insert fails the blob is removed.
/// An idempotent replay stores nothing and answers the first job.
///
/// Every job the API makes comes through here: clients' submissions (``accept(_:owner:idempotencyKey:requestID:logger:id:followUps:)``,
/// checked by their kind's contract) and the jobs routes make on a caller's behalf
/// (``enqueue(_:_:admitted:requestID:priority:parentID:)``, typed payloads), each queued with its
/// kind's settings from the catalog. Each passes the owner's quotas (``OwnerQuotas``) once, in
/// ``admit(owner:incomingBytes:)``: a route that writes something of its own before its job (a
/// document, its reviews) is admitted first, and `enqueue` takes only an ``Admission``.
package struct JobIntake: Sendable {
    let queue: JobQueue
    let blobs: any BlobStore
    package let kinds: JobKindCatalog
    package let imageLimits: ImageLimits
    /// Where uploads' headers are probed (``ServerLanes/probes``).
    let probes: WorkLane
    var quotas = OwnerQuotas.off

    /// Leave to queue one job for `owner`: their quotas were checked, and the job counted, when
    /// it was made. Only ``JobIntake/admit(owner:incomingBytes:)`` makes one.
    package struct Admission: Sendable {
        package let owner: String
        fileprivate init(owner: String) { self.owner = owner }
    }

    /// Checks `owner`'s quotas for one more job with `incomingBytes` of uploaded image: 429
    /// `QuotaExceededError` past a limit. Call it before writing anything the job is for.
    package func admit(owner: String, incomingBytes: Int = 0) async throws -> Admission {
        try await quotas.check(owner: owner, incomingBytes: incomingBytes, queue: queue)
        return Admission(owner: owner)
    }

    package struct Accepted {
        package var id: UUID
        package var kind: String
        /// False when an earlier request with the same Idempotency-Key created the job, or the
        /// job is one this request's `unique` matched.
        package var created: Bool
        /// The job is an earlier one this request's `unique` matched.
        package var duplicate = false
    }

    /// Everyone without a credential shares one owner, and both keys are per owner: a key would
    /// hand one such caller another's job (whose view carries its result and thumbnail URLs), and
    /// a chosen key would let one pre-empt another's. So a caller without a credential may send
    /// neither: a 400 that says why, before anything is read or stored.
    static func refuseKeysWithoutCredential(idempotencyKey: String?, submission: JobSubmission) throws(APIError) {
        if idempotencyKey != nil {
            throw APIError.validation("Idempotency-Key needs a credential (X-App-Token or Authorization: Bearer): callers without one "
                + "share their keys, so a key could return another caller's job", field: "Idempotency-Key")
        }
        if submission.unique != nil {
            throw APIError.validation("unique needs a credential (X-App-Token or Authorization: Bearer): callers without one "
                + "share their keys, so a key could return another caller's job", field: "unique")
        }
    }

    /// `id` names the new job (callers that derive names from it make it first); `followUps`
    /// are enqueued when the job succeeds. `anonymous`: the caller proved no credential (an app
    /// in `ATELIER_ANONYMOUS_APPS`, open access), so may use neither key (``refuseKeysWithoutCredential``).
    package func accept(_ submission: JobSubmission, owner: String, anonymous: Bool, idempotencyKey: String?, requestID: String,
                logger: Logger, id: UUID = JobID.make(), followUps: [FollowUp] = []) async throws -> Accepted {
        if anonymous { try Self.refuseKeysWithoutCredential(idempotencyKey: idempotencyKey, submission: submission) }
        let (kind, payload, image) = try await validate(submission, id: id)
        if let idempotencyKey {
            guard !idempotencyKey.isEmpty, idempotencyKey.utf8.count <= 255 else {
                throw APIError.validation("Idempotency-Key must be 1–255 characters", field: "Idempotency-Key")
            }
            if let existing = try await queue.job(owner: owner, idempotencyKey: idempotencyKey) {
                return Accepted(id: existing.id, kind: existing.kind, created: false)
            }
        }
        _ = try await admit(owner: owner, incomingBytes: image?.bytes.count ?? 0)
        var stored: BlobKey?
        if let image {
            try await blobs.put(Data(image.bytes), at: image.key)
            stored = image.key
        }
        do {
            let result = try await queue.enqueue(NewJob(
                id: id, kind: kind.name, payload: payload, queue: kind.queue, priority: kind.priority, owner: owner,
                maxAttempts: kind.maxAttempts, idempotencyKey: idempotencyKey, requestID: requestID, followUps: followUps,
                timeout: submission.timeout, unique: submission.unique.map { unique in
                    UniqueJob(key: unique.key ?? Self.uniqueKey(kind: kind.name, submission: submission),
                              period: .milliseconds(Int64(unique.periodSeconds * 1000)))
                }))
            if !result.inserted {
                // Lost a race with an identical request, or a job this one duplicates: keep that
                // job, drop our blob.
                if stored != nil { try? await blobs.deleteAll(under: BlobKey.jobFolder(id)) }
                return Accepted(id: result.id, kind: kind.name, created: false, duplicate: result.duplicate)
            }
            return Accepted(id: id, kind: kind.name, created: true)
        } catch {
            guard stored != nil else { throw error }
            // Only a refusal proves that no job was created. An enqueue that got no answer (the
            // connection died, the server stopped) may have committed: the job then exists and
            // runs, and removing its input — or, once it ran, its result — would lose it. Its
            // folder stays; if the job does not exist, the orphan sweep removes it.
            guard Self.certainlyNotCreated(error) else {
                logger.warning("an enqueue got no answer; its input stays in case the job was created", metadata: [
                    "job": "\(id)", "error": "\(DatabaseErrorText.describe(error))"])
                throw error
            }
            do {
                try await blobs.deleteAll(under: BlobKey.jobFolder(id))
            } catch {
                logger.error("could not remove the input of a job that was not created", metadata: [
                    "job": "\(id)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Whether `error`, thrown by an enqueue, proves that no job was inserted: the queue refused
    /// the job before sending it, or the server answered with an error for the statement itself
    /// (its transaction rolled back). A lost connection, a server going away or not yet serving
    /// prove nothing: the commit may have happened before the answer was lost.
    static func certainlyNotCreated(_ error: any Error) -> Bool {
        if let error = error as? QueueError {
            if case .unreachable = error { return false }
            return true
        }
        return DatabaseErrorText.isRefusedStatement(error)
    }

    /// 503 at once, before the body is read, when `request` looks like an upload (a form, or a
    /// body larger than a job's options may be) and its probe would wait past the probes lane's
    /// deadline: reading 25 MB only to refuse it would spend the event loops every other request
    /// needs. The answer closes the connection, so the body is never read (``APIError/busy(_:closing:)``).
    /// The probe itself may still be refused once the body is in (then the same 503, and the
    /// connection stays open).
    package func refuseUploadIfProbesFull(_ request: Request) throws {
        let form = request.headers[.contentType]?.lowercased().hasPrefix("multipart/") ?? false
        let length = request.headers[.contentLength].flatMap { ByteRange.digits(Substring($0)) }
        guard form || length.map({ $0 > JobSubmission.maxOptionsBytes }) ?? true else { return }
        do {
            try probes.refuseIfFull()
        } catch {
            throw APIError.busy(error, closing: true)
        }
    }

    /// Format, size and limits from the header alone: a 100000×100000 PNG or a damaged file
    /// is refused before anything is stored, without decoding a pixel. In the probes lane (never
    /// the cooperative pool): a HEIC's boxes or a progressive JPEG's scans take a while to walk,
    /// linear in the upload's size.
    package func probe(_ bytes: [UInt8]) async throws -> ImageInfo {
        let limits = imageLimits
        let probed = try await probes.run { Result { () throws(ImageError) in try ImageCodec.probe(bytes, limits: limits) } }
        switch probed {
        case .success(let info):
            return info
        case .failure(.unsupportedFormat(let message)):
            throw APIError.unsupportedMediaType(message + " (checked from its bytes; JPEG, PNG, HEIC and WebP are accepted)")
        case .failure(.tooLarge(let message)):
            throw APIError(.contentTooLarge, "PayloadTooLargeError", message,
                           details: ["field": "image", "max_pixels": String(limits.maxPixels), "max_side": String(limits.maxDimension)])
        case .failure(let error):
            throw APIError.validation(error.message, field: "image")
        }
    }

    /// Queues a job the API makes on a caller's behalf (a document's index job, Mondrian's
    /// `/index`) for the owner `admitted` names, with its kind's settings; `priority` overrides
    /// the kind's. 503 when this server does not accept the kind.
    package func enqueue<Contract: JobContract>(_ contract: Contract.Type, _ payload: Contract.Payload, admitted: Admission,
                                                requestID: String, priority: Int? = nil, parentID: UUID? = nil) async throws -> UUID {
        let kind = try served(contract)
        return try await queue.enqueue(NewJob(
            kind: kind.name, payload: try ContractJSON.text(payload), queue: kind.queue, priority: priority ?? kind.priority,
            owner: admitted.owner, maxAttempts: kind.maxAttempts, requestID: requestID, parentID: parentID)).id
    }

    /// A job to queue when another succeeds (see ``FollowUp``), with its kind's settings.
    package func followUp<Contract: JobContract>(_ contract: Contract.Type, _ payload: Contract.Payload) throws -> FollowUp {
        let kind = try served(contract)
        return FollowUp(kind: kind.name, payload: try ContractJSON.text(payload), queue: kind.queue, priority: kind.priority,
                        maxAttempts: kind.maxAttempts)
    }

    private func served<Contract: JobContract>(_ contract: Contract.Type) throws -> JobKind {
        guard let kind = kinds[Contract.kind] else {
            throw APIError.unavailable("\(Contract.kind) jobs are not accepted by this server")
        }
        return kind
    }

    /// A submission's uploaded image: its bytes, and the key it is stored under.
    private struct StoredImage {
        var bytes: [UInt8]
        var key: BlobKey
    }

    /// A unique job's key when the request names none: SHA-256 of the kind, the options (keys
    /// sorted) and the image's bytes — what the job will work on, not the job's own id.
    static func uniqueKey(kind: String, submission: JobSubmission) -> String {
        var hash = SHA256()
        hash.update(data: Array(kind.utf8) + [0])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        hash.update(data: (try? encoder.encode(submission.options)) ?? Data())
        hash.update(data: [0])
        if let image = submission.image { hash.update(data: Array(SHA256.hash(data: image))) }
        return "sha256:" + HeaderText.hex(hash.finalize())
    }

    /// The kind, the payload's JSON text (the kind's contract checks the options) and the image.
    private func validate(_ submission: JobSubmission, id: UUID) async throws -> (JobKind, String, StoredImage?) {
        guard let name = submission.kind ?? (submission.options["style_id"] != nil ? StylizeJob.kind : nil), !name.isEmpty else {
            throw APIError.validation("kind is required; one of: \(kinds.names.joined(separator: ", "))", field: "kind")
        }
        guard let kind = kinds[name] else {
            throw APIError.validation("unknown kind '\(name.prefix(64))'; one of: \(kinds.names.joined(separator: ", "))", field: "kind")
        }
        var image: StoredImage?
        var input: BlobInput?
        if let bytes = submission.image {
            guard !bytes.isEmpty else { throw APIError.validation("the image is empty", field: "image") }
            let format = try await probe(bytes).format
            let key = BlobKey.jobInput(id, fileExtension: format.fileExtension)
            image = StoredImage(bytes: bytes, key: key)
            input = BlobInput(blob: key.path, format: format.rawValue, contentType: format.mimeType, bytes: bytes.count)
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
        if let path = JSONValue.object(submission.options).nulPath(at: "options") {
            // PostgreSQL's jsonb cannot hold U+0000: refuse it here rather than fail the insert.
            throw APIError.validation("\(path) contains a NUL character", field: path)
        }
        let size = (try? JSONEncoder().encode(submission.options).count) ?? 0
        guard size <= JobSubmission.maxOptionsBytes else {
            throw APIError.validation("options are larger than \(JobSubmission.maxOptionsBytes) bytes", field: "options")
        }
        do {
            return (kind, try kind.payload(submission.options, input), image)
        } catch let error as JobOptionsError {
            throw APIError.validation(error)
        }
    }
}
