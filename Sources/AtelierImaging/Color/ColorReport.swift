/// What a decode learned about an image's colour and what it did about it: the source it
/// declared, whether its pixels were transformed to sRGB, and notes for the job's log (a profile
/// that was damaged and ignored, a CMYK file converted without a profile, an HDR picture
/// tone-mapped). Notes are for operators and logs; none of them fails a job.
package struct ColorReport: Sendable, Equatable {
    /// The colour the file declared, in words: "untagged", "sRGB", "ICC: Display P3",
    /// "nclx 12/13" (H.273 primaries/transfer), "CMYK".
    package var source: String
    /// The pixels were transformed to sRGB (false when they already were, or were read as sRGB).
    package var converted: Bool
    /// An HDR HEIC (PQ or HLG) tone-mapped to 8-bit SDR.
    package var toneMapped: Bool
    package var notes: [String]

    package init(source: String = "untagged", converted: Bool = false, toneMapped: Bool = false, notes: [String] = []) {
        self.source = source
        self.converted = converted
        self.toneMapped = toneMapped
        self.notes = notes
    }
}

/// A decoded picture in sRGB with its ``ColorReport``.
package struct DecodedImage: Sendable {
    package var image: PixelBuffer
    package var color: ColorReport
}
