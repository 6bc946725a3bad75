/// What an upload may cost, checked from the bytes and the header before any pixel memory is
/// allocated (``ImageCodec/probe(_:limits:)`` and every decode).
package struct ImageLimits: Sendable, Equatable {
    /// Width × height (default 50 MP).
    package var maxPixels: Int = 50_000_000
    /// Longest side (default 20000 px).
    package var maxDimension: Int = 20_000
    /// Size of the encoded file (default 50 MiB).
    package var maxBytes: Int = 50 << 20
    /// Progressive JPEG scans (a scan bomb costs a full decode pass each).
    package var maxScans: Int = 100

    package init() {}

    /// Throws ``ImageError/tooLarge(_:)`` when `width`×`height` breaks a limit.
    func check(width: Int, height: Int) throws(ImageError) {
        if max(width, height) > maxDimension {
            throw .tooLarge("the image is \(width)x\(height); the longest side may be \(maxDimension) px")
        }
        if width * height > maxPixels {
            throw .tooLarge("the image is \(width)x\(height), over the limit of \(maxPixels) pixels")
        }
    }

    func check(byteCount: Int) throws(ImageError) {
        if byteCount > maxBytes { throw .tooLarge("the image file is \(byteCount) bytes; the limit is \(maxBytes)") }
    }
}
