import AtelierAPI
import AtelierImaging
import Foundation
import XCTest

/// The `analysis` job over HTTP: chosen advisors review an uploaded photo, progress names each
/// advisor, and the result is a self-contained HTML report behind a signed URL.
final class AnalysisJobTests: APITestCase {
    func photo() throws -> Data {
        var image = PixelBuffer(width: 400, height: 300, channels: 3, fill: 0)
        for y in 0..<300 { for x in 0..<400 {
            let i = (y * 400 + x) * 3
            image.pixels[i] = UInt8(y < 150 ? 130 : 70); image.pixels[i + 1] = UInt8(y < 150 ? 170 : 120); image.pixels[i + 2] = UInt8(y < 150 ? 225 : 60)
        } }
        return Data(try ImageCodec.encodeJPEG(image))
    }

    func testChosenAdvisorsReviewAndTheReportIsSelfContainedHTML() async throws {
        let (body, type) = multipart([("kind", "analysis"), ("advisor", "ansel,weston")], image: try photo(),
                                     filename: "field.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let result = try XCTUnwrap(done["result"] as? [String: Any])
        let advisors = try XCTUnwrap(result["advisors"] as? [[String: Any]])
        XCTAssertEqual(advisors.compactMap { $0["id"] as? String }, ["ansel", "weston"])
        XCTAssertEqual((advisors.first?["scores"] as? [String: Int])?.count, 8)
        XCTAssertNotNil(result["grade"] as? String)

        let events = try await db.scalar("SELECT string_agg(coalesce(data->>'step', ''), '|' ORDER BY id) FROM job_events WHERE job_id = \(UUID(uuidString: id)!)", as: String.self)
        XCTAssertTrue(events.contains("Conjuring Ansel Adams") && events.contains("Conjuring Edward Weston"), events)

        let download = try await request(.GET, try XCTUnwrap(done["result_url"] as? String), token: .some(nil))
        XCTAssertEqual(download.status, 200)
        XCTAssertTrue(download.headers.first(name: "Content-Type")?.hasPrefix("text/html") ?? false, "\(download.headers)")
        let html = download.text
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("data:image/jpeg;base64,"), "the photo is embedded")
        XCTAssertFalse(html.contains("src=\"http"), "nothing is loaded from elsewhere")
        for title in ["Composition (", "Lighting &amp; Exposure (", "Technical Execution ("] { XCTAssertTrue(html.contains(title), title) }
        XCTAssertNotNil(html.range(of: #"\((10|[1-9])/10\)"#, options: .regularExpression))
        XCTAssertTrue(html.contains("Ansel Adams") && html.contains("Edward Weston") && !html.contains("Piet Mondrian"))
    }

    func testAnUnknownAdvisorIsNamed() async throws {
        let (body, type) = multipart([("kind", "analysis"), ("advisor", "ansel,banksy")], image: try photo(),
                                     filename: "a.jpg", contentType: "image/jpeg")
        let reply = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(reply, status: 400, name: "ValidationError")
        XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], "advisor")
        XCTAssertTrue(reply.text.contains("banksy"))
    }
}
