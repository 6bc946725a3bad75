import CAtelierCodecs

/// The transform to sRGB after decode (lcms2 in the C layer, `atelier_color.h`): the file's
/// profile carrier is read (JPEG APP2, PNG iCCP, WebP ICCP, HEIF `colr`), a transform is built
/// (perceptual intent, lcms2's optimised 8-bit path, cached per profile) and run in place over
/// bands of rows on every core. Untagged images, and profiles that are sRGB in all but their
/// bytes, are left as they are; a damaged or unusable profile is ignored with a note.
enum ColorManagement {
    static func convertToSRGB(_ pixels: inout [UInt8], width: Int, height: Int, channels: Int,
                              file bytes: [UInt8], format: ImageFormat) -> ColorReport {
        var source = ac_color_source()
        bytes.withUnsafeBufferPointer { data in
            switch format {
            case .jpeg: _ = ac_jpeg_color(data.baseAddress, data.count, &source)
            case .png: _ = ac_png_color(data.baseAddress, data.count, &source)
            case .webp: _ = ac_webp_color(data.baseAddress, data.count, &source)
            case .heic: _ = ac_heif_color(data.baseAddress, data.count, &source)
            }
        }
        defer { ac_color_source_free(&source) }
        var report = ColorReport(source: describe(source))
        var note = [CChar](repeating: 0, count: 160), description = [CChar](repeating: 0, count: 64)
        guard let transform = ac_color_prepare(&source, Int32(channels), &note, &description) else {
            let text = string(note)
            if !text.isEmpty { report.notes.append(text) }
            if source.icc != nil, text.isEmpty, source.broken == 0 {
                // Left alone: sRGB in all but its bytes, or a gray profile read as sRGB gray.
                let name = string(description), srgb = ac_icc_is_srgb(source.icc, source.icc_size) != 0
                report.source = "ICC: \(name.isEmpty ? "unnamed" : name)" + (srgb ? " (sRGB)" : " (read as sRGB)")
            }
            return report
        }
        defer { ac_color_release(transform) }
        let name = string(description)
        if source.icc != nil, !name.isEmpty { report.source = "ICC: \(name)" }
        let stride = width * channels
        let shared = UncheckedSendable(transform)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = UncheckedSendable(buffer.baseAddress!)
            // Bands of at least 64 rows: below that the threads cost more than the transform.
            Parallel.rows(height, minimumPerBand: 64) { band in
                ac_color_apply(shared.value, base.value + band.lowerBound * stride, Int32(width), Int32(band.count))
            }
        }
        report.converted = true
        return report
    }

    private static func describe(_ source: ac_color_source) -> String {
        if source.broken != 0 { return "damaged profile" }
        if source.icc != nil { return "ICC" }
        if source.nclx_primaries != 0 || source.nclx_transfer != 0 { return "nclx \(source.nclx_primaries)/\(source.nclx_transfer)" }
        if source.srgb_chunk != 0 { return "sRGB" }
        return "untagged"
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
