import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import AtelierQueue
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// Variants are rendered by workers (a `variant` job), never in the API process, and a photo
/// that does not decode is rendered once: its URL then answers 422 at once, and a job that
/// failed on it offers no thumbnail.
final class VariantRenderingTests: APITestCase {
    /// A PNG whose header says 6000 × 6000 and whose data stops after a few kilobytes: the
    /// upload's header check passes, every decode fails.
    static func brokenPNG() throws -> Data {
        var bytes = try ImageCodec.encodePNG(PixelBuffer(width: 64, height: 64, channels: 3, fill: 90))
        // IHDR's width and height (bytes 16…23), then its CRC over type and data (12…28).
        for (offset, value) in [(16, UInt32(6000)), (20, UInt32(6000))] {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
        }
        let crc = Self.crc32(bytes[12..<29])
        for k in 0..<4 { bytes[29 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        return Data(bytes)
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    func testABrokenPhotoIsRenderedOnceThenRefusedAtOnce() async throws {
        let (body, type) = multipart([("style_id", "cartoon")], image: try Self.brokenPNG(), filename: "broken.png", contentType: "image/png")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let input = BlobKey.jobInput(try XCTUnwrap(UUID(uuidString: id)), fileExtension: "png")
        // The URL a view carried while the job was queued (the photo had not been tried yet).
        let thumbnail = baseURL + server.signer.signedVariantPath(for: input, parameters: VariantParameters.thumbnail.canonical)

        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "failed", "\(done)")
        XCTAssertTrue(done["thumbnail_url"] is NSNull, "a photo that never decoded has no thumbnail: \(done)")
        XCTAssertTrue(done["result"] is NSNull, "a failed job shows no result: \(done)")

        for _ in 0..<6 {
            let reply = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")])
            try assertError(reply, status: 422, name: "UnreadableImageError")
            XCTAssertFalse(reply.text.contains("/"), "no path in the answer: \(reply.text)")
        }
        let variants = try await db.queue.client.query("""
            SELECT state, owner, priority::int, result::text FROM jobs WHERE kind = 'variant'
            """)
        var rows: [(String, String, Int, String?)] = []
        for try await row in variants.decode((String, String, Int, String?).self) { rows.append(row) }
        XCTAssertEqual(rows.count, 1, "six requests, one render: \(rows)")
        XCTAssertEqual(rows.first?.0, "failed")
        let owner = try await db.queue.job(id: UUID(uuidString: id)!).owner
        XCTAssertEqual(rows.first?.1, "variants:" + owner)
        XCTAssertEqual(rows.first?.2, 100)
        XCTAssertTrue(rows.first?.3?.contains("\"status\": 422") ?? false, "\(rows)")
    }

    /// An upload of the same photo fails too (it decodes what it keeps), offers no thumbnail, and
    /// its URL is refused after one render.
    func testAnUploadThatNeverDecodedOffersNoThumbnail() async throws {
        let (body, type) = multipart([("kind", "upload")], image: try Self.brokenPNG(), filename: "broken.png", contentType: "image/png")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "failed", "an upload that does not decode fails: \(done)")
        XCTAssertTrue(done["thumbnail_url"] is NSNull, "\(done)")
        let input = BlobKey.jobInput(UUID(uuidString: id)!, fileExtension: "png")
        let thumbnail = baseURL + server.signer.signedVariantPath(for: input, parameters: VariantParameters.thumbnail.canonical)
        try assertError(try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")]),
                        status: 422, name: "UnreadableImageError")
        try assertError(try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")]),
                        status: 422, name: "UnreadableImageError")
        let count = try await db.scalar("SELECT count(*)::int FROM jobs WHERE kind = 'variant'", as: Int.self)
        XCTAssertEqual(count, 1)
    }
}

/// With no worker, the API renders nothing itself: the request waits `ATELIER_VARIANT_WAIT`
/// for the `variant` job it enqueued, then answers 503 with `Retry-After`.
final class VariantWithoutWorkerTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.variantWait = .milliseconds(300)
    }

    func testTheAPIWaitsForAWorkerAndNeverRendersItself() async throws {
        let photo = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 80, height: 60, channels: 3, fill: 120), quality: 90))
        let (body, type) = multipart([("kind", "upload")], image: photo, filename: "photo.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let view = try await request(.GET, "/v1/jobs/\(id)")
        let thumbnail = try XCTUnwrap(try view.json()["thumbnail_url"] as? String, view.text)
        for _ in 0..<3 {
            let reply = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")])
            try assertError(reply, status: 503, name: "VariantPendingError")
            XCTAssertEqual(reply.header("Retry-After"), "1")
        }
        let queued = try await db.scalar("SELECT count(*)::int FROM jobs WHERE kind = 'variant' AND state = 'queued'", as: Int.self)
        XCTAssertEqual(queued, 1, "one variant job for three requests, waiting for a worker")
    }
}
