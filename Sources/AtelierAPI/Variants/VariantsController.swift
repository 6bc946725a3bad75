import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierStorage
import Crypto
import Foundation
import Hummingbird

/// `GET /variants/KEY?w=…&h=…&fit=…&format=…&q=…&expires=…&signature=…`: a stored photo or
/// result, resized for a phone's screen. No credential: the signature (``URLSigner``, over the
/// key and the canonical parameters) is the credential, so a client can change no parameter.
///
/// The first request has a worker render the variant: it enqueues a `variant` job
/// (``AtelierJobs/VariantJob``, priority 100, unique per variant) and waits for it up to
/// `ATELIER_VARIANT_WAIT` (10 s; past it, 503 with `Retry-After`). The API process never decodes
/// an untrusted photo: it holds the signing and token secrets, and a decoder exploit there would
/// forge them. The worker stores the variant beside its source, in `jobs/<id>/variants/` (purged
/// with the job); every later request, on any API process, is answered from there, and the
/// hottest from memory (``VariantMemoryCache``). A photo that cannot be rendered is remembered
/// (``VariantFailures``, and the failed job): its URL answers 413, 422 or 404 at once from then on.
/// Answers carry a strong ETag (304 on If-None-Match), `Cache-Control: private,
/// max-age=<until expiry>, immutable` (what a URL names never changes) and, for `format=auto`,
/// `Vary: Accept`.
struct VariantsController: Sendable {
    let blobs: any BlobStore
    let signer: URLSigner
    let queue: JobQueue
    let waiter: JobCompletionWaiter
    /// How long a request waits for a worker to render its variant.
    let wait: Duration
    let limits: ImageLimits
    /// The hottest variants (``VariantMemoryCache``); the store holds them all.
    let memory: VariantMemoryCache
    /// URLs already verified (``VerifiedVariantURLs``): a repeat costs one lookup.
    let verified = VerifiedVariantURLs()
    /// Variants that cannot be made (``VariantFailures``).
    let failures = VariantFailures()

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("variants/**", use: variant)
        router.head("variants/**", use: variant)
    }

    /// The file names a variant may be made from: a job's uploaded photo and its image result.
    static let sourceNames: Set<String> = ["input", "result"]
    static let sourceExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "heic"]

    @Sendable func variant(_ request: Request, context: APIRequestContext) async throws -> Response {
        let memoKey = VerifiedVariantURLs.key(uri: request.uri.description, accept: request.headers[.accept])
        let url: VerifiedVariantURLs.Resolved
        switch verified.lookup(memoKey) {
        case .valid(let known):
            url = known
        case .expired:
            throw Self.expired
        case .unknown:
            url = try resolve(request, context: context)
            verified.store(memoKey, url)
        }
        let entry: VariantMemoryCache.Entry
        if let hit = memory.lookup(url.cached) {
            entry = hit
        } else if let failure = failures.lookup(url.cached) {
            throw answer(failure)
        } else if let kept = try await stored(url.cached) {
            entry = kept
        } else {
            entry = try await render(url)
        }
        let seconds = max(0, url.expires - Int(Date().timeIntervalSince1970))
        var response = try await BlobResponse.serve(entry.info, for: request, cacheControl: "private, max-age=\(seconds), immutable") { range in
            guard let range else { return entry.body }
            return entry.body.getSlice(at: entry.body.readerIndex + range.lowerBound, length: range.count) ?? ByteBuffer()
        }
        if url.variesByAccept { response.headers[.vary] = "Accept" }
        return response
    }

    static var expired: APIError { .forbidden("this variant URL has expired; fetch the job again for a fresh one") }

    /// Checks a variant URL — its key, its parameters, its signature and expiry — and works out
    /// what it asks for: the source, the encoding `Accept` chooses and where that variant is kept.
    func resolve(_ request: Request, context: APIRequestContext) throws -> VerifiedVariantURLs.Resolved {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        guard let key = try? BlobKey(path), let folder = Self.jobFolder(of: key) else {
            throw APIError.forbidden("this variant URL is not valid")
        }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        guard let expiresText = query["expires"], let expires = Int(expiresText), let signature = query["signature"] else {
            throw APIError.forbidden("this variant URL is not signed: it needs expires and signature")
        }
        let parameters = try VariantParameters(query: query)
        switch signer.verifyVariant(key: key, parameters: parameters.canonical, expires: expires, signature: signature) {
        case .invalid: throw APIError.forbidden("this variant URL's signature is not valid")
        case .expired: throw Self.expired
        case .valid: break
        }
        let encoding = parameters.encoding(accept: request.headers[.accept])
        return .init(source: key, cached: Self.cacheKey(source: key, folder: folder, parameters: parameters.canonical, encoding: encoding),
                     request: parameters.request(encoding), expires: expires, variesByAccept: parameters.format == .auto)
    }

    /// The variant as the store holds it (rendered earlier, perhaps by another process), now
    /// also kept in memory; nil when it was never rendered.
    func stored(_ cached: BlobKey) async throws -> VariantMemoryCache.Entry? {
        guard let info = try await blobs.info(cached) else { return nil }
        let bytes = try await read(cached)   // a purge may come between the two calls
        let entry = VariantMemoryCache.Entry(info: info, body: ByteBuffer(bytes: bytes))
        memory.store(entry)
        return entry
    }

    /// Has a worker render the variant `url` names (a `variant` job, unique per variant, so
    /// many requests at once make one), waits for it, and answers what it made or why it could
    /// not. The job's owner is `variants:` and the photo's owner: fair share serves each owner's
    /// thumbnails in turn, and an owner's job list does not show them.
    func render(_ url: VerifiedVariantURLs.Resolved) async throws -> VariantMemoryCache.Entry {
        guard let jobID = Self.jobID(of: url.source) else { throw APIError.notFound("this photo no longer exists") }
        let owner: String
        do {
            owner = try await queue.job(id: jobID).owner
        } catch QueueError.jobNotFound {
            throw APIError.notFound("this photo no longer exists")
        }
        let payload = VariantJob.Payload(source: url.source.path, target: url.cached.path, width: url.request.width,
                                         height: url.request.height, fit: url.request.fit.rawValue,
                                         format: url.request.format.rawValue, quality: url.request.quality)
        let enqueued = try await queue.enqueue(NewJob(
            kind: VariantJob.kind, payload: try ContractJSON.text(payload), priority: VariantJob.priority,
            owner: "variants:" + owner, maxAttempts: VariantJob.maxAttempts,
            unique: UniqueJob(key: url.cached.path, period: .seconds(24 * 3600))))
        guard let job = try await waiter.finished(enqueued.id, timeout: wait) else {
            throw APIError(.serviceUnavailable, "VariantPendingError", "this variant is being rendered; try again in a moment",
                           headers: [.retryAfter: "1"])
        }
        switch job.state {
        case .succeeded:
            guard let entry = try await stored(url.cached) else { throw APIError.notFound("this photo no longer exists") }
            return entry
        case .failed:
            // A failure the handler explained, or one it never returned from (a timeout, a
            // crash, attempt after attempt): either way this photo is not rendered again.
            let failure = job.result.flatMap { try? ContractJSON.decode(VariantJob.Failure.self, from: $0) }
                ?? VariantJob.Failure(status: 422, message: "this photo cannot be read")
            failures.store(failure, for: url.cached)
            throw answer(failure)
        default:
            throw APIError(.serviceUnavailable, "VariantPendingError", "this variant could not be rendered now; try again in a moment",
                           headers: [.retryAfter: "1"])
        }
    }

    /// The answer for a variant that cannot be made; a 413 names the limits.
    func answer(_ failure: VariantJob.Failure) -> APIError {
        guard failure.status == 413 else { return failure.apiError }
        return APIError(.contentTooLarge, "PayloadTooLargeError", failure.message,
                        details: ["max_pixels": String(limits.maxPixels), "max_side": String(limits.maxDimension)])
    }

    /// The job whose folder holds `key` (`jobs/<id>/…`).
    static func jobID(of key: BlobKey) -> UUID? {
        let segments = key.path.split(separator: "/")
        guard segments.count >= 2, segments[0] == "jobs" else { return nil }
        return UUID(uuidString: String(segments[1]))
    }

    /// The blob at `key`; a missing one is the client's 404 (its job was purged).
    private func read(_ key: BlobKey) async throws -> Data {
        do {
            return try await blobs.read(key)
        } catch StorageError.notFound {
            throw APIError.notFound("this photo no longer exists")
        }
    }

    /// `jobs/<id>` when `key` is a job's photo or image result, else nil.
    static func jobFolder(of key: BlobKey) -> String? {
        let segments = key.path.split(separator: "/")
        guard segments.count == 3, segments[0] == "jobs",
              let dot = segments[2].lastIndex(of: "."),
              sourceNames.contains(String(segments[2][..<dot])),
              sourceExtensions.contains(String(segments[2][segments[2].index(after: dot)...]).lowercased()) else { return nil }
        return "jobs/\(segments[1])"
    }

    /// Where a variant is kept: beside its source, named by a hash of the source's name, the
    /// parameters and the encoding chosen.
    static func cacheKey(source: BlobKey, folder: String, parameters: String, encoding: VariantFormat) -> BlobKey {
        let digest = SHA256.hash(data: Data("\(source.path)?\(parameters)&encoding=\(encoding.rawValue)".utf8))
        let name = HeaderText.hex(digest.prefix(12))
        // Safe by construction: a job folder checked above, hex, a fixed extension.
        return try! BlobKey("\(folder)/variants/\(name).\(encoding.fileExtension)")
    }
}
