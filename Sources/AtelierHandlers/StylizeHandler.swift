import AtelierImaging
import AtelierQueue
import AtelierStorage
import AtelierWorker
import Foundation

/// `stylize`: decode (DCT-scaled when the photo is larger than needed) → EXIF orientation →
/// cap the long side → optional bump/pinch warps → style → encode → result blob.
/// Progress is reported per stage; cancellation is checked between stages (each stage is at
/// most a few hundred milliseconds on a 12 MP photo). The pixel work runs off the cooperative
/// pool through `JobContext.offload`.
public struct StylizeHandler: JobHandler {
    public let kind = "stylize"
    let blobs: any BlobStore
    let limits: ImageLimits
    /// Longest side of the output (`ATELIER_STYLIZE_MAX_SIDE`, default 2048).
    let maxSide: Int

    public init(blobs: any BlobStore, limits: ImageLimits = ImageLimits(), maxSide: Int = 2048) {
        self.blobs = blobs
        self.limits = limits
        self.maxSide = maxSide
    }

    public var timeout: Duration? { .seconds(120) }

    struct Payload: Decodable {
        struct Input: Decodable { var blob: String }
        var input: Input
        var style_id: String
        var params: [String: Double]?
        var output: String?
    }

    /// The `warp` list, read apart from the Decodable payload (it is checked by the same
    /// parser the API uses, which names the bad field).
    private func distortions(_ context: JobContext) throws -> [Distortion] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(context.job.payload.utf8)) as? [String: Any],
              let warp = object["warp"], !(warp is NSNull) else { return [] }
        do {
            return try Distortion.list(fromJSON: warp)
        } catch {
            throw JobFailure.permanent(error.message)
        }
    }

    struct Result: Encodable {
        var result_blob: String
        var style_id: String
        var width: Int
        var height: Int
        var content_type: String
        var bytes: Int
    }

    public func run(_ context: JobContext) async throws -> JobResult {
        let payload = try context.payload(as: Payload.self)
        guard let style = StyleID(rawValue: payload.style_id), style.isAvailable else {
            throw JobFailure.permanent("style '\(payload.style_id)' is not available")
        }
        var parameters = StyleParameters()
        for (name, value) in payload.params ?? [:] {
            guard (0...1).contains(value) else { throw JobFailure.permanent("params.\(name) must be within 0…1") }
            switch name {
            case "intensity": parameters.intensity = value
            case "eyes": parameters.eyes = value
            case "nose": parameters.nose = value
            case "mouth": parameters.mouth = value
            case "jaw": parameters.jaw = value
            default: break
            }
        }
        let warps = try distortions(context)
        let png = payload.output == "png"

        try await context.progress(5, step: "reading")
        let bytes = try await JobInput.read(payload.input.blob, from: blobs)
        let (limits, maxSide) = (self.limits, self.maxSide)
        try await context.progress(15, step: "decoding")
        let (decoded, factor): (PixelBuffer, Double) = try await context.offload { _ in
            do {
                let upright = try ImageCodec.probe(bytes, limits: limits)
                let image = try ImageCodec.decode(bytes, limits: limits, minimumLongSide: maxSide).cappingLongSide(maxSide)
                return (image, Double(image.width) / Double(upright.width))
            } catch let error as ImageError {
                throw JobFailure.permanent("the image cannot be decoded: \(error.message)")
            }
        }
        try context.checkCancellation()
        var image = decoded
        if !warps.isEmpty {
            // Warp coordinates are pixels of the uploaded image: they shrink with it.
            try await context.progress(30, step: "warping")
            image = try await context.offload { _ in decoded.distorted(by: warps.map { $0.scaled(by: factor) }) }
            try context.checkCancellation()
        }
        try await context.progress(40, step: "stylizing")
        let chosen = parameters
        let warped = image
        let styled = try await context.offload { _ in Stylizer.render(warped, style: style, parameters: chosen) }
        try context.checkCancellation()
        try await context.progress(85, step: "encoding")
        let encoded: [UInt8] = try await context.offload { _ in
            png ? try ImageCodec.encodePNG(styled) : try ImageCodec.encodeJPEG(styled, quality: 90)
        }
        let key = BlobKey.jobResult(context.job.id, fileExtension: png ? "png" : "jpg")
        let info = try await blobs.put(Data(encoded), at: key)
        return try .encode(Result(result_blob: key.path, style_id: style.rawValue, width: styled.width, height: styled.height,
                                  content_type: info.contentType, bytes: info.size))
    }
}
