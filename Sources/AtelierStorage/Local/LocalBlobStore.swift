import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blobs as files under one directory (`ATELIER_DATA_DIR/blobs`).
///
/// A write goes to a temporary file in `.tmp/`, is fsynced, renamed over the final name and the
/// folder fsynced: after a crash a blob is either whole or absent, never half written.
/// File work runs on a global dispatch queue, off Swift's cooperative threads.
public struct LocalBlobStore: BlobStore {
    public let root: URL
    private var temporary: URL { root.appendingPathComponent(".tmp", isDirectory: true) }

    /// Creates the directory (and its `.tmp/`) when missing.
    public init(root: URL) throws(StorageError) {
        self.root = root.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        } catch {
            throw .configuration("cannot create the blob directory \(root.path): \(error.localizedDescription) "
                + "(ATELIER_DATA_DIR says where data lives)")
        }
    }

    public func put(_ data: Data, at key: BlobKey) async throws(StorageError) -> BlobInfo {
        let target = file(key)
        let temp = temporary.appendingPathComponent(UUID().uuidString)
        try await blocking {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.writeDurably(data, to: temp.path)
            guard rename(temp.path, target.path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temp.path)
                throw StorageError.unavailable("cannot store blob \(key): \(reason)")
            }
            Self.syncDirectory(target.deletingLastPathComponent().path)
        }
        guard let info = try await info(key) else { throw .unavailable("blob \(key) vanished right after it was written") }
        return info
    }

    public func info(_ key: BlobKey) async throws(StorageError) -> BlobInfo? {
        let path = file(key).path
        return try await blocking {
            var status = stat()
            guard stat(path, &status) == 0 else {
                if errno == ENOENT || errno == ENOTDIR { return nil }
                throw StorageError.unavailable("cannot read blob \(key): \(String(cString: strerror(errno)))")
            }
            guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            let seconds = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            let etag = "\"\(String(status.st_size, radix: 16))-\(String(status.st_mtim.tv_sec, radix: 16))\(String(status.st_mtim.tv_nsec, radix: 16))\""
            return BlobInfo(key: key, size: Int(status.st_size), contentType: ContentTypes.forExtension(key.fileExtension),
                            etag: etag, modifiedAt: Date(timeIntervalSince1970: seconds))
        }
    }

    public func read(_ key: BlobKey, range: Range<Int>?) async throws(StorageError) -> Data {
        let path = file(key).path
        return try await blocking {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw StorageError.notFound("no blob \(key)")
            }
            defer { try? handle.close() }
            do {
                if let range {
                    try handle.seek(toOffset: UInt64(range.lowerBound))
                    return try handle.read(upToCount: range.count) ?? Data()
                }
                return try handle.readToEnd() ?? Data()
            } catch {
                throw StorageError.unavailable("cannot read blob \(key): \(error.localizedDescription)")
            }
        }
    }

    public func delete(_ key: BlobKey) async throws(StorageError) {
        let path = file(key).path
        try await blocking {
            if unlink(path) != 0 && errno != ENOENT {
                throw StorageError.unavailable("cannot delete blob \(key): \(String(cString: strerror(errno)))")
            }
        }
    }

    public func deleteAll(under prefix: String) async throws(StorageError) {
        let folder = try BlobKey(prefix)
        let url = file(folder)
        try await blocking {
            do {
                try FileManager.default.removeItem(at: url)
            } catch CocoaError.fileNoSuchFile {
                return
            } catch let error as NSError where error.domain == NSPOSIXErrorDomain && error.code == Int(ENOENT) {
                return
            } catch {
                if FileManager.default.fileExists(atPath: url.path) {
                    throw StorageError.unavailable("cannot delete \(prefix): \(error.localizedDescription)")
                }
            }
        }
    }

    public func check() async throws(StorageError) {
        let probe = temporary.appendingPathComponent("health-\(UUID().uuidString)")
        try await blocking {
            try Self.writeDurably(Data("ok".utf8), to: probe.path)
            unlink(probe.path)
        }
    }

    public func folders(under prefix: String, changedBefore cutoff: Date) async throws(StorageError) -> [String] {
        let parent = file(try BlobKey(prefix)).path
        return try await blocking {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: parent)
            } catch {
                if !FileManager.default.fileExists(atPath: parent) { return [] }
                throw StorageError.unavailable("cannot list \(prefix): \(error.localizedDescription)")
            }
            return names.sorted().compactMap { name -> String? in
                guard !name.hasPrefix("."), let status = Self.status(parent + "/" + name),
                      status.isDirectory, status.modified < cutoff else { return nil }
                return prefix + "/" + name
            }
        }
    }

    /// Interrupted writes leave their temporary file in `.tmp/` (the rename never happened).
    public func removeAbandonedWrites(olderThan cutoff: Date) async throws(StorageError) -> Int {
        let folder = temporary.path
        return try await blocking {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            var removed = 0
            for name in names {
                let path = folder + "/" + name
                guard let status = Self.status(path), !status.isDirectory, status.modified < cutoff else { continue }
                if unlink(path) == 0 { removed += 1 }
            }
            return removed
        }
    }

    /// (is a directory, last modification) of `path`, or nil when it cannot be read.
    private static func status(_ path: String) -> (isDirectory: Bool, modified: Date)? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let seconds = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        return ((status.st_mode & S_IFMT) == S_IFDIR, Date(timeIntervalSince1970: seconds))
    }

    /// The file for `key`; the key grammar guarantees it stays under `root`.
    func file(_ key: BlobKey) -> URL {
        root.appendingPathComponent(key.path)
    }

    private static func writeDurably(_ data: Data, to path: String) throws(StorageError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .unavailable("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let failure: String? = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return fsync(fd) == 0 ? nil : String(cString: strerror(errno))
        }
        if let failure {
            unlink(path)
            throw .unavailable("cannot write \(path): \(failure)")
        }
    }

    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws(StorageError) -> T {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try work() })
                }
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw .unavailable(error.localizedDescription)
        }
    }
}
