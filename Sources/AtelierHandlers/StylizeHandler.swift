import AtelierImaging
import AtelierJobs
import AtelierQueue
import AtelierStorage
import AtelierWorker
import Foundation

/// `stylize`: decode (DCT-scaled when the photo is larger than needed; colour to sRGB) → EXIF orientation →
/// cap the long side → optional bump/pinch warps → style → encode → result blob.
/// Progress is reported per stage; cancellation is checked between stages (each stage is at
/// most a few hundred milliseconds on a 12 MP photo). The pixel work runs off the cooperative
/// pool through `JobContext.offload`.
package struct StylizeHandler: JobHandler {
    package let kind = "stylize"
    let blobs: any BlobStore
    let limits: ImageLimits
    /// Longest side of the output (`ATELIER_STYLIZE_MAX_SIDE`, default 2048).
    let maxSide: Int

    package init(blobs: any BlobStore, limits: ImageLimits = ImageLimits(), maxSide: Int = 2048) {
        self.blobs = blobs
        self.limits = limits
        self.maxSide = maxSide
    }

    package var timeout: Duration? { .seconds(120) }

    package func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: StylizeJob.Payload.self)
        let plan = try payload.plan()
        let (style, warps, png) = (plan.style, plan.distortions, plan.output == .png)

        try await context.progress(5, step: "reading")
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        let (limits, maxSide) = (self.limits, self.maxSide)
        try await context.progress(15, step: "decoding")
        let (decoded, factor, color): (PixelBuffer, Double, ColorReport) = try await context.offload { _ in
            do {
                let upright = try ImageCodec.probe(bytes, limits: limits)
                let read = try ImageCodec.decodeReporting(bytes, limits: limits, minimumLongSide: maxSide)
                let image = read.image.cappingLongSide(maxSide)
                return (image, Double(image.width) / Double(upright.width), read.color)
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)", result: ResultFields.unreadableInput)
            }
        }
        try await context.record(color, percent: 15, step: "decoding")
        try context.checkCancellation()
        var image = decoded
        if !warps.isEmpty {
            // Warp coordinates are pixels of the uploaded image: they shrink with it.
            try await context.progress(30, step: "warping")
            image = try await context.offload { _ in decoded.distorted(by: warps.map { $0.scaled(by: factor) }) }
            try context.checkCancellation()
        }
        try await context.progress(40, step: "stylizing")
        let chosen = plan.parameters
        let warped = image
        let styled = try await context.offload { _ in Stylizer.render(warped, style: style, parameters: chosen) }
        try context.checkCancellation()
        try await context.progress(85, step: "encoding")
        let (encoded, placeholder): ([UInt8], [UInt8]) = try await context.offload { _ in
            (png ? try ImageCodec.encodePNG(styled) : try ImageCodec.encodeJPEG(styled, quality: 90), ThumbHash.encode(styled))
        }
        let key = BlobKey.jobResult(context.job.id, fileExtension: png ? "png" : "jpg")
        let info = try await blobs.put(Data(encoded), at: key)
        return try .encode(StylizeJob.Result(resultBlob: key.path, styleID: style.rawValue, width: styled.width, height: styled.height,
                                             contentType: info.contentType, bytes: info.size,
                                             thumbhash: Data(placeholder).base64EncodedString()))
    }
}
