import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierVision
import AtelierWorker
import Foundation

/// `caption`: the uploaded image → upright pixels at a working size → the configured
/// ``VisionProvider`` → `{caption, provider, model, confidence, usage?}`. The handler leaves the
/// image in place: a worker killed between the caption and the record of its success must find
/// it again on the rerun (`./ops/chaos` lost jobs that way when the handler deleted it). The
/// caption API removes it once the job's end is recorded; otherwise it goes with the job's purge.
package struct CaptionHandler: JobHandler {
    package let kind = "caption"
    let blobs: any BlobStore
    let limits: ImageLimits
    let provider: any VisionProvider

    /// Long side of the pixels providers get: the measurements' analysis size (a remote model
    /// gets the original bytes). JPEGs decode straight to about this size by DCT scaling.
    static let workingSide = ImageMeasurements.analysisSize

    package init(blobs: any BlobStore, provider: any VisionProvider, limits: ImageLimits = ImageLimits()) {
        (self.blobs, self.provider, self.limits) = (blobs, provider, limits)
    }

    package var timeout: Duration? { .seconds(90) }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: CaptionJob.Payload.self)
        try await context.progress(10, step: "reading")
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        try await context.progress(30, step: "decoding")
        let limits = self.limits
        // The provider sees the working copy; the result reports the photo's own size.
        let (image, photo, color, thumbhash): (PixelBuffer, ImageInfo, ColorReport, String) = try await context.offload { _ in
            do {
                let photo = try ImageCodec.probe(bytes, limits: limits)
                let read = try ImageCodec.decodeReporting(bytes, limits: limits, minimumLongSide: Self.workingSide)
                let image = read.image.cappingLongSide(Self.workingSide)
                return (image, photo, read.color, ThumbHash.base64(image))
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)", result: ResultFields.unreadableInput)
            }
        }
        try await context.record(color, percent: 30, step: "decoding")
        try context.checkCancellation()
        try await context.progress(50, step: "describing")
        let caption: Caption
        do {
            caption = try await provider.caption(VisionInput(image: image, encoded: bytes, mimeType: payload.input.contentType))
        } catch {
            throw ProviderFailure.job(error, provider: provider.name, logger: context.logger)
        }
        return try .encode(CaptionJob.Result(
            caption: caption.text, provider: caption.provider, model: caption.model, confidence: caption.confidence,
            usage: caption.usage.map { CaptionJob.Usage(promptTokens: $0.prompt_tokens, completionTokens: $0.completion_tokens, totalTokens: $0.total_tokens) },
            width: photo.width, height: photo.height, thumbhash: thumbhash))
    }
}
