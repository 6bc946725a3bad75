/// The encodings a photo variant can be written in.
package enum VariantFormat: String, Sendable, CaseIterable {
    case jpeg, webp, avif

    package var contentType: String { "image/\(rawValue)" }
    package var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// What a variant URL asks for: a box (either side may be left out), how to fit it, an
/// encoding and its quality.
package struct VariantRequest: Sendable, Equatable, Hashable {
    package var width: Int?
    package var height: Int?
    package var fit: VariantFit
    package var format: VariantFormat
    package var quality: Int

    package init(width: Int?, height: Int?, fit: VariantFit = .cover, format: VariantFormat = .jpeg, quality: Int = 80) {
        (self.width, self.height, self.fit, self.format, self.quality) = (width, height, fit, format, quality)
    }
}

/// A stored photo turned into the variant a request asks for: decoded no larger than needed
/// (a JPEG shrinks in the DCT domain on load), upright and in sRGB, cropped around its subject
/// for `cover`, area-resized, padded with white for `contain`, encoded (JPEG, WebP or AVIF) and
/// tagged sRGB.
package enum PhotoVariant {
    package static func render(_ bytes: [UInt8], _ request: VariantRequest, limits: ImageLimits = ImageLimits()) throws(ImageError) -> [UInt8] {
        let info = try ImageCodec.probe(bytes, limits: limits)
        // The long side the variant needs from the photo: decode at least that much of it.
        let full = VariantPlan.plan(photoWidth: info.width, photoHeight: info.height, width: request.width, height: request.height,
                                    fit: request.fit)
        let needed = Double(max(info.width, info.height)) * Double(full.scaledWidth) / Double(full.source.width)
        let photo = try ImageCodec.decode(bytes, limits: limits, minimumLongSide: Int(needed.rounded(.up))).droppingAlpha()
        let image = variant(of: photo, request)
        switch request.format {
        case .jpeg: return try ImageCodec.encodeJPEG(image, quality: request.quality)
        case .webp: return try ImageCodec.encodeWebP(image, quality: request.quality)
        case .avif: return try ImageCodec.encodeAVIF(image, quality: request.quality)
        }
    }

    /// The pixels of the variant of `photo` (RGB or gray).
    package static func variant(of photo: PixelBuffer, _ request: VariantRequest) -> PixelBuffer {
        let plan = VariantPlan.plan(photoWidth: photo.width, photoHeight: photo.height, width: request.width, height: request.height,
                                    fit: request.fit) { cropWidth, cropHeight in
            SmartCrop.origin(in: photo, cropWidth: cropWidth, cropHeight: cropHeight)
        }
        let source = plan.source
        let region = source == PixelRect(x: 0, y: 0, width: photo.width, height: photo.height)
            ? photo : (photo.cropped(x: source.x, y: source.y, width: source.width, height: source.height) ?? photo)
        let scaled = region.resized(width: plan.scaledWidth, height: plan.scaledHeight)
        guard plan.canvasWidth != plan.scaledWidth || plan.canvasHeight != plan.scaledHeight else { return scaled }
        var canvas = PixelBuffer(width: plan.canvasWidth, height: plan.canvasHeight, channels: scaled.channels, fill: 255)
        let c = scaled.channels
        for y in 0..<scaled.height {
            let target = ((y + plan.offsetY) * plan.canvasWidth + plan.offsetX) * c
            canvas.pixels.replaceSubrange(target..<(target + scaled.width * c),
                                          with: scaled.pixels[(y * scaled.width * c)..<((y + 1) * scaled.width * c)])
        }
        return canvas
    }
}
