import AtelierAPITestSupport
import AtelierImaging
import CAtelierColorFixtures
import Foundation
import XCTest

/// Colour through the whole system: a CMYK JPEG (refused before colour management) is stylized,
/// a JPEG whose profile is damaged is stylized as sRGB with a note in its events, and the
/// results are tagged sRGB.
final class ColorFlowTests: APITestCase {
    var picture: PixelBuffer {
        var image = PixelBuffer(width: 96, height: 64, channels: 3, fill: 210)
        for y in 16..<48 { for x in 24..<72 { image.pixels[(y * 96 + x) * 3 + 2] = 40 } }
        return image
    }

    /// A CMYK JPEG with no profile, as a scanner writes it (Adobe's inverted values).
    func cmykJPEG() -> Data {
        let cmyk = picture.pixels.chunks3().flatMap { rgb -> [UInt8] in
            let ink = rgb.map { 255 - Int($0) }, k = ink.min()!
            return (ink.map { UInt8(255 - ($0 - k)) }) + [UInt8(255 - k)]
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        XCTAssertEqual(acf_jpeg_encode_cmyk(cmyk, 96, 64, 0, nil, 0, &out, &size), 1)
        defer { acf_free(out) }
        return Data(UnsafeBufferPointer(start: out, count: size))
    }

    /// A JPEG with an APP2 ICC chunk of bytes that are no profile: a gray one, which our encoder
    /// leaves untagged, so the damaged chunk is the file's only profile.
    func damagedProfileJPEG() throws -> Data {
        let jpeg = try ImageCodec.encodeJPEG(PixelBuffer(width: 96, height: 64, channels: 1, fill: 120))
        let garbage = (0..<600).map { UInt8(($0 * 37 + 11) & 0xFF) }
        let length = 2 + 14 + garbage.count
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8) + [1, 1] + garbage
        return Data([0xFF, 0xD8] + segment + jpeg.dropFirst(2))
    }

    func stylize(_ image: Data) async throws -> (done: [String: Any], events: [ServerSentEvent], result: DecodedImage) {
        let (body, type) = multipart([("style_id", "cartoon")], image: image, filename: "photo.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        let events = try await readEventStream("/v1/jobs/\(id)/events").events
        let download = try await request(.GET, try XCTUnwrap(done["result_url"] as? String), token: .some(nil))
        return (done, events, try ImageCodec.decodeReporting([UInt8](download.body)))
    }

    func testACMYKJPEGIsStylizedAndTheResultIsTaggedSRGB() async throws {
        let (done, events, result) = try await stylize(cmykJPEG())
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        XCTAssertEqual([result.image.width, result.image.height], [96, 64])
        XCTAssertTrue(result.color.source.hasSuffix("(sRGB)"), result.color.source)
        XCTAssertFalse(events.contains { $0.data.contains("\"note\"") }, "the standard CMYK profile is installed: nothing to note")
    }

    func testADamagedProfileIsNotedAndTheJobSucceeds() async throws {
        let (done, events, _) = try await stylize(try damagedProfileJPEG())
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let notes = events.compactMap { event -> String? in
            guard event.name == "progress", let data = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            else { return nil }
            return data["note"] as? String
        }
        XCTAssertEqual(notes.count, 1, "\(events.map(\.data))")
        XCTAssertTrue(notes.first?.contains("damaged") ?? false, "\(notes)")
    }
}

private extension Array where Element == UInt8 {
    func chunks3() -> [[UInt8]] { stride(from: 0, to: count, by: 3).map { Array(self[$0..<($0 + 3)]) } }
}
