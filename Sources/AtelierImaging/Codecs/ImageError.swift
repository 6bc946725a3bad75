/// Why an image could not be read or written, with a message fit for an API error body.
package enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JPEG, PNG, HEIC or WebP (judged from the bytes), or a format this build cannot decode.
    case unsupportedFormat(String)
    /// The bytes claim a format but are not a valid file of it (truncated, damaged, hostile).
    case corrupt(String)
    /// Over a limit: pixels, dimensions, bytes or progressive scans.
    case tooLarge(String)
    case outOfMemory(String)

    package var message: String {
        switch self {
        case .unsupportedFormat(let m), .corrupt(let m), .tooLarge(let m), .outOfMemory(let m): return m
        }
    }

    package var description: String { message }

    /// The error for a file that is truncated or damaged (a JPEG cut mid-scan, a PNG cut in its
    /// IDAT, corrupt entropy data): one message per format, fit for a client — never the
    /// library's own text or a path.
    package static func damaged(_ format: ImageFormat) -> ImageError {
        .corrupt("the \(format.displayName) is damaged or incomplete (cut short?); send the whole file")
    }
}
