import Foundation

/// What is known about a stored blob without reading it.
public struct BlobInfo: Sendable, Equatable {
    public var key: BlobKey
    public var size: Int
    public var contentType: String
    /// Strong validator: blobs are written once (atomically) and never modified in place.
    public var etag: String
    public var modifiedAt: Date

    package init(key: BlobKey, size: Int, contentType: String, etag: String, modifiedAt: Date) {
        (self.key, self.size, self.contentType, self.etag, self.modifiedAt) = (key, size, contentType, etag, modifiedAt)
    }
}

/// Where input images and results live. Writes are atomic: a reader sees the whole blob or none.
/// The local-directory store is the default; ``S3BlobStore`` keeps them in an S3-compatible
/// object store, for API and worker processes on several machines.
public protocol BlobStore: Sendable {
    /// Stores `data` under `key`, replacing any blob already there.
    @discardableResult
    func put(_ data: Data, at key: BlobKey) async throws(StorageError) -> BlobInfo
    /// The blob's description, or nil when there is none.
    func info(_ key: BlobKey) async throws(StorageError) -> BlobInfo?
    /// Bytes `range` of the blob (all of it when nil). Throws `.notFound` when absent.
    func read(_ key: BlobKey, range: Range<Int>?) async throws(StorageError) -> Data
    /// Removes one blob; removing a missing blob is not an error.
    func delete(_ key: BlobKey) async throws(StorageError)
    /// Removes every blob under `prefix` (a job's folder).
    func deleteAll(under prefix: String) async throws(StorageError)
    /// Proves the store can be written now (for `/health`).
    func check() async throws(StorageError)
    /// The folders directly under `prefix` (e.g. `jobs/<id>` under `jobs`) whose contents last
    /// changed before `cutoff` — a folder changes when a blob is written into it or removed.
    /// For the orphan sweep; an absent `prefix` has none.
    func folders(under prefix: String, changedBefore cutoff: Date) async throws(StorageError) -> [String]
    /// Removes what writes that never finished left behind (a process killed mid-write) and
    /// that is older than `cutoff`. Returns how many were removed.
    func removeAbandonedWrites(olderThan cutoff: Date) async throws(StorageError) -> Int
    /// A URL clients can GET the blob from straight off the store, with no credential, valid
    /// from `issued` for `lifetime` seconds; nil when the store hands out no such URLs (the
    /// local store: the API serves `/results/…`, signed by ``URLSigner``). See ``DownloadLinks``.
    func presignedURL(for key: BlobKey, issued: Date, lifetime: Int) -> String?
}

extension BlobStore {
    public func presignedURL(for key: BlobKey, issued: Date, lifetime: Int) -> String? { nil }

    public func read(_ key: BlobKey) async throws(StorageError) -> Data {
        try await read(key, range: nil)
    }
}

/// Content types by file extension, for the files Atelier writes.
package enum ContentTypes {
    package static func forExtension(_ ext: String) -> String {
        switch ext.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "heic", "heif": return "image/heic"
        case "json": return "application/json"
        case "html": return "text/html; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
