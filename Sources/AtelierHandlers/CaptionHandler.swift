import AtelierImaging
import AtelierQueue
import AtelierStorage
import AtelierVision
import AtelierWorker
import Foundation

/// `caption`: the uploaded image → upright pixels at a working size → the configured
/// ``VisionProvider`` → `{caption, provider, model, confidence, usage?}`. The image is not kept:
/// its blob is deleted when the job ends — after a caption, after a permanent failure, and
/// after the last attempt (a retry needs it until then).
public struct CaptionHandler: JobHandler {
    public let kind = "caption"
    let blobs: any BlobStore
    let limits: ImageLimits
    let provider: any VisionProvider

    /// Long side of the pixels providers get: the measurements' analysis size (a remote model
    /// gets the original bytes). JPEGs decode straight to about this size by DCT scaling.
    static let workingSide = ImageMeasurements.analysisSize

    public init(blobs: any BlobStore, provider: any VisionProvider, limits: ImageLimits = ImageLimits()) {
        (self.blobs, self.provider, self.limits) = (blobs, provider, limits)
    }

    public var timeout: Duration? { .seconds(90) }

    struct Payload: Decodable {
        struct Input: Decodable { var blob: String; var content_type: String? }
        var input: Input
    }

    public func run(_ context: JobContext) async throws -> JobResult {
        do {
            let result = try await caption(context)
            await discardImage(context)
            return result
        } catch {
            let permanent = (error as? JobFailure)?.isPermanent ?? false
            if permanent || context.job.attempt >= context.job.maxAttempts { await discardImage(context) }
            throw error
        }
    }

    private func caption(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: Payload.self)
        try await context.progress(10, step: "reading")
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        try await context.progress(30, step: "decoding")
        let limits = self.limits
        let image: PixelBuffer = try await context.offload { _ in
            do {
                return try ImageCodec.decode(bytes, limits: limits, minimumLongSide: Self.workingSide).cappingLongSide(Self.workingSide)
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)")
            }
        }
        try context.checkCancellation()
        try await context.progress(50, step: "describing")
        let caption: Caption
        do {
            caption = try await provider.caption(VisionInput(image: image, encoded: bytes, mimeType: payload.input.content_type ?? "image/jpeg"))
        } catch {
            throw ProviderFailure.job(error, provider: provider.name, logger: context.logger)
        }
        return try .encode(CaptionJobResult(caption, width: image.width, height: image.height))
    }

    private func discardImage(_ context: JobContext) async {
        do {
            try await blobs.deleteAll(under: BlobKey.jobFolder(context.job.id))
        } catch {
            context.logger.warning("could not delete a caption job's image", metadata: ["job": "\(context.job.id)", "error": "\(error)"])
        }
    }
}
