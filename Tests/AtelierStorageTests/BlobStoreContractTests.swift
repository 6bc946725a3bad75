import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// One suite for the BlobStore protocol, run against both stores: every test's body runs on a
/// fresh local directory and on the real SeaweedFS that ./ops/test starts (a key prefix of its
/// own). What one store does, the other must do: the maintenance sweep, the purge, the API and
/// the workers rely on these answers, not on which store gives them.
final class BlobStoreContractTests: XCTestCase {
    private func eachStore(_ body: (any BlobStore, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try LocalBlobStore(root: directory), "local")
        let s3 = try TestObjectStore.make()
        do {
            try await body(s3, "s3")
        } catch {
            await TestObjectStore.clean(s3)
            throw error
        }
        await TestObjectStore.clean(s3)
    }

    func testWhatIsPutCanBeReadWhole() async throws {
        try await eachStore { store, name in
            let key = BlobKey.jobInput(UUID(), fileExtension: "jpg")
            let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let stored = try await store.put(bytes, at: key)
            XCTAssertEqual(stored.key, key, name)
            XCTAssertEqual(stored.size, bytes.count, name)
            XCTAssertEqual(stored.contentType, "image/jpeg", name)
            let described = try await store.info(key)
            let info = try XCTUnwrap(described, name)
            XCTAssertEqual(info.size, bytes.count, name)
            XCTAssertEqual(info.contentType, "image/jpeg", name)
            XCTAssertEqual(info.etag, stored.etag, "\(name): the put's ETag is the stored blob's")
            XCTAssertEqual(info.modifiedAt.timeIntervalSinceNow, 0, accuracy: 120, name)
            let read = try await store.read(key)
            XCTAssertEqual(read, bytes, name)
        }
    }

    func testRangesReadTheirBytes() async throws {
        try await eachStore { store, name in
            let key = BlobKey.jobResult(UUID(), fileExtension: "png")
            let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
            try await store.put(bytes, at: key)
            let middle = try await store.read(key, range: 100..<1124)
            XCTAssertEqual(middle, bytes[100..<1124], name)
            let last = try await store.read(key, range: 4095..<4096)
            XCTAssertEqual(last, Data([UInt8(truncatingIfNeeded: 4095)]), name)
            let empty = try await store.read(key, range: 10..<10)
            XCTAssertEqual(empty, Data(), name)
        }
    }

    func testAPutReplacesTheBlob() async throws {
        try await eachStore { store, name in
            let key = BlobKey.jobResult(UUID(), fileExtension: "json")
            let first = try await store.put(Data("first".utf8), at: key)
            let second = try await store.put(Data("the second".utf8), at: key)
            XCTAssertNotEqual(first.etag, second.etag, name)
            let read = try await store.read(key)
            XCTAssertEqual(String(decoding: read, as: UTF8.self), "the second", name)
            let info = try await store.info(key)
            XCTAssertEqual(info?.size, 10, name)
            XCTAssertEqual(info?.contentType, "application/json", name)
        }
    }

    func testAMissingBlobIsAbsentNotAnError() async throws {
        try await eachStore { store, name in
            let key = BlobKey.jobInput(UUID(), fileExtension: "heic")
            let info = try await store.info(key)
            XCTAssertNil(info, name)
            do {
                _ = try await store.read(key)
                XCTFail("\(name): reading a missing blob must throw")
            } catch let error as StorageError {
                guard case .notFound = error else { return XCTFail("\(name): \(error)") }
            }
            try await store.delete(key)
            try await store.deleteAll(under: BlobKey.jobFolder(UUID()))
        }
    }

    /// A multi-megabyte blob goes out in chunks and comes back byte for byte.
    func testALargeBlobRoundTrips() async throws {
        try await eachStore { store, name in
            var generator = SystemRandomNumberGenerator()
            let bytes = Data((0..<(3 * 1024 * 1024 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let key = BlobKey.jobInput(UUID(), fileExtension: "webp")
            try await store.put(bytes, at: key)
            let read = try await store.read(key)
            XCTAssertEqual(read.count, bytes.count, name)
            XCTAssertTrue(read == bytes, "\(name): the bytes differ")
        }
    }

    func testDeleteAllRemovesOneFolderOnly() async throws {
        try await eachStore { store, name in
            let (a, b) = (UUID(), UUID())
            try await store.put(Data("in".utf8), at: BlobKey.jobInput(a, fileExtension: "jpg"))
            try await store.put(Data("out".utf8), at: BlobKey.jobResult(a, fileExtension: "jpg"))
            try await store.put(Data("other".utf8), at: BlobKey.jobInput(b, fileExtension: "jpg"))
            try await store.deleteAll(under: BlobKey.jobFolder(a))
            let inputA = try await store.info(BlobKey.jobInput(a, fileExtension: "jpg"))
            let resultA = try await store.info(BlobKey.jobResult(a, fileExtension: "jpg"))
            let inputB = try await store.info(BlobKey.jobInput(b, fileExtension: "jpg"))
            XCTAssertNil(inputA, name)
            XCTAssertNil(resultA, name)
            XCTAssertNotNil(inputB, "\(name): the other job's folder stays")
            try await store.delete(BlobKey.jobInput(b, fileExtension: "jpg"))
            let gone = try await store.info(BlobKey.jobInput(b, fileExtension: "jpg"))
            XCTAssertNil(gone, name)
        }
    }

    /// The orphan sweep's question: which folders under `jobs` last changed before a cutoff.
    /// Nothing waits for a clock: the cutoff moves instead.
    func testFoldersAreListedByLastChange() async throws {
        try await eachStore { store, name in
            let ids = [UUID(), UUID(), UUID()]
            for id in ids { try await store.put(Data("x".utf8), at: BlobKey.jobInput(id, fileExtension: "jpg")) }
            let later = Date().addingTimeInterval(3600), earlier = Date().addingTimeInterval(-3600)
            let old = try await store.folders(under: "jobs", changedBefore: later)
            XCTAssertEqual(old, ids.map(BlobKey.jobFolder).sorted(), "\(name): every folder changed before an hour from now")
            let none = try await store.folders(under: "jobs", changedBefore: earlier)
            XCTAssertEqual(none, [], "\(name): none changed before an hour ago")
            let absent = try await store.folders(under: "nothing-here", changedBefore: later)
            XCTAssertEqual(absent, [], name)
        }
    }

    func testTheHealthCheckWritesAndLeavesNothing() async throws {
        try await eachStore { store, name in
            try await store.check()
            try await store.check()
            let folders = try await store.folders(under: "jobs", changedBefore: Date().addingTimeInterval(3600))
            XCTAssertEqual(folders, [], "\(name): the probe is not a job folder")
            let removed = try await store.removeAbandonedWrites(olderThan: Date().addingTimeInterval(3600))
            XCTAssertEqual(removed, 0, "\(name): the probes were removed at once")
        }
    }

    /// The local store has no URL of its own (the API signs `/results/…`); the object store
    /// pre-signs one, the same for the same instant.
    func testPresignedURLsComeFromTheObjectStoreOnly() async throws {
        try await eachStore { store, name in
            let key = BlobKey.jobResult(UUID(), fileExtension: "jpg")
            let issued = Date(timeIntervalSince1970: 1_795_000_200)
            let url = store.presignedURL(for: key, issued: issued, lifetime: 3600)
            if name == "local" {
                XCTAssertNil(url)
            } else {
                XCTAssertEqual(url, store.presignedURL(for: key, issued: issued, lifetime: 3600), "equal inputs, equal URLs")
                XCTAssertTrue(url?.contains("response-content-type=image%2Fjpeg") == true, url ?? "nil")
                XCTAssertTrue(url?.contains("X-Amz-Expires=3600") == true, url ?? "nil")
            }
        }
    }
}
