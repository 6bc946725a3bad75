/// The EXIF orientation of a JPEG (tag 0x0112 in the APP1 Exif segment), 1…8 as the TIFF
/// specification numbers them: how the stored pixels must be turned to be seen upright.
package enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Orientations 5–8 turn the image a quarter: width and height trade places.
    package var swapsAxes: Bool { rawValue >= 5 }

    /// Reads the orientation from a JPEG's APP1 Exif segment; `.up` when absent or unreadable.
    /// Only the segments before the first scan are looked at; nothing is trusted without a
    /// bounds check (the bytes come from strangers).
    package static func read(jpeg bytes: [UInt8]) -> ExifOrientation {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .up }
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            if marker == 0xE1, let orientation = fromExif(bytes[(index + 4)..<(index + 2 + length)]) {
                return orientation
            }
            index += 2 + length
        }
        return .up
    }

    private static func fromExif(_ segment: ArraySlice<UInt8>) -> ExifOrientation? {
        let exif = Array(segment)
        guard exif.count >= 14, exif[0..<6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return nil }
        let tiff = Array(exif[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd), count < 1000 else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let type = u16(at + 2), type == 3, let value = u16(at + 8) {
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}
