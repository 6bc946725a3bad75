import AtelierAPI
import AtelierJobs
import AtelierLanes
import AtelierQueue
import AtelierStorage
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// `POST /api/generateCaption {imageData: base64, mimeType}` (docs/clients.md §1, the caption app's
/// API): checks the request, enqueues a high-priority `caption` job with the image, waits for
/// the job's completion notification (no polling loop), and answers the app's response shape.
/// The image is deleted when the job ends. Every other method is `METHOD_001`; more than the
/// configured requests per minute from one client IP is `RATE_001` (with `X-RateLimit-*` headers).
struct GenerateCaptionController: Sendable {
    let queue: JobQueue
    let intake: JobIntake
    let hub: EventHub
    let blobs: any BlobStore
    let authenticator: Authenticator
    let limiter: RateLimiter?
    let timeout: Duration

    static let path = "api/generateCaption"
    /// The app's limit: 5 MB of base64.
    static let maxBase64Characters = 5 * 1024 * 1024
    static let mimeTypes: Set<String> = ["image/jpeg", "image/jpg", "image/png", "image/webp", "image/heic", "image/heif"]

    func register(on router: Router<APIRequestContext>) {
        router.post(RouterPath(Self.path), use: generate)
        for method in [HTTPRequest.Method.get, .put, .delete, .patch, .head, .options] {
            router.on(RouterPath(Self.path), method: method) { @Sendable _, _ in
                Self.response(for: CaptionFailure(.method, "use POST for /api/generateCaption", headers: [.allow: "POST"]))
            }
        }
    }

    struct Success: Encodable {
        struct DataPart: Encodable {
            var caption: String
            var provider: String
            var model: String
            var confidence: String
            var usage: CaptionJob.Usage?
            var processingTime: String
            var requestId: String
        }
        struct Metadata: Encodable {
            var timestamp: String
            var provider: String
            var requestId: String
            var processingTime: Int
            var imageSize: Int
            var mimeType: String
        }
        var success = true
        var data: DataPart
        var metadata: Metadata
    }

    @Sendable func generate(_ request: Request, context: APIRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let requestID = Self.makeRequestID()
        var rateHeaders: HTTPFields = [:]
        do {
            if let limiter {
                let decision = limiter.take("caption-ip:" + context.clientAddress)
                rateHeaders = [.xRateLimitLimit: String(decision.limit), .xRateLimitRemaining: String(decision.remaining),
                               .xRateLimitReset: String(decision.resetAt)]
                guard decision.allowed else {
                    rateHeaders[.retryAfter] = String(decision.retryAfter)
                    throw CaptionFailure(.rateLimit, "too many requests: the limit is \(decision.limit) per minute; retry in \(decision.retryAfter) s")
                }
            }
            let owner = try await authenticate(request, from: context.clientAddress)
            let (bytes, mimeType) = try await readImage(request)
            let accepted: JobIntake.Accepted
            do {
                accepted = try await intake.accept(JobSubmission(kind: "caption", options: [:], image: bytes), owner: owner,
                                                   anonymous: false, idempotencyKey: nil, requestID: requestID, logger: context.logger)
            } catch let error as APIError {
                throw CaptionFailure(.validation, error.message)
            }
            let job = try await finished(accepted.id)
            try? await blobs.deleteAll(under: BlobKey.jobFolder(accepted.id))
            guard job.state == .succeeded, let result = job.result,
                  let output = try? ContractJSON.decode(CaptionJob.Result.self, from: result) else {
                throw CaptionFailure(.provider, "the caption could not be generated: \(job.error ?? "the job was \(job.state.rawValue)")")
            }
            let elapsed = Self.milliseconds(ContinuousClock.now - started)
            let body = Success(
                data: .init(caption: output.caption, provider: output.provider, model: output.model, confidence: output.confidence,
                            usage: output.usage, processingTime: "\(elapsed)ms", requestId: requestID),
                metadata: .init(timestamp: CaptionTimestamp.now(), provider: output.provider, requestId: requestID,
                                processingTime: elapsed, imageSize: bytes.count, mimeType: mimeType))
            var response = try JSONResponse.encode(body)
            for field in rateHeaders { response.headers[field.name] = field.value }
            return response
        } catch var failure as CaptionFailure {
            for field in rateHeaders { failure.headers[field.name] = field.value }
            return Self.response(for: failure)
        } catch let busy as LaneFullError {
            // The image probes' lane is full: the app's own "try again later" (429 RATE_001).
            var failure = CaptionFailure(.rateLimit, busy.message)
            for field in rateHeaders { failure.headers[field.name] = field.value }
            failure.headers[.retryAfter] = String(busy.retryAfterSeconds)
            return Self.response(for: failure)
        } catch {
            context.logger.error("caption request failed", metadata: ["request": "\(requestID)", "error": "\(error)"])
            var failure = CaptionFailure(.provider, "the caption service failed; retry the request")
            for field in rateHeaders { failure.headers[field.name] = field.value }
            return Self.response(for: failure)
        }
    }

    /// The caller's owner, as ``Authenticator/identify(_:app:from:)`` decides for this app's route.
    private func authenticate(_ request: Request, from address: String) async throws -> String {
        let credential = Authenticator.credential(xAppToken: request.headers[.xAppToken], authorization: request.headers[.authorization])
        switch try await authenticator.identify(credential, app: CaptionApp.anonymousName, from: address) {
        case .principal(let principal):
            return principal.owner
        case .missing:
            throw CaptionFailure(.auth, "Authentication failed: send your app token in the X-App-Token header")
        case .invalid:
            throw CaptionFailure(.auth, "Authentication failed: the app token is not valid or has been revoked")
        case .throttled(let decision):
            let what = credential == nil ? "anonymous requests" : "unauthenticated requests"
            var failure = CaptionFailure(.rateLimit, "too many \(what): retry in \(decision.retryAfter) s")
            failure.headers[.retryAfter] = String(decision.retryAfter)
            throw failure
        }
    }

    private func readImage(_ request: Request) async throws -> ([UInt8], String) {
        let body: ByteBuffer
        do {
            body = try await RequestBodies.collect(request, limit: Self.maxBase64Characters + 64 * 1024)
        } catch {
            throw CaptionFailure(.validation, "imageData is larger than 5 MB of base64")
        }
        guard let object = JSONBody.object(body) else {
            throw CaptionFailure(.validation, "the body must be JSON: {\"imageData\": \"<base64>\", \"mimeType\": \"image/jpeg\"}")
        }
        guard var encoded = object["imageData"]?.string, !encoded.isEmpty else {
            throw CaptionFailure(.validation, "imageData is required (the image in base64)")
        }
        guard let mimeType = object["mimeType"]?.string?.lowercased(), !mimeType.isEmpty else {
            throw CaptionFailure(.validation, "mimeType is required (image/jpeg, image/png, image/webp or image/heic)")
        }
        guard Self.mimeTypes.contains(mimeType) else {
            throw CaptionFailure(.validation, "mimeType '\(mimeType.prefix(40))' is not supported; use image/jpeg, image/png, image/webp or image/heic")
        }
        if encoded.hasPrefix("data:"), let comma = encoded.firstIndex(of: ",") { encoded = String(encoded[encoded.index(after: comma)...]) }
        guard encoded.utf8.count <= Self.maxBase64Characters else {
            throw CaptionFailure(.validation, "imageData is larger than 5 MB of base64")
        }
        guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw CaptionFailure(.validation, "imageData is not valid base64")
        }
        let bytes = [UInt8](data)
        do {
            _ = try await intake.probe(bytes)
        } catch let error as APIError {
            throw CaptionFailure(.validation, "imageData is not a usable image: \(error.message)")
        }
        return (bytes, mimeType)
    }

    /// The job once it has finished; past `timeout` it is cancelled and the answer is AI_001.
    private func finished(_ id: UUID) async throws -> Job {
        let outcome = try await JobCompletionWaiter(queue: queue, hub: hub).finished(id, timeout: timeout)
        if let outcome { return outcome }
        _ = try? await queue.cancel(id: id, reason: "the caption request timed out")
        try? await blobs.deleteAll(under: BlobKey.jobFolder(id))
        throw CaptionFailure(.provider, "the caption provider timed out after \(Int(timeout.components.seconds)) s")
    }

    static func response(for failure: CaptionFailure) -> Response {
        var response = (try? JSONResponse.encode(failure.body, status: failure.code.status)) ?? Response(status: failure.code.status)
        for field in failure.headers { response.headers[field.name] = field.value }
        return response
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// `req_<unix ms>_<6 base-36 characters>`, as the app's examples show.
    static func makeRequestID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let suffix = String((0..<6).map { _ in alphabet.randomElement()! })
        return "req_\(Int(Date().timeIntervalSince1970 * 1000))_\(suffix)"
    }
}
