import AtelierImaging
import Foundation
import XCTest

/// The Caricature Maker's flow (CONTRACTS §3) over HTTP: multipart `image` + `params` +
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
