import CAtelierCodecs

/// What a header says about an image, learned without decoding it.
package struct ImageInfo: Sendable, Equatable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int

    package init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

/// Decoding and encoding through the C layer (`CAtelierCodecs`): the format is sniffed from the
/// bytes, limits are checked from the header before pixels are allocated, and every library
/// error comes back as an ``ImageError``.
package enum ImageCodec {
    /// The format and size of `bytes` from the header alone — cheap enough to run on every
    /// upload before it is stored. Throws when the bytes are not a decodable image of a
    /// supported format, break `limits`, or are visibly cut short (see ``ImageError/damaged(_:)``).
    package static func probe(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws(ImageError) -> ImageInfo {
        let (format, header) = try readHeader(bytes, limits: limits)
        var info = ImageInfo(format: format, width: Int(header.source_width), height: Int(header.source_height))
        if format == .jpeg, ExifOrientation.read(jpeg: bytes).swapsAxes { swap(&info.width, &info.height) }
        try limits.check(width: info.width, height: info.height)
        return info
    }

    /// Decodes JPEG (to RGB), PNG, HEIC and WebP (RGB, or RGBA when the file has alpha), upright
    /// and in sRGB: a JPEG's EXIF orientation is applied unless `applyOrientation` is false; HEIC
    /// comes upright from libheif (its own rotation applied, EXIF never applied twice). Colour:
    /// see ``decodeReporting(_:limits:minimumLongSide:applyOrientation:manageColor:)``.
    ///
    /// `minimumLongSide`: a JPEG may be decoded smaller, in the DCT domain (k/8 of its size,
    /// much faster than decoding in full and resizing), as long as its long side stays at least
    /// this. Other formats always decode in full.
    package static func decode(_ bytes: [UInt8], limits: ImageLimits = ImageLimits(), minimumLongSide: Int? = nil,
                              applyOrientation: Bool = true, manageColor: Bool = true) throws(ImageError) -> PixelBuffer {
        try decodeReporting(bytes, limits: limits, minimumLongSide: minimumLongSide, applyOrientation: applyOrientation,
                            manageColor: manageColor).image
    }

    /// ``decode(_:limits:minimumLongSide:applyOrientation:manageColor:)`` with what it did about
    /// colour. The embedded profile (JPEG APP2, PNG iCCP or sRGB, WebP ICCP, HEIF `colr` ICC or
    /// nclx) is honoured: pixels are transformed to sRGB (perceptual intent); untagged images are
    /// sRGB. CMYK and YCCK JPEGs are converted through their profile, or the standard CMYK profile.
    /// HDR HEIC (PQ, HLG) is tone-mapped to SDR. A damaged profile is ignored with a note in the
    /// report, never an error. `manageColor: false` leaves RGB pixels as the file stores them
    /// (CMYK and HDR are still converted: they have no other 8-bit RGB reading).
    package static func decodeReporting(_ bytes: [UInt8], limits: ImageLimits = ImageLimits(), minimumLongSide: Int? = nil,
                                       applyOrientation: Bool = true, manageColor: Bool = true) throws(ImageError) -> DecodedImage {
        let (format, header) = try readHeader(bytes, limits: limits)
        var eighths = 8
        if format == .jpeg, let minimumLongSide, minimumLongSide > 0 {
            let long = max(Int(header.source_width), Int(header.source_height))
            while eighths > 1, long * (eighths - 1) / 8 >= minimumLongSide { eighths -= 1 }
        }
        return try decode(bytes, format: format, header: header, limits: limits, jpegEighths: eighths,
                          applyOrientation: applyOrientation, manageColor: manageColor)
    }

    /// A JPEG decoded at 1/`denominator` of its size (2, 4 or 8) in the DCT domain.
    package static func decode(_ bytes: [UInt8], limits: ImageLimits = ImageLimits(), jpegScale denominator: Int,
                              applyOrientation: Bool = true) throws(ImageError) -> PixelBuffer {
        let (format, header) = try readHeader(bytes, limits: limits)
        return try decode(bytes, format: format, header: header, limits: limits, jpegEighths: 8 / max(1, min(8, denominator)),
                          applyOrientation: applyOrientation, manageColor: true).image
    }

    /// Transforms `image` — `file` decoded with `manageColor: false` — to sRGB through the profile
    /// `file` declares, as a managed decode does right after its decoder. For benchmarks and tools.
    package static func convertToSRGB(_ image: inout PixelBuffer, declaredIn file: [UInt8]) -> ColorReport {
        guard let format = ImageFormat.sniff(file), image.channels == 3 || image.channels == 4 else { return ColorReport() }
        return ColorManagement.convertToSRGB(&image.pixels, width: image.width, height: image.height, channels: image.channels,
                                             file: file, format: format)
    }

    /// The C probe: size and channels from the header, and the checks that see a file cut short.
    private static func readHeader(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> (ImageFormat, ac_result) {
        let format = try sniff(bytes, limits: limits)
        var result = ac_result()
        let code: Int32 = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .jpeg: return ac_jpeg_probe(buffer.baseAddress, buffer.count, &result)
            case .png: return ac_png_probe(buffer.baseAddress, buffer.count, &result)
            case .heic: return ac_heif_probe(buffer.baseAddress, buffer.count, &result)
            case .webp: return ac_webp_probe(buffer.baseAddress, buffer.count, &result)
            }
        }
        try check(code, result, format)
        return (format, result)
    }

    /// Every decoder writes straight into the pixel buffer's own storage, allocated once at the
    /// size and channels the header promised: no C-side copy of a 200 MB picture (a 50 MP PNG
    /// peaks at its pixels, not twice them). HEIC is the exception inside C: libheif decodes into
    /// its own image, whose rows are copied once into this buffer.
    private static func decode(_ bytes: [UInt8], format: ImageFormat, header: ac_result, limits: ImageLimits,
                               jpegEighths: Int, applyOrientation: Bool, manageColor: Bool) throws(ImageError) -> DecodedImage {
        try limits.check(width: Int(header.source_width), height: Int(header.source_height))
        let k = format == .jpeg ? max(1, min(8, jpegEighths)) : 8
        let width = (Int(header.source_width) * k + 7) / 8, height = (Int(header.source_height) * k + 7) / 8
        let channels = Int(header.channels)
        guard width > 0, height > 0, channels == 3 || channels == 4 else { throw .damaged(format) }
        let maxPixels = UInt64(limits.maxPixels), maxScans = Int32(limits.maxScans)
        var result = ac_result()
        var code: Int32 = 0
        let cmyk = StandardCMYKProfile.bytes ?? []
        var pixels = [UInt8](unsafeUninitializedCapacity: width * height * channels) { target, initialized in
            code = bytes.withUnsafeBufferPointer { source in
                switch format {
                case .jpeg:
                    return cmyk.withUnsafeBufferPointer { profile in
                        ac_jpeg_decode_into(source.baseAddress, source.count, Int32(k), maxPixels, maxScans,
                                            profile.baseAddress, profile.count, target.baseAddress, target.count, &result)
                    }
                case .png:
                    return ac_png_decode_into(source.baseAddress, source.count, maxPixels, target.baseAddress, target.count, &result)
                case .heic:
                    return ac_heif_decode_into(source.baseAddress, source.count, maxPixels, target.baseAddress, target.count, &result)
                case .webp:
                    return ac_webp_decode_into(source.baseAddress, source.count, maxPixels, target.baseAddress, target.count, &result)
                }
            }
            // On failure the contents are never read: the error is thrown below.
            initialized = target.count
        }
        try check(code, result, format)
        guard Int(result.width) == width, Int(result.height) == height, Int(result.channels) == channels else {
            throw .damaged(format)
        }
        var color = ColorReport()
        if result.color_done != 0 {
            color.converted = true
            color.source = result.tone_mapped != 0 ? "HDR" : "CMYK"
            color.toneMapped = result.tone_mapped != 0
            if color.toneMapped {
                color.notes.append("an HDR image (PQ or HLG transfer): tone-mapped to 8-bit SDR")
            }
            let note = withUnsafeBytes(of: result.note) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if !note.isEmpty { color.notes.append(note) }
        } else if manageColor {
            color = ColorManagement.convertToSRGB(&pixels, width: width, height: height, channels: channels, file: bytes, format: format)
        }
        let image = PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
        return DecodedImage(image: format == .jpeg && applyOrientation ? image.oriented(ExifOrientation.read(jpeg: bytes)) : image,
                            color: color)
    }

    private static func sniff(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> ImageFormat {
        guard !bytes.isEmpty else { throw .corrupt("the image is empty") }
        try limits.check(byteCount: bytes.count)
        guard let format = ImageFormat.sniff(bytes) else {
            throw .unsupportedFormat("the data is not a JPEG, PNG, HEIC or WebP image")
        }
        return format
    }

    /// JPEG (alpha dropped), optimised Huffman tables, baseline unless `progressive`; RGB is tagged
    /// sRGB (an ICC profile, ~600 bytes), nothing else is written.
    package static func encodeJPEG(_ image: PixelBuffer, quality: Int = 90, progressive: Bool = false) throws(ImageError) -> [UInt8] {
        let source = image.channels == 4 ? image.droppingAlpha() : image
        guard source.channels == 3 || source.channels == 1 else { throw .unsupportedFormat("JPEG takes RGB or gray pixels") }
        return try encode { out, size, result in
            source.pixels.withUnsafeBufferPointer { buffer in
                ac_jpeg_encode(buffer.baseAddress, Int32(source.width), Int32(source.height), Int32(source.channels),
                               Int32(quality), progressive ? 1 : 0, &out, &size, &result)
            }
        }
    }

    /// PNG of RGB or RGBA pixels, tagged sRGB (an sRGB chunk), no other metadata.
    package static func encodePNG(_ image: PixelBuffer) throws(ImageError) -> [UInt8] {
        guard image.channels == 3 || image.channels == 4 else { throw .unsupportedFormat("PNG encoding takes RGB or RGBA pixels") }
        return try encode { out, size, result in
            image.pixels.withUnsafeBufferPointer { buffer in
                ac_png_encode(buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                              &out, &size, &result)
            }
        }
    }

    /// WebP of RGB or RGBA pixels: lossy at `quality` 0…100, or lossless; tagged sRGB (an ICCP chunk).
    package static func encodeWebP(_ image: PixelBuffer, quality: Int = 90, lossless: Bool = false) throws(ImageError) -> [UInt8] {
        guard image.channels == 3 || image.channels == 4 else { throw .unsupportedFormat("WebP encoding takes RGB or RGBA pixels") }
        return try encode { out, size, result in
            image.pixels.withUnsafeBufferPointer { buffer in
                ac_webp_encode(buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                               Int32(lossless ? 101 : max(0, min(100, quality))), &out, &size, &result)
            }
        }
    }

    /// AVIF (AV1 via libaom) of RGB or RGBA pixels at `quality` 0…100, 4:2:0, encoder `speed`
    /// 0…10 (fastest); tagged sRGB (nclx). Encode only: AVIF is an output format of variants.
    package static func encodeAVIF(_ image: PixelBuffer, quality: Int = 60, speed: Int = 8) throws(ImageError) -> [UInt8] {
        guard image.channels == 3 || image.channels == 4 else { throw .unsupportedFormat("AVIF encoding takes RGB or RGBA pixels") }
        return try encode { out, size, result in
            image.pixels.withUnsafeBufferPointer { buffer in
                ac_avif_encode(buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                               Int32(max(0, min(100, quality))), Int32(speed), &out, &size, &result)
            }
        }
    }

    /// HEIC (HEVC via x265) of RGB or RGBA pixels at `quality` 0…100. `orientation` is stored
    /// as the file's own transform (irot/imir boxes), as an iPhone does; tagged sRGB (nclx).
    package static func encodeHEIC(_ image: PixelBuffer, quality: Int = 90, orientation: ExifOrientation = .up) throws(ImageError) -> [UInt8] {
        guard image.channels == 3 || image.channels == 4 else { throw .unsupportedFormat("HEIC encoding takes RGB or RGBA pixels") }
        return try encode { out, size, result in
            image.pixels.withUnsafeBufferPointer { buffer in
                ac_heif_encode(buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                               Int32(max(0, min(100, quality))), Int32(orientation.rawValue), &out, &size, &result)
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
        try check(code, result, nil)
        guard let out else { throw .corrupt("the encoder produced nothing") }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Turns a C result into an ``ImageError``. A damaged or truncated file is always
    /// ``ImageError/damaged(_:)``: the C message may quote the library (libjpeg's "Premature end
    /// of JPEG file", libheif's box names), which is not for clients. The other refusals carry
    /// the C layer's own words (sizes, "an animated WebP").
    private static func check(_ code: Int32, _ result: ac_result, _ format: ImageFormat?) throws(ImageError) {
        guard code != Int32(AC_OK) else { return }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch code {
        case Int32(AC_TOO_LARGE): throw .tooLarge(message)
        case Int32(AC_NO_MEMORY): throw .outOfMemory(message)
        case Int32(AC_UNSUPPORTED): throw .unsupportedFormat(message)
        default: throw format.map(ImageError.damaged) ?? .corrupt("the image could not be encoded")
        }
    }
}
