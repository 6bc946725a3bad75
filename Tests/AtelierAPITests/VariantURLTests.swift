import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import AtelierStorage
import AtelierTestSupport
import Foundation
import XCTest

/// Signed variant URLs: a job's thumbnail, rendered once and then answered from the cache beside
/// its source; formats by Accept; every parameter covered by the signature.
final class VariantURLTests: APITestCase {
    func testAThumbnailIsRenderedOnceThenServedFromItsCache() async throws {
        let (_, thumbnail, key) = try await makeVariantSource()
        XCTAssertTrue(thumbnail.hasPrefix("\(baseURL)/variants/\(key.path)?w=512&h=512&fit=cover&format=auto&q=80&expires="), thumbnail)
        let avif = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/avif,image/webp,*/*")])
        XCTAssertEqual(avif.status, 200, avif.text)
        XCTAssertEqual(avif.header("Content-Type"), "image/avif")
        XCTAssertEqual(Array(avif.body.prefix(12).suffix(8)), Array("ftypavif".utf8), "an AVIF file")
        let webp = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp,*/*")])
        XCTAssertEqual(webp.status, 200, webp.text)
        XCTAssertEqual(webp.header("Content-Type"), "image/webp")
        XCTAssertEqual(webp.header("Vary"), "Accept")
        XCTAssertTrue(webp.header("Cache-Control")?.contains("immutable") ?? false, "\(String(describing: webp.header("Cache-Control")))")
        let image = try ImageCodec.decode([UInt8](webp.body))
        XCTAssertEqual([image.width, image.height], [300, 300], "cover, never enlarged: the photo's height, squared")
        let subject = stride(from: 0, to: image.pixels.count, by: image.channels).filter { image.pixels[$0 + 2] < 100 }.count
        XCTAssertGreaterThan(Double(subject) / 90_000, 0.14, "the crop kept the subject on the right")

        let jpeg = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")])
        XCTAssertEqual(jpeg.header("Content-Type"), "image/jpeg")
        let etag = try XCTUnwrap(jpeg.header("ETag"))
        let again = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg"), ("If-None-Match", etag)])
        XCTAssertEqual(again.status, 304)

        // The source gone, the rendered variants still answer: they come from the cache.
        try await blobs.delete(key)
        let cached = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")])
        XCTAssertEqual(cached.status, 200)
        XCTAssertEqual(cached.body, webp.body)
        let ranged = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp"), ("Range", "bytes=4-11")])
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.body, webp.body.dropFirst(4).prefix(8))
        XCTAssertEqual(ranged.header("Content-Range"), "bytes 4-11/\(webp.body.count)")
        let other = baseURL + server.signer.signedVariantPath(for: key, parameters: "w=64&fit=inside&format=jpeg&q=80")
        try assertError(try await request(.GET, other, token: .some(nil)), status: 404, name: "NotFoundError")
    }

    func testEveryParameterIsSigned() async throws {
        let (_, thumbnail, key) = try await makeVariantSource()
        for (from, to) in [("w=512", "w=2048"), ("fit=cover", "fit=contain"), ("format=auto", "format=jpeg"), ("q=80", "q=100")] {
            let changed = thumbnail.replacingOccurrences(of: from, with: to)
            try assertError(try await request(.GET, changed, token: .some(nil)), status: 403, name: "AuthorizationError")
        }
        let moved = thumbnail.replacingOccurrences(of: key.path, with: BlobKey.jobResult(UUID(), fileExtension: "png").path)
        try assertError(try await request(.GET, moved, token: .some(nil)), status: 403, name: "AuthorizationError")
        let resultSigned = "\(baseURL)/variants/\(key.path)?w=512&h=512&fit=cover&format=auto&q=80&expires=\(server.signer.expiry())"
            + "&signature=\(server.signer.signature(for: key, expires: server.signer.expiry()))"
        try assertError(try await request(.GET, resultSigned, token: .some(nil)), status: 403, name: "AuthorizationError")
        let past = Int(Date().timeIntervalSince1970) - 10
        let parameters = "w=512&h=512&fit=cover&format=auto&q=80"
        let expired = "\(baseURL)/variants/\(key.path)?\(parameters)&expires=\(past)"
            + "&signature=\(server.signer.variantSignature(for: key, parameters: parameters, expires: past))"
        try assertError(try await request(.GET, expired, token: .some(nil)), status: 403, name: "AuthorizationError")
        let unsigned = "\(baseURL)/variants/\(key.path)?\(parameters)"
        try assertError(try await request(.GET, unsigned, token: .some(nil)), status: 403, name: "AuthorizationError")
        let bad = thumbnail.replacingOccurrences(of: "w=512", with: "w=0")
        let badReply = try await request(.GET, bad, token: .some(nil))
        try assertError(badReply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (badReply.json()["details"] as? [String: String])?["field"], "w")
        let html = BlobKey.jobResult(UUID(), name: "report", fileExtension: "html")
        let notAPhoto = baseURL + server.signer.signedVariantPath(for: html, parameters: parameters)
        try assertError(try await request(.GET, notAPhoto, token: .some(nil)), status: 403, name: "AuthorizationError")
    }
}

/// Jobs whose result is not an image still show their photo: `thumbnail_url` names the upload,
/// and `thumbhash` (made by the worker, in the result) is that photo's placeholder.
final class PhotoPlaceholderTests: APITestCase {
    func testUploadAndAnalysisViewsCarryTheirPhotosThumbnailAndPlaceholder() async throws {
        // 120 × 60, left half red, right half blue: the placeholder keeps the 2:1 and the split.
        var photo = PixelBuffer(width: 120, height: 60, channels: 3, fill: 0)
        for y in 0..<60 {
            for x in 0..<120 { photo.pixels[(y * 120 + x) * 3 + (x < 60 ? 0 : 2)] = 220 }
        }
        for kind in ["upload", "analysis"] {
            let (body, type) = multipart([("kind", kind)], image: Data(try ImageCodec.encodeJPEG(photo, quality: 95)))
            let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
            XCTAssertEqual(created.status, 200, created.text)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let done = try await waitForCompletion(id)
            XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
            let thumbnail = try XCTUnwrap(done["thumbnail_url"] as? String, "\(kind): \(done)")
            XCTAssertTrue(thumbnail.contains("/variants/jobs/\(id)/input.jpg?"), thumbnail)
            let hash = try XCTUnwrap(done["thumbhash"] as? String, "\(kind): \(done)")
            XCTAssertEqual(hash, (done["result"] as? [String: Any])?["thumbhash"] as? String, "the result's, lifted beside the URL")
            let bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: hash)))
            XCTAssertEqual(ThumbHash.aspectRatio(bytes), ThumbHash.aspectRatio(ThumbHash.encode(photo)), kind)   // 7:4, as close as the hash says 2:1
            let placeholder = try XCTUnwrap(ThumbHash.decode(bytes))
            let row = placeholder.height / 2, c = placeholder.channels
            let left = Array(placeholder.pixels[(row * placeholder.width + 2) * c..<(row * placeholder.width + 2) * c + 3])
            let right = Array(placeholder.pixels[(row * placeholder.width + placeholder.width - 3) * c..<(row * placeholder.width + placeholder.width - 3) * c + 3])
            XCTAssertGreaterThan(Int(left[0]), Int(left[2]) + 60, "\(kind): red on the left, \(left)")
            XCTAssertGreaterThan(Int(right[2]), Int(right[0]) + 60, "\(kind): blue on the right, \(right)")
            let image = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")])
            XCTAssertEqual(image.status, 200, image.text)
        }
        let text = try await request(.POST, "/v1/jobs", body: Data(#"{"kind":"noop"}"#.utf8), contentType: "application/json")
        let noop = try await waitForCompletion(try XCTUnwrap(try text.json()["id"] as? String))
        XCTAssertTrue(noop["thumbnail_url"] is NSNull, "no photo, no thumbnail: \(noop)")
        XCTAssertTrue(noop["thumbhash"] is NSNull, "\(noop)")
    }
}

/// The blob store's tier of the cache alone: with no memory for variants, every answer after the
/// first is read from `jobs/<id>/variants/`, on this process or any other.
final class VariantStoreTierTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.variantMemoryBytes = 0
    }

    func testWithoutMemoryTheStoredVariantAnswers() async throws {
        try await assertTheStoredVariantAnswers()
    }
}

/// The same on the S3 store (the SeaweedFS of ./ops/test): the variant is a PUT, then a HEAD and
/// a GET on the bucket, and a purge removes it with its folder.
final class ObjectStoreVariantTests: APITestCase {
    override func makeBlobStore(directory: URL) throws -> any BlobStore {
        try TestObjectStore.make()
    }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.variantMemoryBytes = 0
    }

    func testTheStoredVariantAnswersFromTheBucket() async throws {
        try await assertTheStoredVariantAnswers()
    }
}

extension APITestCase {
    /// With no memory tier: the first request renders and stores the variant, later ones read it
    /// back from the store (the source deleted meanwhile, ranges included), and a purge ends it.
    func assertTheStoredVariantAnswers() async throws {
        let (id, thumbnail, key) = try await makeVariantSource()
        let first = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")])
        XCTAssertEqual(first.status, 200, first.text)
        try await blobs.delete(key)
        let stored = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")])
        XCTAssertEqual(stored.status, 200, stored.text)
        XCTAssertEqual(stored.body, first.body)
        XCTAssertEqual(stored.header("ETag"), first.header("ETag"))
        let ranged = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp"), ("Range", "bytes=0-11")])
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.body, first.body.prefix(12))

        // Purged with its job: the folder goes, and so does every answer.
        try await blobs.deleteAll(under: BlobKey.jobFolder(UUID(uuidString: id)!))
        try assertError(try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")]),
                        status: 404, name: "NotFoundError")
    }

    /// An echo job (its result is the upload) of a 600 × 300 photo with a subject on the right.
    func makeVariantSource() async throws -> (id: String, thumbnail: String, key: BlobKey) {
        var photo = PixelBuffer(width: 600, height: 300, channels: 3, fill: 200)
        for y in 90..<210 {
            for x in 460..<580 {
                let colour: [UInt8] = (x / 6 + y / 6) % 2 == 0 ? [200, 40, 30] : [240, 190, 40]
                for k in 0..<3 { photo.pixels[(y * 600 + x) * 3 + k] = colour[k] }
            }
        }
        let (body, type) = multipart([("kind", "echo")], image: Data(try ImageCodec.encodePNG(photo)))
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        let thumbnail = try XCTUnwrap(done["thumbnail_url"] as? String, "\(done)")
        return (id, thumbnail, BlobKey.jobResult(UUID(uuidString: id)!, fileExtension: "png"))
    }
}
