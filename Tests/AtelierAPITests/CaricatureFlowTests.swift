import AtelierAPITestSupport
import AtelierImaging
import Foundation
import XCTest

/// The Caricature Maker's flow (docs/clients.md §3) over HTTP: multipart `image` + `params` +
/// `style_id` (no `kind`) → `{id}` → poll → `result_url` → a JPEG in the chosen style.
final class CaricatureFlowTests: APITestCase {
    /// A face-sized JPEG with shapes and colour, made by our own encoder.
    func photo() throws -> Data {
        var image = PixelBuffer(width: 320, height: 240, channels: 3, fill: 200)
        for y in 60..<180 {
            for x in 100..<220 {
                let i = (y * 320 + x) * 3
                image.pixels[i] = 180; image.pixels[i + 1] = 90; image.pixels[i + 2] = 60
            }
        }
        return Data(try ImageCodec.encodeJPEG(image, quality: 90))
    }

    func testUploadStylizePollAndDownload() async throws {
        let params = #"{"intensity": 0.6, "eyes": 0.7, "nose": 0.5, "mouth": 0.4, "jaw": 0.5}"#
        let (body, type) = multipart([("params", params), ("style_id", "sketch")], image: try photo(),
                                     filename: "image.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        XCTAssertEqual(try created.json()["kind"] as? String, "stylize", "a style_id without kind means stylize")

        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        XCTAssertTrue(done["error"] is NSNull)
        let url = try XCTUnwrap(done["result_url"] as? String)
        let download = try await request(.GET, url, token: .some(nil))
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.header("Content-Type"), "image/jpeg")
        let result = try ImageCodec.decode([UInt8](download.body))
        XCTAssertEqual([result.width, result.height], [320, 240])
        // A pencil sketch is gray: channels agree (up to JPEG chroma noise).
        var spread = 0
        for i in stride(from: 0, to: result.pixels.count, by: 3) {
            spread = max(spread, Int(max(result.pixels[i], result.pixels[i + 1], result.pixels[i + 2]))
                         - Int(min(result.pixels[i], result.pixels[i + 1], result.pixels[i + 2])))
        }
        XCTAssertLessThan(spread, 12, "sketch output is near-grayscale")
    }

    func testHEICAndWebPUploadsAreStylizedUpright() async throws {
        var picture = PixelBuffer(width: 160, height: 120, channels: 3, fill: 220)
        for y in 20..<60 { for x in 20..<80 { picture.pixels[(y * 160 + x) * 3] = 30 } }
        // An iPhone-style HEIC stored turned (irot): the result must be upright 120 × 160, once.
        let uploads: [(Data, String, [Int])] = [
            (Data(try ImageCodec.encodeHEIC(picture, quality: 90, orientation: .right)), "image/heic", [120, 160]),
            (Data(try ImageCodec.encodeWebP(picture, quality: 90)), "image/webp", [160, 120]),
        ]
        // With a bump on the dark square, as a client that cannot warp on device would send.
        let warp = #"[{"type": "bump", "x": 50, "y": 40, "radius": 30, "scale": 0.5}]"#
        for (image, type, size) in uploads {
            let (body, contentType) = multipart([("style_id", "cartoon"), ("output", "png"), ("warp", warp)], image: image,
                                                filename: "photo", contentType: type)
            let created = try await request(.POST, "/v1/jobs", body: body, contentType: contentType)
            XCTAssertEqual(created.status, 200, created.text)
            let done = try await waitForCompletion(try XCTUnwrap(try created.json()["id"] as? String))
            XCTAssertEqual(done["status"] as? String, "succeeded", "\(type): \(done)")
            let download = try await request(.GET, try XCTUnwrap(done["result_url"] as? String), token: .some(nil))
            XCTAssertEqual(download.header("Content-Type"), "image/png")
            let result = try ImageCodec.decode([UInt8](download.body))
            XCTAssertEqual([result.width, result.height], size, type)
            // The placeholder a phone paints first: the result's shape and average colour.
            let hash = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap((done["result"] as? [String: Any])?["thumbhash"] as? String)))
            let placeholder = try XCTUnwrap(ThumbHash.decode([UInt8](hash)))
            XCTAssertEqual(ThumbHash.aspectRatio([UInt8](hash)), Double(size[0]) / Double(size[1]), accuracy: 0.2, type)
            func mean(_ image: PixelBuffer, _ k: Int) -> Double {
                stride(from: k, to: image.pixels.count, by: image.channels).reduce(0.0) { $0 + Double(image.pixels[$1]) }
                    / Double(image.width * image.height)
            }
            for k in 0..<3 { XCTAssertEqual(mean(placeholder, k), mean(result, k), accuracy: 20, "\(type) channel \(k)") }
        }
    }

    func testBadStyleRequestsNameTheField() async throws {
        let jpeg = try photo()
        func post(_ fields: [(String, String)]) async throws -> Reply {
            let (body, type) = multipart(fields, image: jpeg, filename: "image.jpg", contentType: "image/jpeg")
            return try await request(.POST, "/v1/jobs", body: body, contentType: type)
        }
        let cases: [([(String, String)], String)] = [
            ([("style_id", "oil_paint")], "style_id"),
            ([("style_id", "sketch"), ("params", #"{"eyes": 1.5}"#)], "params.eyes"),
            ([("style_id", "sketch"), ("params", #"{"intensity": "high"}"#)], "params.intensity"),
            ([("style_id", "sketch"), ("params", #"{"intensity": 0.5"#)], "params"),
            ([("style_id", "sketch"), ("params", "loud")], "params"),
            ([("kind", "stylize")], "style_id"),
            ([("style_id", "comic"), ("warp", #"[{"type": "bump", "x": 1, "y": 1, "radius": 5, "scale": 3}]"#)], "warp[0].scale"),
            ([("style_id", "comic"), ("warp", #"[{"type": "twirl", "x": 1, "y": 1, "radius": 5, "scale": 1}]"#)], "warp[0].type"),
        ]
        for (fields, field) in cases {
            let reply = try await post(fields)
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], field, "\(fields): \(reply.text)")
        }
        let count = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(count, 0)
    }
}
