import CAtelierCodecs

/// Decoding and encoding through the C layer (`CAtelierCodecs`): the format is sniffed from the
/// bytes, limits are checked from the header before pixels are allocated, and every library
/// error comes back as an ``ImageError``.
public enum ImageCodec {
    /// Decodes JPEG (to RGB) or PNG (to RGBA). `jpegScale` 2, 4 or 8 asks libjpeg for a
    /// DCT-domain downscale (much faster than decoding full size and resizing). A JPEG's EXIF
    /// orientation is applied unless `applyOrientation` is false, so the pixels come out upright.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = ImageLimits(), jpegScale: Int = 1,
                              applyOrientation: Bool = true) throws(ImageError) -> PixelBuffer {
        guard !bytes.isEmpty else { throw .corrupt("the image is empty") }
        guard let format = ImageFormat.sniff(bytes) else {
            throw .unsupportedFormat("the data is not a JPEG, PNG, HEIC or WebP image")
        }
        var result = ac_result()
        var pixels: UnsafeMutablePointer<UInt8>?
        let code: Int32 = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .jpeg:
                return ac_jpeg_decode(buffer.baseAddress, buffer.count, Int32(jpegScale), UInt64(limits.maxPixels),
                                      Int32(limits.maxScans), &pixels, &result)
            case .png:
                return ac_png_decode(buffer.baseAddress, buffer.count, UInt64(limits.maxPixels), &pixels, &result)
            case .heic, .webp:
                result.code = Int32(AC_UNSUPPORTED)
                return Int32(AC_UNSUPPORTED)
            }
        }
        defer { ac_free(pixels) }
        if format == .heic || format == .webp {
            throw .unsupportedFormat("\(format.rawValue.uppercased()) images are not decoded by this build yet")
        }
        try check(code, result)
        let width = Int(result.width), height = Int(result.height)
        guard max(Int(result.source_width), Int(result.source_height)) <= limits.maxDimension else {
            throw .tooLarge("the image is \(result.source_width)x\(result.source_height); the longest side may be \(limits.maxDimension) px")
        }
        let channels = format == .png ? 4 : 3
        guard let pixels, width > 0, height > 0 else { throw .corrupt("the image has no pixels") }
        let image = PixelBuffer(width: width, height: height, channels: channels,
                                pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * channels)))
        guard format == .jpeg, applyOrientation else { return image }
        return image.oriented(ExifOrientation.read(jpeg: bytes))
    }

    /// JPEG (alpha dropped), optimised Huffman tables, no metadata; baseline unless `progressive`.
    public static func encodeJPEG(_ image: PixelBuffer, quality: Int = 90, progressive: Bool = false) throws(ImageError) -> [UInt8] {
        let source = image.channels == 4 ? image.droppingAlpha() : image
        guard source.channels == 3 || source.channels == 1 else { throw .unsupportedFormat("JPEG takes RGB or gray pixels") }
        return try encode { out, size, result in
            source.pixels.withUnsafeBufferPointer { buffer in
                ac_jpeg_encode(buffer.baseAddress, Int32(source.width), Int32(source.height), Int32(source.channels),
                               Int32(quality), progressive ? 1 : 0, &out, &size, &result)
            }
        }
    }

    /// PNG of RGB or RGBA pixels, no metadata.
    public static func encodePNG(_ image: PixelBuffer) throws(ImageError) -> [UInt8] {
        guard image.channels == 3 || image.channels == 4 else { throw .unsupportedFormat("PNG encoding takes RGB or RGBA pixels") }
        return try encode { out, size, result in
            image.pixels.withUnsafeBufferPointer { buffer in
                ac_png_encode(buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                              &out, &size, &result)
            }
        }
    }

    private static func encode(
        _ call: (inout UnsafeMutablePointer<UInt8>?, inout Int, inout ac_result) -> Int32
    ) throws(ImageError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var result = ac_result()
        let code = call(&out, &size, &result)
        defer { ac_free(out) }
        try check(code, result)
        guard let out else { throw .corrupt("the encoder produced nothing") }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    private static func check(_ code: Int32, _ result: ac_result) throws(ImageError) {
        guard code != Int32(AC_OK) else { return }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch code {
        case Int32(AC_TOO_LARGE): throw .tooLarge(message)
        case Int32(AC_NO_MEMORY): throw .outOfMemory(message)
        case Int32(AC_UNSUPPORTED): throw .unsupportedFormat(message)
        default: throw .corrupt(message.isEmpty ? "the image could not be decoded" : "the image is damaged: \(message)")
        }
    }
}
