import Foundation

/// Where a blob lives inside a store: `/`-separated segments of letters, digits, `.`, `_`
/// and `-`, never `.` or `..`, never absolute. Parsing is the one place a key from outside
/// (a URL path) is checked, so path traversal cannot reach the file system.
public struct BlobKey: Sendable, Hashable, CustomStringConvertible {
    public let path: String

    public init(_ text: String) throws(StorageError) {
        guard !text.isEmpty, text.utf8.count <= 512 else { throw .invalidKey("blob key must be 1–512 bytes") }
        // One pass over the bytes (every signed URL is checked here): a segment may not be
        // empty or start with `.` (so never `.`, `..` or hidden), and holds allowed bytes only.
        var segmentStart = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: "/") {
                guard !segmentStart else { throw Self.relative(text) }
                segmentStart = true
                continue
            }
            if segmentStart, byte == UInt8(ascii: ".") { throw Self.relative(text) }
            segmentStart = false
            guard Self.allowed(byte) else {
                throw .invalidKey("blob key '\(text.prefix(80))' has characters other than letters, digits, '.', '_', '-'")
            }
        }
        guard !segmentStart else { throw Self.relative(text) }
        self.path = text
    }

    private static func relative(_ text: String) -> StorageError {
        .invalidKey("blob key '\(text.prefix(80))' has an empty, hidden or relative segment")
    }

    /// The key of a job's input file, e.g. `jobs/<id>/input.jpg`.
    public static func jobInput(_ jobID: UUID, fileExtension: String) -> BlobKey {
        try! BlobKey("jobs/\(jobID.uuidString.lowercased())/input.\(fileExtension)")
    }

    /// The key of a job's result file, e.g. `jobs/<id>/result.png`.
    public static func jobResult(_ jobID: UUID, name: String = "result", fileExtension: String) -> BlobKey {
        try! BlobKey("jobs/\(jobID.uuidString.lowercased())/\(name).\(fileExtension)")
    }

    /// The folder holding every blob of one job (deleted with the job).
    public static func jobFolder(_ jobID: UUID) -> String {
        "jobs/\(jobID.uuidString.lowercased())"
    }

    public var fileExtension: String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return String(path[path.index(after: dot)...]).lowercased()
    }

    public var description: String { path }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
