import AtelierAPITestSupport
import AtelierImaging
import Foundation
import XCTest

/// Stylize a photo end to end over HTTP, as the Caricature app does: a multipart form with the
/// `image` file, a `style_id` (a `style_id` without `kind` means `stylize`) and optional
/// `params`; the job's progress events name each stage; the result is a JPEG of the photo's size
/// behind a pre-signed `result_url`.
final class StylizeAPhoto: APITestCase {
    func testUploadAJPEGAndDownloadItsCartoon() async throws {
        var picture = PixelBuffer(width: 320, height: 240, channels: 3, fill: 210)
        for y in 60..<180 {
            for x in 100..<220 { picture.pixels.replaceSubrange((y * 320 + x) * 3 ..< (y * 320 + x) * 3 + 3, with: [180, 90, 60]) }
        }
        let photo = Data(try ImageCodec.encodeJPEG(picture))

        let (form, contentType) = multipart([("style_id", "cartoon"), ("params", #"{"intensity": 0.6}"#)],
                                            image: photo, filename: "portrait.jpg", contentType: "image/jpeg")
        let created = try await send(.POST, "\(baseURL)/v1/jobs", headers: ["X-App-Token": token, "Content-Type": contentType],
                                     body: form)
        XCTAssertEqual(created.status, 200, created.text)
        let job = try created.json()
        XCTAssertEqual(job["kind"] as? String, "stylize")

        let events = try await readEvents(try XCTUnwrap(job["stream_url"] as? String),
                                          headers: ["X-App-Token": token, "Accept": "text/event-stream"])
        struct Progress: Decodable { var step: String }
        let stages = try events.filter { $0.name == "progress" }.map { try $0.decode(Progress.self).step }
        XCTAssertEqual(stages, ["reading", "decoding", "stylizing", "encoding"])
        XCTAssertEqual(events.last?.name, "succeeded")

        let done = try await send(.GET, try XCTUnwrap(job["status_url"] as? String), headers: ["X-App-Token": token]).json()
        let result = try await send(.GET, try XCTUnwrap(done["result_url"] as? String))
        XCTAssertEqual(result.header("Content-Type"), "image/jpeg")
        let cartoon = try ImageCodec.decode([UInt8](result.body))
        XCTAssertEqual([cartoon.width, cartoon.height], [320, 240])
        XCTAssertNotEqual(cartoon.pixels, try ImageCodec.decode([UInt8](photo)).pixels, "the style changed the picture")
    }
}
