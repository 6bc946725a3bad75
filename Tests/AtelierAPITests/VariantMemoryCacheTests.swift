@testable import AtelierAPI
import AtelierStorage
import Foundation
import NIOCore
import XCTest

/// The in-memory tier of the variant cache: bounded in bytes, least recently used out first,
/// nothing older than its time to live.
final class VariantMemoryCacheTests: XCTestCase {
    func entry(_ name: String, bytes: Int) throws -> VariantMemoryCache.Entry {
        let key = try BlobKey("jobs/\(UUID())/variants/\(name).webp")
        let info = BlobInfo(key: key, size: bytes, contentType: "image/webp", etag: "\"\(name)\"", modifiedAt: Date())
        return .init(info: info, body: ByteBuffer(repeating: 7, count: bytes))
    }

    func testTheLeastRecentlyUsedGoFirstAndTheBoundHolds() throws {
        let cache = VariantMemoryCache(capacity: 8_000)
        let entries = try (0..<8).map { try entry("v\($0)", bytes: 1_000) }
        for item in entries { cache.store(item) }
        XCTAssertEqual(cache.usage.bytes, 8_000)
        _ = cache.lookup(entries[0].info.key)   // v0 is now the most recently used
        cache.store(try entry("v8", bytes: 1_000))
        XCTAssertLessThanOrEqual(cache.usage.bytes, 6_000, "evicted down to three quarters")
        XCTAssertNotNil(cache.lookup(entries[0].info.key), "the one just read stays")
        XCTAssertNil(cache.lookup(entries[1].info.key), "the least recently used went")
        XCTAssertNil(cache.lookup(entries[2].info.key))
        XCTAssertEqual(cache.lookup(entries[7].info.key)?.body.readableBytes, 1_000)

        for index in 0..<500 { cache.store(try entry("w\(index)", bytes: 700 + index % 300)) }
        XCTAssertLessThanOrEqual(cache.usage.bytes, 8_000, "however much is stored")
    }

    func testEntriesExpireAndLargeOnesAreNotKept() throws {
        let cache = VariantMemoryCache(capacity: 8_000, ttl: .seconds(60))
        let start = ContinuousClock.now
        let item = try entry("v", bytes: 500)
        cache.store(item, now: start)
        XCTAssertNotNil(cache.lookup(item.info.key, now: start + .seconds(59)))
        XCTAssertNil(cache.lookup(item.info.key, now: start + .seconds(60)), "a purged job's variant is answered a minute at most")
        XCTAssertEqual(cache.usage.entries, 0)

        let large = try entry("large", bytes: 1_001)
        cache.store(large)
        XCTAssertNil(cache.lookup(large.info.key), "over an eighth of the bound: not kept")
        let off = VariantMemoryCache(capacity: 0)
        off.store(item)
        XCTAssertNil(off.lookup(item.info.key))
    }
}

/// The memo of verified variant URLs stays bounded whatever clients send.
final class VerifiedVariantURLsTests: XCTestCase {
    func testTheMemoIsBoundedInCountAndKeySize() throws {
        let memo = VerifiedVariantURLs(capacity: 100)
        let key = try BlobKey("jobs/\(UUID())/result.png")
        let resolved = VerifiedVariantURLs.Resolved(source: key, cached: key, request: .init(width: 512, height: 512),
                                                    expires: 0, variesByAccept: true)
        for index in 0..<1_000 { memo.store(VerifiedVariantURLs.key(uri: "/variants/x?n=\(index)", accept: "image/webp"), resolved) }
        XCTAssertLessThanOrEqual(memo.count, 100)
        let odd = VerifiedVariantURLs.key(uri: "/variants/x", accept: String(repeating: "a", count: 2_000))
        memo.store(odd, resolved)
        guard case .unknown = memo.lookup(odd) else { return XCTFail("an oversized key is never kept") }
    }

    func testARememberedURLStillExpires() throws {
        let memo = VerifiedVariantURLs()
        let key = try BlobKey("jobs/\(UUID())/result.png")
        let now = Date()
        let expires = Int(now.timeIntervalSince1970) + 60
        let url = VerifiedVariantURLs.key(uri: "/variants/\(key.path)?w=512", accept: "image/webp")
        memo.store(url, .init(source: key, cached: key, request: .init(width: 512, height: 512), expires: expires, variesByAccept: true))
        guard case .valid(let resolved) = memo.lookup(url, now: now) else { return XCTFail("verified and not expired") }
        XCTAssertEqual(resolved.cached, key)
        guard case .expired = memo.lookup(url, now: now.addingTimeInterval(61)) else { return XCTFail("remembered, yet expired") }
        guard case .unknown = memo.lookup(VerifiedVariantURLs.key(uri: "/variants/\(key.path)?w=512", accept: "image/avif"), now: now) else {
            return XCTFail("another Accept is another URL")
        }
    }
}
